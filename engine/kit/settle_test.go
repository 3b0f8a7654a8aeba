package kit_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit"
)

func TestSettlingNext(t *testing.T) {
	const ms = time.Millisecond
	q := engine.SettleQuiet
	for _, tc := range []struct {
		name string
		s    kit.Settling
		step kit.SettleStep
		wait time.Duration
	}{
		{"a navigation is waited for whatever the network does", kit.Settling{Navigated: true, Started: 3, Pending: 2, NavLeft: time.Second}, kit.SettleLoad, 0},
		{"nothing started", kit.Settling{Left: time.Second}, kit.SettleDone, 0},
		{"requests pending", kit.Settling{Started: 2, Pending: 1, Quiet: time.Second, Left: 1500 * ms}, kit.SettleWait, 1500 * ms},
		{"requests done, quiet window not reached", kit.Settling{Started: 2, Quiet: 20 * ms, Left: time.Second}, kit.SettleWait, q - 20*ms},
		{"requests done, quiet window reached", kit.Settling{Started: 2, Quiet: q, Left: time.Second}, kit.SettleDone, 0},
		{"deadline passed with requests pending", kit.Settling{Started: 2, Pending: 2, Left: -ms}, kit.SettleDone, 0},
		{"deadline reached but not passed", kit.Settling{Started: 2, Pending: 2}, kit.SettleWait, 0},
		{"a requested navigation is waited for past the deadline", kit.Settling{Started: 1, Pending: 1, Left: -ms, NavLeft: 700 * ms}, kit.SettleWait, 700 * ms},
		{"a requested navigation is waited for though quiet", kit.Settling{Started: 1, Pending: 1, Quiet: time.Second, Left: time.Second, NavLeft: 700 * ms}, kit.SettleWait, 700 * ms},
		{"a requested navigation out of time", kit.Settling{Started: 1, Pending: 1, Left: -ms, NavLeft: -ms}, kit.SettleDone, 0},
		{"a requested navigation out of time, requests pending", kit.Settling{Started: 1, Pending: 1, Left: time.Second}, kit.SettleWait, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			step, wait := tc.s.Next()
			if step != tc.step || wait != tc.wait {
				t.Fatalf("%+v: Next() = %v, %v; want %v, %v", tc.s, step, wait, tc.step, tc.wait)
			}
		})
	}
}

func TestAwaitChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		changed := make(chan struct{})
		start := time.Now()
		if err := kit.AwaitChange(t.Context(), changed, time.Second); err != nil || time.Since(start) != time.Second {
			t.Fatalf("no change: err %v after %v; want nil after 1s", err, time.Since(start))
		}
		go func() {
			time.Sleep(100 * time.Millisecond)
			close(changed)
		}()
		start = time.Now()
		if err := kit.AwaitChange(t.Context(), changed, time.Second); err != nil || time.Since(start) != 100*time.Millisecond {
			t.Fatalf("a change: err %v after %v; want nil after 100ms", err, time.Since(start))
		}
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
		defer cancel()
		if err := kit.AwaitChange(ctx, make(chan struct{}), time.Second); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("ctx ended: err %v, want its error", err)
		}
	})
}

func TestNetworkIdleNext(t *testing.T) {
	for _, c := range []struct {
		idle  bool
		quiet time.Duration
		done  bool
		wait  time.Duration
	}{
		{idle: true, quiet: engine.NetworkIdleQuiet, done: true},
		{idle: true, quiet: 200 * time.Millisecond, wait: engine.NetworkIdleQuiet - 200*time.Millisecond},
		{idle: false, quiet: time.Hour, wait: engine.DefaultNavigationTimeout},
	} {
		done, wait := kit.NetworkIdleNext(c.idle, c.quiet)
		if done != c.done || wait != c.wait {
			t.Errorf("NetworkIdleNext(%v, %s) = %v, %s; want %v, %s", c.idle, c.quiet, done, wait, c.done, c.wait)
		}
	}
}

// SettleNetwork looks again at each change until Next says the page
// navigated or is done, and stops with ctx's error when ctx ends first.
func TestSettleNetwork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		closed := make(chan struct{})
		close(closed)
		for _, tc := range []struct {
			name      string
			seen      []kit.Settling // what each look sees; the last repeats
			navigated bool
			looks     int
		}{
			{"nothing started", []kit.Settling{{}}, false, 1},
			{"navigated", []kit.Settling{{Started: 1, Pending: 1, Left: time.Second}, {Navigated: true}}, true, 2},
			{"requests end", []kit.Settling{{Started: 1, Pending: 1, Left: time.Second}, {Started: 1, Quiet: engine.SettleQuiet, Left: time.Second}}, false, 2},
		} {
			looks := 0
			nav, err := kit.SettleNetwork(t.Context(), func() (kit.Settling, <-chan struct{}) {
				s := tc.seen[min(looks, len(tc.seen)-1)]
				looks++
				return s, closed
			})
			if err != nil || nav != tc.navigated || looks != tc.looks {
				t.Errorf("%s: navigated %v after %d looks, %v; want %v after %d", tc.name, nav, looks, err, tc.navigated, tc.looks)
			}
		}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := kit.SettleNetwork(ctx, func() (kit.Settling, <-chan struct{}) {
			return kit.Settling{Started: 1, Pending: 1, Left: time.Hour}, make(chan struct{})
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("ended ctx: %v", err)
		}
	})
}

// Settle goes round again only after a round that started requests,
// while rounds and the page work's time are left.
func TestSettleAgain(t *testing.T) {
	later := time.Now().Add(time.Hour)
	for _, tc := range []struct {
		round   int
		started bool
		until   time.Time
		want    bool
	}{
		{0, true, later, true},
		{0, false, later, false},
		{kit.SettleRounds - 2, true, later, true},
		{kit.SettleRounds - 1, true, later, false},
		{0, true, time.Now().Add(-time.Second), false},
	} {
		if got := kit.SettleAgain(tc.round, tc.started, tc.until); got != tc.want {
			t.Errorf("SettleAgain(%d, %v, %v) = %v", tc.round, tc.started, tc.until, got)
		}
	}
}

package engine_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

func TestSettlingNext(t *testing.T) {
	const ms = time.Millisecond
	q := engine.SettleQuiet
	for _, tc := range []struct {
		name string
		s    engine.Settling
		step engine.SettleStep
		wait time.Duration
	}{
		{"a navigation is waited for whatever the network does", engine.Settling{Navigated: true, Started: 3, Pending: 2, NavLeft: time.Second}, engine.SettleLoad, 0},
		{"nothing started", engine.Settling{Left: time.Second}, engine.SettleDone, 0},
		{"requests pending", engine.Settling{Started: 2, Pending: 1, Quiet: time.Second, Left: 1500 * ms}, engine.SettleWait, 1500 * ms},
		{"requests done, quiet window not reached", engine.Settling{Started: 2, Quiet: 20 * ms, Left: time.Second}, engine.SettleWait, q - 20*ms},
		{"requests done, quiet window reached", engine.Settling{Started: 2, Quiet: q, Left: time.Second}, engine.SettleDone, 0},
		{"deadline passed with requests pending", engine.Settling{Started: 2, Pending: 2, Left: -ms}, engine.SettleDone, 0},
		{"deadline reached but not passed", engine.Settling{Started: 2, Pending: 2}, engine.SettleWait, 0},
		{"a requested navigation is waited for past the deadline", engine.Settling{Started: 1, Pending: 1, Left: -ms, NavLeft: 700 * ms}, engine.SettleWait, 700 * ms},
		{"a requested navigation is waited for though quiet", engine.Settling{Started: 1, Pending: 1, Quiet: time.Second, Left: time.Second, NavLeft: 700 * ms}, engine.SettleWait, 700 * ms},
		{"a requested navigation out of time", engine.Settling{Started: 1, Pending: 1, Left: -ms, NavLeft: -ms}, engine.SettleDone, 0},
		{"a requested navigation out of time, requests pending", engine.Settling{Started: 1, Pending: 1, Left: time.Second}, engine.SettleWait, time.Second},
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
		if err := engine.AwaitChange(t.Context(), changed, time.Second); err != nil || time.Since(start) != time.Second {
			t.Fatalf("no change: err %v after %v; want nil after 1s", err, time.Since(start))
		}
		go func() {
			time.Sleep(100 * time.Millisecond)
			close(changed)
		}()
		start = time.Now()
		if err := engine.AwaitChange(t.Context(), changed, time.Second); err != nil || time.Since(start) != 100*time.Millisecond {
			t.Fatalf("a change: err %v after %v; want nil after 100ms", err, time.Since(start))
		}
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
		defer cancel()
		if err := engine.AwaitChange(ctx, make(chan struct{}), time.Second); !errors.Is(err, context.DeadlineExceeded) {
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
		done, wait := engine.NetworkIdleNext(c.idle, c.quiet)
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
			seen      []engine.Settling // what each look sees; the last repeats
			navigated bool
			looks     int
		}{
			{"nothing started", []engine.Settling{{}}, false, 1},
			{"navigated", []engine.Settling{{Started: 1, Pending: 1, Left: time.Second}, {Navigated: true}}, true, 2},
			{"requests end", []engine.Settling{{Started: 1, Pending: 1, Left: time.Second}, {Started: 1, Quiet: engine.SettleQuiet, Left: time.Second}}, false, 2},
		} {
			looks := 0
			nav, err := engine.SettleNetwork(t.Context(), func() (engine.Settling, <-chan struct{}) {
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
		_, err := engine.SettleNetwork(ctx, func() (engine.Settling, <-chan struct{}) {
			return engine.Settling{Started: 1, Pending: 1, Left: time.Hour}, make(chan struct{})
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
		{engine.SettleRounds - 2, true, later, true},
		{engine.SettleRounds - 1, true, later, false},
		{0, true, time.Now().Add(-time.Second), false},
	} {
		if got := engine.SettleAgain(tc.round, tc.started, tc.until); got != tc.want {
			t.Errorf("SettleAgain(%d, %v, %v) = %v", tc.round, tc.started, tc.until, got)
		}
	}
}

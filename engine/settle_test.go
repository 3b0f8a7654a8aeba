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

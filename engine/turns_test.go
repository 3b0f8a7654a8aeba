package engine_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// record returns a call that notes its name when it runs, taking d.
func record(mu *sync.Mutex, ran *[]string, name string, d time.Duration) func(context.Context, engine.Session) error {
	return func(ctx context.Context, s engine.Session) error {
		mu.Lock()
		*ran = append(*ran, name)
		mu.Unlock()
		return nav(d)(ctx, s)
	}
}

// TestTurnsRunCallsInArrivalOrder (issue 23, item 3): calls that took
// their turns in one order run in that order on their session, however
// their goroutines reach Use, whether they name the session by id, by
// name or not at all (the default context); a call whose turn was left
// (cancelled before it ran) does not run, and one cancelled while it
// waits leaves the line at once.
func TestTurnsRunCallsInArrivalOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newManager(&fakeEngine{}, time.Hour, 10)
		ctx := t.Context()
		def, err := m.Use(ctx, "", nav(0)) // the default context
		if err != nil {
			t.Fatal(err)
		}
		refs := []string{def.ID, engine.DefaultSessionName, "", def.ID, engine.DefaultSessionName}
		var toks []string
		for _, ref := range refs {
			toks = append(toks, m.Arrive(ctx, ref))
		}
		var mu sync.Mutex
		var ran []string
		var wg sync.WaitGroup
		// The last to arrive reaches Use first.
		for i := len(refs) - 1; i >= 0; i-- {
			wg.Go(func() {
				if _, err := m.Use(engine.WithTurn(ctx, toks[i]), refs[i], record(&mu, &ran, string(rune('a'+i)), time.Second)); err != nil {
					t.Errorf("call %d: %v", i, err)
				}
			})
			synctest.Wait()
		}
		wg.Wait()
		if got := strings.Join(ran, ""); got != "abcde" {
			t.Fatalf("ran %q, want abcde (arrival order)", got)
		}

		// b's turn is left before it runs (the client cancelled it): it
		// does not run, and c does not wait for it. d is cancelled while
		// it waits behind a: e runs right after a.
		ran = nil
		toks = toks[:0]
		for range 5 {
			toks = append(toks, m.Arrive(ctx, def.ID))
		}
		m.Leave(toks[1])
		errs := make([]error, 5)
		dctx, cancelD := context.WithCancel(ctx)
		start := time.Now()
		for i := 4; i >= 0; i-- {
			cctx := ctx
			if i == 3 {
				cctx = dctx
			}
			wg.Go(func() {
				_, errs[i] = m.Use(engine.WithTurn(cctx, toks[i]), def.ID, record(&mu, &ran, string(rune('a'+i)), time.Second))
			})
			synctest.Wait()
		}
		cancelD()
		wg.Wait()
		if got := strings.Join(ran, ""); got != "ace" {
			t.Fatalf("ran %q, want ace", got)
		}
		if !errors.Is(errs[1], context.Canceled) || !errors.Is(errs[3], context.Canceled) {
			t.Fatalf("the cancelled calls: %v, %v; want context.Canceled", errs[1], errs[3])
		}
		if d := time.Since(start); d != 3*time.Second {
			t.Fatalf("took %v, want 3s: the cancelled calls left the line at once", d)
		}
	})
}

// TestTurnsOfOtherSessionsDoNotWait: a call on session B does not wait for
// the turns of session A, and a turn no call ever ends (a request lost
// before its handler) holds its session's next call at most
// DefaultCallTimeout, which then answers TIMEOUT session_busy.
func TestTurnsOfOtherSessionsDoNotWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newManager(&fakeEngine{}, time.Hour, 10)
		ctx := t.Context()
		a, _ := m.Create(ctx, "a", engine.SessionOptions{})
		b, _ := m.Create(ctx, "", engine.SessionOptions{})
		lost := m.Arrive(ctx, "a")
		tb := m.Arrive(ctx, b.ID)
		start := time.Now()
		if _, err := m.Use(engine.WithTurn(ctx, tb), b.ID, nav(time.Second)); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d != time.Second {
			t.Fatalf("the call on B took %v, want 1s: it waited for A's line", d)
		}
		ta := m.Arrive(ctx, a.ID)
		_, err := m.Use(engine.WithTurn(ctx, ta), a.ID, nav(0))
		if e := engine.AsError(err); e.Code != engine.Timeout || e.Details["reason"] != "session_busy" {
			t.Fatalf("a call behind a lost turn: %v, want TIMEOUT session_busy", err)
		}
		if d := time.Since(start); d != time.Second+engine.DefaultCallTimeout {
			t.Fatalf("it waited %v, want DefaultCallTimeout", d-time.Second)
		}
		m.Leave(lost)
		if _, err := m.Use(engine.WithTurn(ctx, m.Arrive(ctx, "a")), "a", nav(0)); err != nil {
			t.Fatalf("after the lost turn left: %v", err)
		}
	})
}

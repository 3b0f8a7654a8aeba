package sessions_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
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

// noop is a call that does nothing.
func noop(context.Context, engine.Session) error { return nil }

// TestTurnsRunCallsInArrivalOrder (issue 23, item 3): calls that took
// their turns in one order run in that order on their session, however
// their goroutines reach Run, whether they name the session by id, by
// name or not at all (the default context); a call whose turn was left
// (cancelled before it ran) does not run, and one cancelled while it
// waits leaves the line at once.
func TestTurnsRunCallsInArrivalOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newManager(&fakeEngine{}, time.Hour, 10)
		ctx := t.Context()
		def, err := m.Run(ctx, "", nav(0)) // the default context
		if err != nil {
			t.Fatal(err)
		}
		refs := []string{def.ID, sessions.DefaultName, "", def.ID, sessions.DefaultName}
		var toks []string
		for _, ref := range refs {
			toks = append(toks, m.Arrive(ctx, ref))
		}
		var mu sync.Mutex
		var ran []string
		var wg sync.WaitGroup
		// The last to arrive reaches Run first.
		for i := len(refs) - 1; i >= 0; i-- {
			wg.Go(func() {
				if _, err := m.Run(sessions.WithTurn(ctx, toks[i]), refs[i], record(&mu, &ran, string(rune('a'+i)), time.Second)); err != nil {
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
				_, errs[i] = m.Run(sessions.WithTurn(cctx, toks[i]), def.ID, record(&mu, &ran, string(rune('a'+i)), time.Second))
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
// before its handler) holds its session's next call DefaultCallTimeout,
// after which it leaves the line: that call runs, and the calls after it
// wait for it no more. Before, the lost turn stayed at the head of the
// line and every later call waited in vain and answered session_busy.
func TestTurnsOfOtherSessionsDoNotWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newManager(&fakeEngine{}, time.Hour, 10)
		ctx := t.Context()
		a, _ := m.Create(ctx, "a", engine.SessionOptions{})
		b, _ := m.Create(ctx, "", engine.SessionOptions{})
		m.Arrive(ctx, "a") // lost
		tb := m.Arrive(ctx, b.ID)
		start := time.Now()
		if _, err := m.Run(sessions.WithTurn(ctx, tb), b.ID, nav(time.Second)); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d != time.Second {
			t.Fatalf("the call on B took %v, want 1s: it waited for A's line", d)
		}
		ta := m.Arrive(ctx, a.ID)
		if _, err := m.Run(sessions.WithTurn(ctx, ta), a.ID, noop); err != nil {
			t.Fatalf("a call behind a lost turn: %v, want it to run once the lost turn left", err)
		}
		if d := time.Since(start); d != time.Second+engine.DefaultCallTimeout {
			t.Fatalf("it waited %v, want DefaultCallTimeout", d-time.Second)
		}
		start = time.Now()
		if _, err := m.Run(sessions.WithTurn(ctx, m.Arrive(ctx, "a")), "a", noop); err != nil {
			t.Fatalf("the next call: %v", err)
		}
		if d := time.Since(start); d != 0 {
			t.Fatalf("the next call waited %v for the lost turn", d)
		}
	})
}

// TestTurnsLostBeforeTheDefaultContext: a turn lost on the default context
// before it exists (keyed by owner and name) does not keep every later call
// from creating it.
func TestTurnsLostBeforeTheDefaultContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newManager(&fakeEngine{}, time.Hour, 10)
		ctx := t.Context()
		m.Arrive(ctx, "") // lost
		for i := range 3 {
			start := time.Now()
			if _, err := m.Run(sessions.WithTurn(ctx, m.Arrive(ctx, "")), "", noop); err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
			want := time.Duration(0)
			if i == 0 {
				want = engine.DefaultCallTimeout
			}
			if d := time.Since(start); d != want {
				t.Fatalf("call %d waited %v, want %v", i, d, want)
			}
		}
	})
}

// TestTurnsWaitingAreNotLost: a call still waiting for its turn is not
// lost: a call behind it that runs out of patience answers session_busy,
// and the waiting one still runs, after the call before it.
func TestTurnsWaitingAreNotLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newManager(&fakeEngine{}, time.Hour, 10)
		ctx := t.Context()
		a, _ := m.Create(ctx, "a", engine.SessionOptions{})
		toks := []string{m.Arrive(ctx, a.ID), m.Arrive(ctx, a.ID), m.Arrive(ctx, a.ID)}
		var mu sync.Mutex
		var ran []string
		errs := make([]error, 3)
		var wg sync.WaitGroup
		// a runs 20s, then b 20s: c's wait runs out while b runs.
		for i, d := range []time.Duration{20 * time.Second, 20 * time.Second, 0} {
			wg.Go(func() {
				_, errs[i] = m.Run(sessions.WithTurn(ctx, toks[i]), a.ID, record(&mu, &ran, string(rune('a'+i)), d))
			})
			synctest.Wait()
		}
		wg.Wait()
		if got := strings.Join(ran, ""); got != "ab" {
			t.Fatalf("ran %q, want ab", got)
		}
		if errs[0] != nil || errs[1] != nil {
			t.Fatalf("the first two calls: %v, %v", errs[0], errs[1])
		}
		if e := engine.AsError(errs[2]); e.Code != engine.Timeout || e.Details["reason"] != "session_busy" {
			t.Fatalf("the third call: %v, want TIMEOUT session_busy", errs[2])
		}
	})
}

// TestTurnsWithoutSessionFollowEveryCall: a call that names no session
// runs on the active context, which a switch read before it may change:
// it waits for every earlier call of its owner, whichever session they
// name, and the calls after it wait for it.
func TestTurnsWithoutSessionFollowEveryCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newManager(&fakeEngine{}, time.Hour, 10)
		ctx := t.Context()
		a, _ := m.Create(ctx, "a", engine.SessionOptions{})
		b, _ := m.Create(ctx, "b", engine.SessionOptions{})
		refs := []string{a.ID, b.ID, "", a.ID, b.ID}
		var toks []string
		for _, ref := range refs {
			toks = append(toks, m.Arrive(ctx, ref))
		}
		var mu sync.Mutex
		var ran []string
		var wg sync.WaitGroup
		for i := len(refs) - 1; i >= 0; i-- {
			wg.Go(func() {
				if _, err := m.Run(sessions.WithTurn(ctx, toks[i]), refs[i], record(&mu, &ran, string(rune('a'+i)), time.Second)); err != nil {
					t.Errorf("call %d: %v", i, err)
				}
			})
			synctest.Wait()
		}
		start := time.Now()
		wg.Wait()
		// a and b at once, then c alone, then d and e at once.
		if d := time.Since(start); d != 3*time.Second {
			t.Fatalf("took %v, want 3s", d)
		}
		if got := strings.Join(ran, ""); got[2] != 'c' {
			t.Fatalf("ran %q: the call without a session did not run third", got)
		}
	})
}

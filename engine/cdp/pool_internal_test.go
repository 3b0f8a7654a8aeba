package cdp

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// TestPoolPlacesLeastLoaded follows the sessions of a pool of two onto
// their browsers: a second browser starts for the second session, later
// ones go to the browser with fewer sessions, and a session's browser is
// the one the pool counted it on. The root package's pool tests check the
// same through the binary, from the browser processes.
func TestPoolPlacesLeastLoaded(t *testing.T) {
	vp := engine.Viewport{Width: 800, Height: 600}
	e := New(Config{ExecPath: testenv.Chromium(t), Headless: true, Viewport: vp, Pool: &Pool{MinBrowsers: 0, MaxBrowsers: 2}})
	defer e.Close()
	e.Start()
	if l := e.pool.loads(); len(l) != 0 {
		t.Fatalf("minBrowsers 0 started browsers ahead: %v", l)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	open := func(want ...int) engine.Session {
		t.Helper()
		s, err := e.NewSession(ctx, engine.SessionOptions{Viewport: vp})
		if err != nil {
			t.Fatal(err)
		}
		if l := e.pool.loads(); !slices.Equal(l, want) {
			t.Fatalf("sessions per browser %v; want %v", l, want)
		}
		return s
	}
	closeS := func(s engine.Session, want ...int) {
		t.Helper()
		if err := s.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if l := e.pool.loads(); !slices.Equal(l, want) {
			t.Fatalf("after a close, sessions per browser %v; want %v", l, want)
		}
	}
	browserOf := func(s engine.Session) *browserProc {
		tb, ok := engine.As[*tabbed](s)
		if !ok {
			t.Fatalf("%T is not this engine's session", s)
		}
		return tb.first.b
	}
	a := open(1)
	b := open(1, 1)
	c := open(2, 1)
	if browserOf(a) == browserOf(b) || browserOf(a) != browserOf(c) {
		t.Fatal("sessions a and c should share the first browser, b have the second")
	}
	closeS(b, 2, 0)
	d := open(2, 1)
	if browserOf(d) == browserOf(a) {
		t.Fatal("d went to the busier browser")
	}
	closeS(a, 1, 1)
	closeS(c, 0, 1)
	// Close is idempotent, and so is taking the session off its browser.
	closeS(c, 0, 1)
	closeS(d, 0, 0)
}

package cdp

import (
	"context"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// newTestEngine starts a headless browser for one test.
func newTestEngine(t *testing.T) *Engine {
	t.Helper()
	e := New(Config{ExecPath: testenv.Chromium(t), Headless: true})
	e.Start()
	t.Cleanup(func() { e.Close() })
	return e
}

// openTestTab opens a session of e with viewport vp, closed when the test
// ends, at url unless it is empty, and returns its first tab.
func openTestTab(t *testing.T, e *Engine, vp engine.Viewport, url string) *session {
	t.Helper()
	ss, err := e.NewSession(t.Context(), engine.SessionOptions{Viewport: vp})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close(context.Background()) })
	s := ss.(*tabbed).session
	if url != "" {
		if _, err := s.Navigate(t.Context(), engine.NavigateRequest{URL: url}.WithDefaults()); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// newTestSession starts a browser and opens one session on it.
func newTestSession(t *testing.T) *session {
	return openTestTab(t, newTestEngine(t), engine.Viewport{Width: 800, Height: 600}, "")
}

// TestCloseWithRoutesStopsTheWorker closes a session while its routes hold
// a burst of requests and checks that the goroutine answering them ends.
func TestCloseWithRoutesStopsTheWorker(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := newTestSession(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := s.Navigate(ctx, engine.NavigateRequest{URL: site.URL + "/net.html"}.WithDefaults()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddRoute(ctx, engine.Route{Action: engine.RouteMock, URLPattern: "*/api/*", Body: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddRoute(ctx, engine.Route{Action: engine.RouteBlock, URLPattern: "*/hang*"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Evaluate(ctx, engine.EvalRequest{Expression: `for (let i = 0; i < 100; i++) { fetch("/api/data?i=" + i); fetch("/hang?i=" + i).catch(() => {}) }`}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.obs.routes.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the route worker still runs 10 s after the session closed")
	}
}

func TestMatchGlob(t *testing.T) {
	for _, c := range []struct {
		pattern, url string
		want         bool
	}{
		{"*", "http://a/b", true},
		{"*/api/*", "http://a/api/data?x=1", true},
		{"*/api/data", "http://a/api/data?x=1", false},
		{"http://a/*.png", "http://a/img/x.png", true},
		{"http://a/*.png", "http://a/img/x.png?v=2", false},
		{"*a*b*c", "xxaxxbxxc", true},
		{"*a*b*c", "xxaxxcxxb", false},
		{"http://a/?x", "http://a/?x", true},
		{"http://a/?x", "http://a/yx", false},
	} {
		if got := engine.MatchGlob(c.pattern, c.url); got != c.want {
			t.Errorf("MatchGlob(%q, %q) = %v, want %v", c.pattern, c.url, got, c.want)
		}
	}
}

package pw_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/enginetest"
	"github.com/seed4af8c199/browsermcp/engine/pw"
	"github.com/seed4af8c199/browsermcp/internal/testenv/pwenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// TestConditionsReachNewTabs checks, on Chromium, that the session's
// offline and throttling settings apply to every tab: one opened with the
// tabs tool and one the page opens itself.
func TestConditionsReachNewTabs(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := openPage(t, pw.Chromium, site.URL+"/net.html")
	const latency = 300
	if err := s.SetThrottling(ctx, engine.Throttling{LatencyMs: latency}); err != nil {
		t.Fatal(err)
	}
	fetchMs := func(where string) {
		t.Helper()
		v, err := s.Evaluate(ctx, engine.EvalRequest{Expression: `(async () => { const t0 = performance.now(); const r = await fetch("/api/data?" + Math.random()); await r.text(); return performance.now() - t0; })()`})
		if err != nil {
			t.Fatal(err)
		}
		if ms, _ := strconv.ParseFloat(string(v), 64); ms < latency {
			t.Errorf("%s: a fetch under %d ms of latency took %s ms", where, latency, v)
		}
	}
	if _, err := s.Tabs(ctx, engine.TabsRequest{Action: "new", URL: site.URL + "/net.html"}); err != nil {
		t.Fatal(err)
	}
	fetchMs("new tab")
	if _, err := s.Evaluate(ctx, engine.EvalRequest{Expression: `window.open("/net.html") && true`}); err != nil {
		t.Fatal(err)
	}
	tabs, err := s.Tabs(ctx, engine.TabsRequest{Action: "list"})
	if err != nil || len(tabs.Tabs) != 3 {
		t.Fatalf("tabs = %+v, %v", tabs, err)
	}
	if _, err := s.Tabs(ctx, engine.TabsRequest{Action: "select", Index: new(2)}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WaitForLoad(ctx, engine.WaitLoad, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	fetchMs("popup")
	if err := s.SetOffline(ctx, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Tabs(ctx, engine.TabsRequest{Action: "new"}); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Evaluate(ctx, engine.EvalRequest{Expression: "navigator.onLine"}); err != nil || string(v) != "false" {
		t.Errorf("navigator.onLine in a tab opened while offline = %s, %v", v, err)
	}
}

// startEngine starts browser through the playwright engine, at the
// conformance suite's viewport, for one test, which closes it as it ends.
func startEngine(t *testing.T, browser string) *pw.Engine {
	t.Helper()
	cfg := pwenv.Playwright(t, browser)
	cfg.Viewport = enginetest.Viewport
	e, err := pw.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.Start()
	t.Cleanup(func() { e.Close() })
	return e
}

// openPage starts browser through the playwright engine for one test, opens
// a session there (closed when the test ends) and navigates it to url.
func openPage(t *testing.T, browser, url string) engine.Session {
	t.Helper()
	e := startEngine(t, browser)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := e.NewSession(ctx, engine.SessionOptions{Viewport: enginetest.Viewport})
	if err != nil {
		t.Fatal(err)
	}
	s = engine.Bound(s) // as the Manager calls it
	t.Cleanup(func() { s.Close(context.Background()) })
	if _, err := s.Navigate(ctx, engine.NavigateRequest{URL: url}); err != nil {
		t.Fatal(err)
	}
	return s
}

package enginetest

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
)

func (h *harness) testNetwork(t *testing.T) {
	t.Run("SessionWide", h.testNetworkSessionWide)
	t.Run("RequestLog", func(t *testing.T) {
		s := h.open(t, "/net.html")
		if got := evaluate(t, s, engine.EvalRequest{Expression: `loadImage("/missing.png")`}); got != `"error"` {
			t.Fatalf("loadImage(/missing.png) = %s", got)
		}
		if got := evaluate(t, s, engine.EvalRequest{Expression: `get("/api/data").then(r => r.status)`}); got != `200` {
			t.Fatalf("get(/api/data) = %s", got)
		}
		log, err := s.RequestLog(ctx(t), engine.RequestLogQuery{})
		if err != nil {
			t.Fatal(err)
		}
		find := func(suffix string) engine.RequestEntry {
			t.Helper()
			i := slices.IndexFunc(log.Requests, func(e engine.RequestEntry) bool { return strings.HasSuffix(e.URL, suffix) })
			if i < 0 {
				t.Fatalf("no %s in the request log %+v", suffix, log.Requests)
			}
			return log.Requests[i]
		}
		doc := find("/net.html")
		if doc.Method != "GET" || doc.ResourceType != "document" || doc.State != "finished" || doc.Status != 200 ||
			doc.MimeType != "text/html" || doc.StartedAt <= 0 {
			t.Errorf("document entry = %+v", doc)
		}
		if img := find("/missing.png"); img.Status != 404 || img.ResourceType != "image" {
			t.Errorf("missing image entry = %+v", img)
		}
		if api := find("/api/data"); api.Status != 200 || api.ResourceType != "fetch" || api.State != "finished" {
			t.Errorf("fetch entry = %+v", api)
		}
		only, err := s.RequestLog(ctx(t), engine.RequestLogQuery{Filter: "API/DATA"})
		if err != nil || only.Total != 1 || len(only.Requests) != 1 {
			t.Errorf("filter API/DATA = %+v, %v", only, err)
		}
		last, err := s.RequestLog(ctx(t), engine.RequestLogQuery{Limit: 1})
		if err != nil || len(last.Requests) != 1 || last.Total != log.Total || !strings.HasSuffix(last.Requests[0].URL, "/api/data") {
			t.Errorf("limit 1 = %+v, %v", last, err)
		}
		if imgs, err := s.RequestLog(ctx(t), engine.RequestLogQuery{ResourceType: "image"}); err != nil || imgs.Total != 1 {
			t.Errorf("resourceType image = %+v, %v", imgs, err)
		}
	})
	t.Run("Offline", func(t *testing.T) {
		s := h.open(t, "/net.html")
		err := s.SetOffline(ctx(t), true)
		if !supported(t, err) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := evaluate(t, s, engine.EvalRequest{Expression: `get("/api/data").then(r => r.error ? "error" : "ok")`}); got != `"error"` {
			t.Errorf("fetch while offline = %s", got)
		}
		if got := evaluate(t, s, engine.EvalRequest{Expression: `navigator.onLine`}); got != "false" {
			t.Errorf("navigator.onLine while offline = %s", got)
		}
		_, err = s.Navigate(ctx(t), engine.NavigateRequest{URL: h.site.url("/form.html")})
		wantError(t, err, engine.NetworkError, map[string]any{"url": h.site.url("/form.html"), "reason": "offline"})
		failed, err := s.RequestLog(ctx(t), engine.RequestLogQuery{FailedOnly: true, Filter: "/api/data"})
		if err != nil || failed.Total != 1 || failed.Requests[0].Error == "" {
			t.Errorf("failed requests = %+v, %v", failed, err)
		}
		if err := s.SetOffline(ctx(t), false); err != nil {
			t.Fatal(err)
		}
		h.navigate(t, s, "/form.html")
		wantTitle(t, s, "Sign in")
	})
	t.Run("Throttling", func(t *testing.T) {
		s := h.open(t, "/net.html")
		const latency = 300
		err := s.SetThrottling(ctx(t), engine.Throttling{LatencyMs: latency, DownloadKbps: 1000})
		if !h.chromium() {
			// Only Chromium's DevTools protocol emulates network
			// conditions; other browsers must say so, naming themselves.
			_, browser, _ := strings.Cut(h.eng.Name(), "/")
			wantError(t, err, engine.Unsupported, map[string]any{"browser": browser})
			supported(t, err)
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		// The latency delays every request by at least that much.
		if ms := fetchMs(t, s); ms < latency {
			t.Errorf("a fetch under %d ms of latency took %.0f ms", latency, ms)
		}
		// Offline and throttling are set apart and do not undo each
		// other.
		if err := s.SetOffline(ctx(t), true); err != nil {
			t.Fatal(err)
		}
		if got := evaluate(t, s, engine.EvalRequest{Expression: `get("/api/data").then(r => r.error ? "error" : "ok")`}); got != `"error"` {
			t.Errorf("fetch while offline and throttled = %s", got)
		}
		if err := s.SetThrottling(ctx(t), engine.Throttling{LatencyMs: latency}); err != nil {
			t.Fatal(err)
		}
		if got := evaluate(t, s, engine.EvalRequest{Expression: `get("/api/data").then(r => r.error ? "error" : "ok")`}); got != `"error"` {
			t.Errorf("setting throttling brought the network back: fetch = %s", got)
		}
		if err := s.SetOffline(ctx(t), false); err != nil {
			t.Fatal(err)
		}
		if ms := fetchMs(t, s); ms < latency {
			t.Errorf("going back online dropped the throttling: a fetch took %.0f ms", ms)
		}
		log, err := s.RequestLog(ctx(t), engine.RequestLogQuery{Filter: "/api/data", Limit: 1})
		if err != nil || len(log.Requests) != 1 || !log.Requests[0].Throttled {
			t.Errorf("the throttled request's log entry = %+v, %v", log.Requests, err)
		}
		if err := s.SetThrottling(ctx(t), engine.Throttling{}); err != nil {
			t.Fatal(err)
		}
		if got := evaluate(t, s, engine.EvalRequest{Expression: `get("/api/data").then(r => r.status)`}); got != `200` {
			t.Errorf("fetch after throttling was turned off = %s", got)
		}
		err = s.SetThrottling(ctx(t), engine.Throttling{LatencyMs: -1})
		wantError(t, err, engine.InvalidParameters, nil)
	})
	t.Run("PDF", func(t *testing.T) {
		s := h.open(t, "/catalog.html")
		_, err := s.PDF(ctx(t), engine.PDFRequest{Format: "Napkin"})
		wantError(t, err, engine.InvalidParameters, map[string]any{"field": "format"})
		pdf, err := s.PDF(ctx(t), engine.PDFRequest{Format: "A4", Landscape: true})
		if !supported(t, err) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
			t.Fatalf("PDF starts with %q", pdf[:min(len(pdf), 16)])
		}
	})
}

// fetchMs is how long a fetch of /api/data takes, measured in the page.
func fetchMs(t *testing.T, s engine.Session) float64 {
	t.Helper()
	got := evaluate(t, s, engine.EvalRequest{Expression: `(async () => { const t0 = performance.now(); const r = await fetch("/api/data?" + Math.random()); await r.text(); return performance.now() - t0; })()`})
	ms, err := strconv.ParseFloat(got, 64)
	if err != nil {
		t.Fatalf("fetch timing = %s", got)
	}
	return ms
}

// testNetworkSessionWide: routes and network conditions hold for the whole
// session: for tabs opened after them, for popups, and for tabs that were
// open before.
func (h *harness) testNetworkSessionWide(t *testing.T) {
	s := h.open(t, "/net.html")
	api := `get("/api/data?" + Math.random()).then(r => r.body)`
	addRoute(t, s, engine.Route{URLPattern: "*/api/data*", Action: engine.RouteMock, Body: "mocked"}, 1)
	tabs(t, s, engine.TabsRequest{Action: "new", URL: h.site.url("/net.html")})
	if got := evaluate(t, s, engine.EvalRequest{Expression: api}); got != `"mocked"` {
		t.Errorf("a tab opened after the route: /api/data = %s", got)
	}
	evaluate(t, s, engine.EvalRequest{Expression: `window.open("/net.html") && true`})
	waitTabs(t, s, 3) // the popup becomes a tab
	tabs(t, s, engine.TabsRequest{Action: "select", Index: new(2)})
	if _, err := s.WaitForLoad(ctx(t), engine.WaitLoad, patience); err != nil {
		t.Fatal(err)
	}
	if got := evaluate(t, s, engine.EvalRequest{Expression: api}); got != `"mocked"` {
		t.Errorf("a popup: /api/data = %s", got)
	}
	if removed, remaining, err := s.RemoveRoutes(ctx(t), ""); err != nil || removed != 1 || remaining != 0 {
		t.Fatalf("RemoveRoutes = %d, %d, %v", removed, remaining, err)
	}
	tabs(t, s, engine.TabsRequest{Action: "select", Index: new(0)})
	if got := evaluate(t, s, engine.EvalRequest{Expression: api}); got == `"mocked"` {
		t.Errorf("the first tab after RemoveRoutes: /api/data = %s", got)
	}

	err := s.SetOffline(ctx(t), true)
	if !supported(t, err) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	tabs(t, s, engine.TabsRequest{Action: "new"})
	for _, i := range []int{3, 1} {
		tabs(t, s, engine.TabsRequest{Action: "select", Index: &i})
		if got := evaluate(t, s, engine.EvalRequest{Expression: "navigator.onLine"}); got != "false" {
			t.Errorf("tab %d while the session is offline: navigator.onLine = %s", i, got)
		}
	}
	if err := s.SetOffline(ctx(t), false); err != nil {
		t.Fatal(err)
	}
	if got := evaluate(t, s, engine.EvalRequest{Expression: "navigator.onLine"}); got != "true" {
		t.Errorf("back online: navigator.onLine = %s", got)
	}
}

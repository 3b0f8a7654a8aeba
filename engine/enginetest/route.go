package enginetest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
)

// eval runs a net.html helper expression and returns its JSON value decoded.
func evalAny(t *testing.T, s engine.Session, expr string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(evaluate(t, s, engine.EvalRequest{Expression: expr})), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func addRoute(t *testing.T, s engine.Session, rt engine.Route, want int) {
	t.Helper()
	n, err := s.AddRoute(ctx(t), rt)
	if err != nil {
		t.Fatalf("AddRoute(%+v): %v", rt, err)
	}
	if n != want {
		t.Fatalf("AddRoute(%+v) = %d routes, want %d", rt, n, want)
	}
}

func (h *harness) testRoutes(t *testing.T) {
	t.Run("Block", func(t *testing.T) {
		s := h.open(t, "/net.html")
		if got := evalAny(t, s, `loadImage("/pixel.png?before")`); got != "load" {
			t.Fatalf("image before blocking: %v", got)
		}
		addRoute(t, s, engine.Route{ResourceType: "image", Action: engine.RouteBlock}, 1)
		if got := evalAny(t, s, `loadImage("/pixel.png?blocked")`); got != "error" {
			t.Fatalf("blocked image: %v", got)
		}
		if got := evalAny(t, s, `loadScript("/net.js?a")`); got != "load" {
			t.Fatalf("a script while images are blocked: %v", got)
		}
		addRoute(t, s, engine.Route{URLPattern: "*/net.js?b", Action: engine.RouteBlock}, 2)
		if got := evalAny(t, s, `loadScript("/net.js?b")`); got != "error" {
			t.Fatalf("script blocked by pattern: %v", got)
		}
		addRoute(t, s, engine.Route{ResourceType: "xhr", URLPattern: "*/api/*", Action: engine.RouteBlock}, 3)
		if got := evalAny(t, s, `xhr("/api/data")`); got != "error" {
			t.Fatalf("xhr blocked by type and pattern: %v", got)
		}
		if got := evalAny(t, s, `loadScript("/net.js?api/")`); got != "load" {
			t.Fatalf("a script matching the xhr route's pattern: %v", got)
		}
		failed, err := s.RequestLog(ctx(t), engine.RequestLogQuery{FailedOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(failed.Requests) != 3 {
			t.Fatalf("want 3 failed requests, got %+v", failed.Requests)
		}
		for _, r := range failed.Requests {
			if r.Route != "blocked" || r.Error == "" || r.State != "failed" {
				t.Errorf("blocked request logged as %+v", r)
			}
		}
		if failed.Requests[0].ResourceType != "image" || failed.Requests[1].ResourceType != "script" {
			t.Errorf("blocked requests' types: %+v", failed.Requests)
		}
		for _, bad := range []engine.Route{
			{Action: engine.RouteBlock},
			{URLPattern: "api/data", Action: engine.RouteBlock},
			{ResourceType: "pictures", Action: engine.RouteBlock},
		} {
			_, err := s.AddRoute(ctx(t), bad)
			wantError(t, err, engine.InvalidParameters, nil)
		}
		removed, remaining, err := s.RemoveRoutes(ctx(t), "")
		if err != nil || removed != 3 || remaining != 0 {
			t.Fatalf("RemoveRoutes() = %d, %d, %v; want 3, 0", removed, remaining, err)
		}
		if got := evalAny(t, s, `loadImage("/pixel.png?after")`); got != "load" {
			t.Fatalf("image after unroute: %v", got)
		}
	})
	t.Run("Mock", func(t *testing.T) {
		s := h.open(t, "/net.html")
		addRoute(t, s, engine.Route{URLPattern: "*/api/data", Action: engine.RouteMock, Status: 201,
			Headers: map[string]string{"X-Mock": "yes"}, Body: `{"source":"mock"}`}, 1)
		got := evalAny(t, s, `get("/api/data")`).(map[string]any)
		if got["status"] != 201.0 || got["mock"] != "yes" || got["body"] != `{"source":"mock"}` || got["type"] != "application/json" {
			t.Fatalf("mocked fetch: %v", got)
		}
		// The pattern matches the whole URL: a query string is not covered.
		if got := evalAny(t, s, `get("/api/data?x=1")`).(map[string]any); !strings.Contains(got["body"].(string), "server") {
			t.Fatalf("unmatched URL: %v", got)
		}
		// The newest matching route wins.
		addRoute(t, s, engine.Route{URLPattern: "*/api/*", Action: engine.RouteMock, Body: "plain", Headers: map[string]string{"Content-Type": "text/x-test"}}, 2)
		if got := evalAny(t, s, `get("/api/data")`).(map[string]any); got["body"] != "plain" || got["type"] != "text/x-test" || got["status"] != 200.0 {
			t.Fatalf("newer route: %v", got)
		}
		log, err := s.RequestLog(ctx(t), engine.RequestLogQuery{Filter: "/api/data"})
		if err != nil {
			t.Fatal(err)
		}
		if last := log.Requests[len(log.Requests)-1]; last.Route != "mocked" || last.Status != 200 || last.State != "finished" {
			t.Fatalf("mocked request in the log: %+v", last)
		}
		if removed, remaining, err := s.RemoveRoutes(ctx(t), "*/api/*"); err != nil || removed != 1 || remaining != 1 {
			t.Fatalf("RemoveRoutes(*/api/*) = %d, %d, %v", removed, remaining, err)
		}
		if got := evalAny(t, s, `get("/api/data")`).(map[string]any); got["status"] != 201.0 {
			t.Fatalf("after removing the newer route: %v", got)
		}
		if _, _, err := s.RemoveRoutes(ctx(t), "*/api/data"); err != nil {
			t.Fatal(err)
		}
		if got := evalAny(t, s, `get("/api/data", {method: "POST"})`).(map[string]any); got["body"] != `{"source":"server","method":"POST"}` {
			t.Fatalf("real response after unroute: %v", got)
		}
		if removed, _, err := s.RemoveRoutes(ctx(t), ""); err != nil || removed != 0 {
			t.Fatalf("RemoveRoutes with nothing left = %d, %v", removed, err)
		}
		// ? is a literal character in route globs, as in URLs.
		addRoute(t, s, engine.Route{URLPattern: "*/api/data?q", Action: engine.RouteMock, Body: "query"}, 1)
		if got := evalAny(t, s, `get("/api/data?q")`).(map[string]any); got["body"] != "query" {
			t.Fatalf("pattern with ?: %v", got)
		}
	})
}

package tools_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
)

// eval runs a script in the page through the evaluate tool and returns its
// result.
func (e *env) eval(id, script string) any {
	e.t.Helper()
	return e.ok("evaluate", map[string]any{"sessionId": id, "script": script})["result"]
}

// requests returns get_request_log's entries for args.
func (e *env) requests(id string, args map[string]any) []map[string]any {
	e.t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	args["sessionId"] = id
	var out []map[string]any
	for _, r := range e.ok("get_request_log", args)["requests"].([]any) {
		out = append(out, r.(map[string]any))
	}
	return out
}

func TestBlockResourceByTypeAndPattern(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/net.html")
	if got := e.eval(id, `loadImage("/pixel.png?before")`); got != "load" {
		t.Fatalf("image before blocking: %v", got)
	}
	if out := e.ok("block_resource", map[string]any{"sessionId": id, "resourceType": "image"}); out["routes"].(float64) != 1 {
		t.Fatalf("block_resource: %v", out)
	}
	if got := e.eval(id, `loadImage("/pixel.png?blocked")`); got != "error" {
		t.Fatalf("blocked image: %v", got)
	}
	if got := e.eval(id, `loadScript("/net.js?a")`); got != "load" {
		t.Fatalf("a script while images are blocked: %v", got)
	}
	e.ok("block_resource", map[string]any{"sessionId": id, "urlPattern": "*/net.js?b"})
	if got := e.eval(id, `loadScript("/net.js?b")`); got != "error" {
		t.Fatalf("script blocked by pattern: %v", got)
	}
	e.ok("block_resource", map[string]any{"sessionId": id, "resourceType": "xhr", "urlPattern": "*/api/*"})
	if got := e.eval(id, `xhr("/api/data")`); got != "error" {
		t.Fatalf("xhr blocked by type and pattern: %v", got)
	}
	// Chromium's interception does not tell fetch() from XHR: the route
	// covers both, and only them.
	if got := e.eval(id, `get("/api/data")`).(map[string]any); got["error"] == nil {
		t.Fatalf("fetch while xhr is blocked: %v", got)
	}
	if got := e.eval(id, `loadScript("/net.js?api/")`); got != "load" {
		t.Fatalf("a script matching the xhr route's pattern: %v", got)
	}

	failed := e.requests(id, map[string]any{"failed": true})
	if len(failed) != 4 {
		t.Fatalf("want 4 failed requests, got %v", failed)
	}
	for _, r := range failed {
		if r["route"] != "blocked" || !strings.HasPrefix(r["error"].(string), "net::ERR_BLOCKED_BY_CLIENT") || r["state"] != "failed" {
			t.Errorf("blocked request logged as %v", r)
		}
	}
	if failed[0]["resourceType"] != "image" || failed[1]["resourceType"] != "script" || failed[2]["resourceType"] != "xhr" || failed[3]["resourceType"] != "fetch" {
		t.Errorf("blocked requests' types: %v", failed)
	}

	for _, bad := range []map[string]any{
		{},
		{"urlPattern": "api/data"},
		{"resourceType": "pictures"},
		{"resourceType": "image", "urlPattern": "* /x"},
	} {
		bad["sessionId"] = id
		e.fail(engine.InvalidParameters, "block_resource", bad)
	}
	e.fail(engine.Unsupported, "block_resource", map[string]any{"sessionId": id, "resourceType": "websocket"})
	if out := e.ok("unroute", map[string]any{"sessionId": id}); out["removed"].(float64) != 3 || out["remaining"].(float64) != 0 {
		t.Fatalf("unroute all: %v", out)
	}
	if got := e.eval(id, `loadImage("/pixel.png?after")`); got != "load" {
		t.Fatalf("image after unroute: %v", got)
	}
}

func TestMockResponseAndUnroute(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/net.html")
	e.ok("mock_response", map[string]any{"sessionId": id, "urlPattern": "*/api/data", "status": 201,
		"headers": map[string]any{"X-Mock": "yes"}, "body": `{"source":"mock"}`})
	got := e.eval(id, `get("/api/data")`).(map[string]any)
	if got["status"].(float64) != 201 || got["mock"] != "yes" || got["body"] != `{"source":"mock"}` || got["type"] != "application/json" {
		t.Fatalf("mocked fetch: %v", got)
	}
	// The pattern matches the whole URL: a query string is not covered.
	if got := e.eval(id, `get("/api/data?x=1")`).(map[string]any); !strings.Contains(got["body"].(string), "server") {
		t.Fatalf("unmatched URL: %v", got)
	}
	// The newest matching route wins.
	e.ok("mock_response", map[string]any{"sessionId": id, "urlPattern": "*/api/*", "body": "plain", "headers": map[string]any{"Content-Type": "text/x-test"}})
	if got := e.eval(id, `get("/api/data")`).(map[string]any); got["body"] != "plain" || got["type"] != "text/x-test" || got["status"].(float64) != 200 {
		t.Fatalf("newer route: %v", got)
	}
	log := e.requests(id, map[string]any{"filter": "/api/data"})
	if last := log[len(log)-1]; last["route"] != "mocked" || last["status"].(float64) != 200 || last["state"] != "finished" {
		t.Fatalf("mocked request in the log: %v", last)
	}
	if out := e.ok("unroute", map[string]any{"sessionId": id, "urlPattern": "*/api/*"}); out["removed"].(float64) != 1 || out["remaining"].(float64) != 1 {
		t.Fatalf("unroute one: %v", out)
	}
	if got := e.eval(id, `get("/api/data")`).(map[string]any); got["status"].(float64) != 201 {
		t.Fatalf("after removing the newer route: %v", got)
	}
	e.ok("unroute", map[string]any{"sessionId": id, "urlPattern": "*/api/data"})
	if got := e.eval(id, `get("/api/data", {method: "POST"})`).(map[string]any); got["body"] != `{"source":"server","method":"POST"}` {
		t.Fatalf("real response after unroute: %v", got)
	}
	if out := e.ok("unroute", map[string]any{"sessionId": id}); out["removed"].(float64) != 0 {
		t.Fatalf("unroute with nothing left: %v", out)
	}
	// ? is a literal character in our globs, as in URLs.
	e.ok("mock_response", map[string]any{"sessionId": id, "urlPattern": "*/api/data?q", "body": "query"})
	if got := e.eval(id, `get("/api/data?q")`).(map[string]any); got["body"] != "query" {
		t.Fatalf("pattern with ?: %v", got)
	}
	e.ok("unroute", map[string]any{"sessionId": id})
	e.fail(engine.InvalidParameters, "mock_response", map[string]any{"sessionId": id, "urlPattern": "*", "status": 42})
	e.fail(engine.InvalidParameters, "mock_response", map[string]any{"sessionId": id, "urlPattern": "*", "headers": map[string]any{"Bad Name": "x"}})
	e.fail(engine.InvalidParameters, "mock_response", map[string]any{"sessionId": id})
}

// TestUnrouteStrandsNoRequest removes routes while a burst of matching
// requests is paused or about to be, and checks every one settles.
func TestUnrouteStrandsNoRequest(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/net.html")
	for round, route := range []map[string]any{
		{"tool": "mock_response", "urlPattern": "*/api/data*", "body": "mocked"},
		{"tool": "block_resource", "urlPattern": "*/api/data*"},
		{"tool": "block_resource", "resourceType": "fetch"},
	} {
		tool := route["tool"].(string)
		delete(route, "tool")
		route["sessionId"] = id
		e.ok(tool, route)
		e.eval(id, fmt.Sprintf(`window.burst = Array.from({length: 200}, (_, i) => fetch("/api/data?r=%d&i=" + i).catch(() => null)); 0`, round))
		e.ok("unroute", map[string]any{"sessionId": id})
		got := e.eval(id, `settleAll(window.burst, 15000)`).(map[string]any)
		if got["pending"].(float64) != 0 {
			t.Fatalf("round %d (%s): %v requests still pending after unroute", round, tool, got["pending"])
		}
		if got := e.eval(id, `get("/api/data")`).(map[string]any); got["status"].(float64) != 200 || !strings.Contains(got["body"].(string), "server") {
			t.Fatalf("round %d: the network after unroute: %v", round, got)
		}
	}
}

func TestCloseSessionWithActiveRoutes(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/net.html")
	e.ok("mock_response", map[string]any{"sessionId": id, "urlPattern": "*/api/*", "body": "x"})
	e.ok("block_resource", map[string]any{"sessionId": id, "resourceType": "image"})
	e.eval(id, `window.burst = Array.from({length: 100}, (_, i) => fetch("/api/data?i=" + i)); 0`)
	e.ok("close_session", map[string]any{"sessionId": id})
	// The browser and the site serve a new session as before.
	id2 := e.open("/net.html")
	if got := e.eval(id2, `get("/api/data")`).(map[string]any); got["status"].(float64) != 200 || !strings.Contains(got["body"].(string), "server") {
		t.Fatalf("a new session after closing one with routes: %v", got)
	}
	if got := e.eval(id2, `loadImage("/pixel.png")`); got != "load" {
		t.Fatalf("images in the new session: %v", got)
	}
}

func TestOfflineAndBack(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/net.html")
	e.ok("set_offline", map[string]any{"sessionId": id, "offline": true})
	if got := e.eval(id, `get("/api/data?offline")`).(map[string]any); got["error"] == nil {
		t.Fatalf("fetch while offline: %v", got)
	}
	if got := e.eval(id, `navigator.onLine`); got != false {
		t.Fatalf("navigator.onLine while offline: %v", got)
	}
	r := e.requests(id, map[string]any{"filter": "offline"})
	if len(r) != 1 || r[0]["error"] != "net::ERR_INTERNET_DISCONNECTED" {
		t.Fatalf("offline request in the log: %v", r)
	}
	e.ok("set_offline", map[string]any{"sessionId": id, "offline": false})
	if got := e.eval(id, `get("/api/data?online")`).(map[string]any); got["status"].(float64) != 200 {
		t.Fatalf("fetch back online: %v", got)
	}
	if got := e.eval(id, `navigator.onLine`); got != true {
		t.Fatalf("navigator.onLine back online: %v", got)
	}
	e.fail(engine.InvalidParameters, "set_offline", map[string]any{"sessionId": id})
}

func TestThrottling(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/net.html")
	out := e.ok("set_throttling", map[string]any{"sessionId": id, "preset": "fast3g"})
	if out["throttled"] != true || out["downloadKbps"].(float64) != 1440 {
		t.Fatalf("set_throttling fast3g: %v", out)
	}
	if got := e.eval(id, `get("/api/data?slow")`).(map[string]any); got["status"].(float64) != 200 {
		t.Fatalf("throttled fetch: %v", got)
	}
	if r := e.requests(id, map[string]any{"filter": "slow"}); len(r) != 1 || r[0]["throttled"] != true || r[0]["state"] != "finished" {
		t.Fatalf("throttled request in the log: %v", r)
	}
	e.ok("set_throttling", map[string]any{"sessionId": id, "downloadKbps": 5000, "uploadKbps": 1000, "latencyMs": 20})
	if got := e.eval(id, `get("/api/data?custom")`).(map[string]any); got["status"].(float64) != 200 {
		t.Fatalf("custom throttling: %v", got)
	}
	if r := e.requests(id, map[string]any{"filter": "custom"}); r[0]["throttled"] != true {
		t.Fatalf("custom throttled request: %v", r)
	}
	if out := e.ok("set_throttling", map[string]any{"sessionId": id, "preset": "none"}); out["throttled"] != false {
		t.Fatalf("preset none: %v", out)
	}
	e.eval(id, `get("/api/data?fast")`)
	if r := e.requests(id, map[string]any{"filter": "fast"}); r[0]["throttled"] == true {
		t.Fatalf("request after throttling is off: %v", r)
	}
	e.fail(engine.InvalidParameters, "set_throttling", map[string]any{"sessionId": id, "preset": "5g"})
	e.fail(engine.InvalidParameters, "set_throttling", map[string]any{"sessionId": id, "preset": "slow3g", "latencyMs": 5})
	e.fail(engine.InvalidParameters, "set_throttling", map[string]any{"sessionId": id, "downloadKbps": -1})
}

func TestRequestLog(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/net.html")
	e.eval(id, `Promise.all([get("/api/data?one"), get("/api/data?two", {method: "POST"}), get("/status?code=404"), loadImage("/pixel.png")])`)
	all := e.requests(id, map[string]any{"limit": 100})
	if all[0]["resourceType"] != "document" || all[0]["status"].(float64) != 200 || all[0]["method"] != "GET" ||
		all[0]["url"] != site.URL+"/net.html" || all[0]["startedAt"].(float64) <= 0 {
		t.Fatalf("first entry is not the document: %v", all[0])
	}
	byURL := map[string]map[string]any{}
	for _, r := range all {
		byURL[strings.TrimPrefix(r["url"].(string), site.URL)] = r
	}
	if r := byURL["/api/data?two"]; r["method"] != "POST" || r["resourceType"] != "fetch" || r["mimeType"] != "application/json" || r["state"] != "finished" {
		t.Fatalf("POST entry: %v", r)
	}
	if r := byURL["/status?code=404"]; r["status"].(float64) != 404 || r["state"] != "finished" {
		t.Fatalf("404 entry: %v", r)
	}
	if r := byURL["/pixel.png"]; r["resourceType"] != "image" || r["bytes"].(float64) <= 0 {
		t.Fatalf("image entry: %v", r)
	}
	out := e.ok("get_request_log", map[string]any{"sessionId": id, "filter": "API/DATA", "limit": 1})
	reqs := out["requests"].([]any)
	if out["total"].(float64) != 2 || len(reqs) != 1 || !strings.HasSuffix(reqs[0].(map[string]any)["url"].(string), "?two") {
		t.Fatalf("filter with limit keeps the newest: %v", out)
	}
	if r := e.requests(id, map[string]any{"resourceType": "image"}); len(r) != 1 {
		t.Fatalf("resourceType filter: %v", r)
	}
	if r := e.requests(id, map[string]any{"filter": "nothing-like-this"}); len(r) != 0 {
		t.Fatalf("filter with no match: %v", r)
	}
	e.fail(engine.InvalidParameters, "get_request_log", map[string]any{"sessionId": id, "resourceType": "pictures"})
	e.fail(engine.InvalidParameters, "get_request_log", map[string]any{"sessionId": id, "limit": -1})

	// A redirect ends one entry with its status and starts the next.
	e.eval(id, `get("/redirect?to=/api/data?redirected")`)
	r := e.requests(id, map[string]any{"filter": "redirect"})
	if len(r) != 2 || r[0]["status"].(float64) != 302 || r[1]["status"].(float64) != 200 {
		t.Fatalf("redirect entries: %v", r)
	}
}

// BenchmarkFetch measures one fetch() in the page through evaluate, with no
// route, with a route for another resource type (Chromium pauses nothing),
// and answered by mock_response (paused, answered by our worker).
func BenchmarkFetch(b *testing.B) {
	for _, c := range []struct {
		name  string
		route map[string]any
		tool  string
	}{
		{"direct", nil, ""},
		{"other-route", map[string]any{"resourceType": "image"}, "block_resource"},
		{"mocked", map[string]any{"urlPattern": "*/api/data", "body": `{"source":"mock"}`}, "mock_response"},
	} {
		b.Run(c.name, func(b *testing.B) {
			e := newEnv(b, sessions.Config{})
			id := e.open("/net.html")
			if c.route != nil {
				c.route["sessionId"] = id
				e.ok(c.tool, c.route)
			}
			for b.Loop() {
				e.ok("evaluate", map[string]any{"sessionId": id, "script": `get("/api/data")`})
			}
		})
	}
}

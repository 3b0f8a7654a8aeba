package tools_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
)

// TestUnknownArgumentsAreRefused: an argument a tool does not take is never
// dropped. It is INVALID_PARAMETERS naming it, listing the valid ones, with
// the nearest when it looks like a typo; nothing runs.
func TestUnknownArgumentsAreRefused(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/form.html")
	body := e.fail(engine.InvalidParameters, "click", map[string]any{"sessionId": id, "selector": "#count", "bogus": 1})
	d := body["details"].(map[string]any)
	if d["field"] != "bogus" || !strings.Contains(body["message"].(string), `unknown parameter "bogus"`) {
		t.Fatalf("unknown argument: %v", body)
	}
	valid, _ := d["validParameters"].([]any)
	if !slices.Contains(valid, any("selector")) || !slices.Contains(valid, any("button")) {
		t.Fatalf("valid parameters listed: %v", valid)
	}
	if got := e.title(id); got != "Sign in" {
		t.Fatalf("the refused click ran: title %q", got)
	}
	body = e.fail(engine.InvalidParameters, "click", map[string]any{"sessionId": id, "selctor": "#count"})
	if body["details"].(map[string]any)["didYouMean"] != "selector" || !strings.Contains(body["message"].(string), `did you mean "selector"?`) {
		t.Fatalf("typo: %v", body)
	}
	body = e.fail(engine.InvalidParameters, "list_sessions", map[string]any{"all": true})
	if !strings.Contains(body["message"].(string), "takes no parameters") {
		t.Fatalf("a tool without parameters: %v", body)
	}
	// An error quotes at most a short prefix of what it was sent.
	long := strings.Repeat("x", 10_000)
	body = e.fail(engine.InvalidParameters, "get_text", map[string]any{"sessionId": id, "selector": "h1", long: 1})
	if len(body["message"].(string)) > 400 {
		t.Fatalf("the error echoes a 10k argument name: %d bytes", len(body["message"].(string)))
	}
}

// TestSeedAliases: the argument names of the user's seed documents work as
// aliases of ours, with the same effect.
func TestSeedAliases(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/catalog.html")
	if out := e.ok("get_attribute", map[string]any{"sessionId": id, "selector": "#name", "attribute": "type"}); out["value"] != "text" {
		t.Fatalf("get_attribute {attribute}: %v", out)
	}
	e.fail(engine.InvalidParameters, "get_attribute", map[string]any{"sessionId": id, "selector": "#name", "attribute": "type", "name": "id"})
	e.ok("select", map[string]any{"sessionId": id, "selector": "#color", "value": "g"})
	if v := e.ok("get_value", map[string]any{"sessionId": id, "selector": "#color"})["value"]; v != "g" {
		t.Fatalf("select {value} selected %v", v)
	}

	n := e.open("/net.html")
	e.ok("mock_response", map[string]any{"sessionId": n, "url": "*/api/data*", "response": map[string]any{"status": 201, "body": map[string]any{"mocked": true}}})
	got := e.eval(n, `get("/api/data?alias")`).(map[string]any)
	if got["status"].(float64) != 201 || !strings.Contains(got["body"].(string), `"mocked":true`) {
		t.Fatalf("mock_response {url, response}: %v", got)
	}
	e.fail(engine.InvalidParameters, "mock_response", map[string]any{"sessionId": n, "url": "*/x", "response": map[string]any{"code": 1}})

	out := e.ok("set_throttling", map[string]any{"sessionId": n, "downloadSpeed": 250_000, "uploadSpeed": 125_000, "latency": 40})
	if out["throttled"] != true || out["downloadKbps"].(float64) != 2000 || out["uploadKbps"].(float64) != 1000 || out["latencyMs"].(float64) != 40 {
		t.Fatalf("set_throttling {downloadSpeed, uploadSpeed, latency}: %v", out)
	}
	e.ok("set_throttling", map[string]any{"sessionId": n, "preset": "none"})
}

// TestElementToolsTakeATimeout: an element tool waits for its element as
// long as its timeout says, not a fixed time.
func TestElementToolsTakeATimeout(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/form.html")
	// The element appears after 1 s: a 100 ms wait fails, a 20 s one finds it.
	e.eval(id, `setTimeout(() => document.body.insertAdjacentHTML("beforeend", "<p id=late>late text</p>"), 1000); true`)
	body := e.fail(engine.ElementNotFound, "get_text", map[string]any{"sessionId": id, "selector": "#late", "timeout": 100})
	if !strings.Contains(body["message"].(string), "waited 100 ms") {
		t.Fatalf("get_text {timeout:100}: %v", body)
	}
	if out := e.ok("get_text", map[string]any{"sessionId": id, "selector": "#late", "timeout": 20_000}); out["text"] != "late text" {
		t.Fatalf("get_text {timeout:20000}: %v", out)
	}
	e.fail(engine.InvalidParameters, "find_element", map[string]any{"sessionId": id, "selector": "#late", "timeout": -1})
}

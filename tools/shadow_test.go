package tools_test

import (
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
)

// TestShadowDOM drives elements inside open shadow roots through the MCP
// client (testdata/site/shadow.html): type, fill and press by the ref a
// snapshot shows and by a selector that pierces the shadow root, with the
// field's value read back after each.
func TestShadowDOM(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/shadow.html")
	s := e.snap(id, nil)
	search := ref(t, s, "textbox", "Search")
	value := func(args map[string]any) any {
		t.Helper()
		args["sessionId"] = id
		return e.ok("get_value", args)["value"]
	}

	// type by ref: it used to fail after 5 s with "cannot take focus".
	e.ok("type", map[string]any{"sessionId": id, "ref": search, "text": "ada"})
	if got := value(map[string]any{"ref": search}); got != "ada" {
		t.Fatalf("value after type by ref = %v", got)
	}
	e.ok("press", map[string]any{"sessionId": id, "ref": search, "key": "Enter"})
	if got := e.title(id); got != "entered ada" {
		t.Fatalf("title after press Enter by ref = %q", got)
	}

	// The same field by a selector that pierces the shadow root.
	e.ok("fill", map[string]any{"sessionId": id, "selector": "my-widget input", "value": "bob"})
	if got := value(map[string]any{"selector": "my-widget input"}); got != "bob" {
		t.Fatalf("value after fill by selector = %v", got)
	}
	e.ok("type", map[string]any{"sessionId": id, "selector": "my-widget input", "text": "!"})
	e.ok("click", map[string]any{"sessionId": id, "selector": "my-widget #go"})
	if got := e.title(id); got != "searched bob!" {
		t.Fatalf("title after type and click by selector = %q", got)
	}
	// A forced click says who received it: here its target.
	if out := e.ok("click", map[string]any{"sessionId": id, "selector": "my-widget #go", "force": true}); out["receivedBy"] != "button#go" {
		t.Fatalf("forced click on my-widget #go = %v, want receivedBy button#go", out)
	}

	// Two shadow roots deep.
	if out := e.ok("get_text", map[string]any{"sessionId": id, "selector": "outer-box .msg"}); out["text"] != "Deep hello" {
		t.Fatalf("get_text outer-box .msg = %v", out)
	}
	if out := e.ok("find_element", map[string]any{"sessionId": id, "selector": "inner-card input"}); !strings.Contains(strings.ToLower(out["tag"].(string)), "input") {
		t.Fatalf("find_element inner-card input = %v", out)
	}
	e.fail(engine.ElementNotFound, "get_text", map[string]any{"sessionId": id, "selector": "closed-box span", "timeout": 100})
}

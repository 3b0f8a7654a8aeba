package tools_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/internal/sessions"
)

// TestActionsSettle drives the page work that actions set off through the
// MCP client: what the agent reads right after an action is the page the
// action left, on pages whose handlers finish their work later (a timer, a
// debounce, a scroll handler's fetch).
func TestActionsSettle(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/settle.html")
	e.ok("click", map[string]any{"sessionId": id, "selector": "#next"})
	if out := e.ok("get_text", map[string]any{"sessionId": id, "selector": "#step2"}); !strings.Contains(fmt.Sprint(out["text"]), "Enter your details.") {
		t.Errorf("get_text #step2 right after the click = %v, want step 2 shown", out)
	}
	e.ok("fill", map[string]any{"sessionId": id, "selector": "#search", "value": "ada"})
	if out := e.ok("get_text", map[string]any{"sessionId": id, "selector": "#results"}); out["text"] != "results for ada" {
		t.Errorf("get_text #results right after fill = %v, want the debounced results", out)
	}

	id = e.open("/infinite.html")
	e.ok("scroll", map[string]any{"sessionId": id, "y": 100000})
	if got := e.title(id); got != "items 40" {
		t.Errorf("title right after scrolling to the bottom = %q, want \"items 40\"", got)
	}
}

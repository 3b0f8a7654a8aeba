package tools_test

import (
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
)

// TestFormActionsReport drives the form tools through the MCP client on
// pages whose change handlers leave the page: their results name what the
// action caused, as click's do (issue 24).
func TestFormActionsReport(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/actions.html")
	// A language picker whose onchange loads another page.
	out := e.ok("select", map[string]any{"sessionId": id, "selector": "#lang", "values": []any{"Français"}})
	if url, _ := out["url"].(string); !strings.HasSuffix(url, "/welcome.html?user=fr") || out["title"] != "Welcome" ||
		!strings.Contains(out["message"].(string), "navigated to") {
		t.Fatalf("select whose onchange navigates = %v, want the new page's url and title", out)
	}
	if sel := out["selected"].([]any); len(sel) != 1 || sel[0].(map[string]any)["value"] != "fr" {
		t.Fatalf("selected = %v", out["selected"])
	}
	if got := e.title(id); got != "Welcome" {
		t.Fatalf("the session is on %q after the select", got)
	}

	// A checkbox whose change handler opens a tab.
	id = e.open("/actions.html")
	out = e.ok("check", map[string]any{"sessionId": id, "selector": "#popup"})
	tabs, _ := out["newTabs"].([]any)
	if len(tabs) != 1 || tabs[0].(map[string]any)["index"] != float64(1) || out["url"] != nil {
		t.Fatalf("check that opens a tab = %v, want newTabs [1] and no navigation", out)
	}
	// An action that causes nothing beyond its page says nothing more.
	out = e.ok("fill", map[string]any{"sessionId": id, "selector": "#name", "value": "Ada"})
	for _, k := range []string{"url", "title", "newTabs", "downloads", "dialog"} {
		if _, ok := out[k]; ok {
			t.Errorf("fill reports %s: %v", k, out)
		}
	}
	if out["success"] != true || e.title(id) != "name=Ada" {
		t.Fatalf("fill = %v, title %q", out, e.title(id))
	}
	out = e.ok("scroll", map[string]any{"sessionId": id, "y": 300})
	if out["scrollY"] != float64(300) || out["url"] != nil {
		t.Fatalf("scroll = %v", out)
	}
	if b := e.fail(engine.ElementNotEditable, "fill", map[string]any{"sessionId": id, "selector": "#off", "value": "x"}); b["details"].(map[string]any)["reason"] != "disabled" {
		t.Fatalf("fill disabled: %v", b)
	}
	e.fail(engine.ElementNotFound, "select", map[string]any{"sessionId": id, "selector": "#missing", "values": []any{"x"}, "timeout": 200})
}

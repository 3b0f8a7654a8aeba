package tools_test

import (
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
)

func TestTabs(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/tabs.html")
	tabsOf := func(out map[string]any) []any { return out["tabs"].([]any) }
	if out := e.ok("tabs", map[string]any{"sessionId": id, "action": "list"}); len(tabsOf(out)) != 1 || out["current"].(float64) != 0 {
		t.Fatalf("one tab: %v", out)
	}
	// A target=_blank link and window.open become tabs of the session.
	e.ok("click", map[string]any{"sessionId": id, "selector": "#blank"})
	e.ok("click", map[string]any{"sessionId": id, "selector": "#popup"})
	out := e.ok("tabs", map[string]any{"sessionId": id, "action": "list"})
	if len(tabsOf(out)) != 3 || out["current"].(float64) != 0 {
		t.Fatalf("popups not adopted: %v", out)
	}
	// Select the window.open tab and act in it.
	var popup int
	for _, tb := range tabsOf(out) {
		if strings.HasSuffix(tb.(map[string]any)["url"].(string), "/form.html") {
			popup = int(tb.(map[string]any)["index"].(float64))
		}
	}
	e.ok("tabs", map[string]any{"sessionId": id, "action": "select", "index": popup})
	e.ok("type", map[string]any{"sessionId": id, "selector": "#user", "text": "in popup"})
	if got := e.title(id); got != "user=in popup" {
		t.Fatalf("tools did not act on the selected tab: %q", got)
	}
	// A new tab opens at a URL and becomes current; it shares the session's cookies.
	e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/storage.html?set=tabbed"})
	out = e.ok("tabs", map[string]any{"sessionId": id, "action": "new", "url": site.URL + "/storage.html"})
	if len(tabsOf(out)) != 4 || out["current"].(float64) != 3 {
		t.Fatalf("new tab: %v", out)
	}
	if got := e.title(id); !strings.Contains(got, `"local":"tabbed"`) {
		t.Fatalf("the new tab does not share the session's storage: %q", got)
	}
	// Close the current tab, then the first one; the session goes on.
	out = e.ok("tabs", map[string]any{"sessionId": id, "action": "close"})
	if len(tabsOf(out)) != 3 {
		t.Fatalf("close current: %v", out)
	}
	out = e.ok("tabs", map[string]any{"sessionId": id, "action": "close", "index": 0})
	if len(tabsOf(out)) != 2 {
		t.Fatalf("close first: %v", out)
	}
	e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
	e.fail(engine.InvalidParameters, "tabs", map[string]any{"sessionId": id, "action": "select", "index": 9})
	e.fail(engine.InvalidParameters, "tabs", map[string]any{"sessionId": id, "action": "select"})
	e.fail(engine.InvalidParameters, "tabs", map[string]any{"sessionId": id, "action": "juggle"})
	e.ok("tabs", map[string]any{"sessionId": id, "action": "close"})
	e.fail(engine.InvalidParameters, "tabs", map[string]any{"sessionId": id, "action": "close"})
	// Another session never sees these tabs.
	other := e.session()
	if out := e.ok("tabs", map[string]any{"sessionId": other, "action": "list"}); len(tabsOf(out)) != 1 {
		t.Fatalf("tabs leaked across sessions: %v", out)
	}
	// Closing the session closes every tab.
	e.ok("close_session", map[string]any{"sessionId": id})
}

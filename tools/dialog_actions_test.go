package tools_test

import (
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
)

// Every action that can open a dialog returns with it instead of hanging,
// and other page tools answer DIALOG_OPEN until it is handled.
func TestDialogsNeverHangAnyAction(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/dialogs.html")
	e.ok("evaluate", map[string]any{"sessionId": id, "script": `() => {
		const f = document.createElement('input'); f.id = 'k'; f.onkeydown = () => alert('key');
		const h = document.createElement('div'); h.id = 'h'; h.textContent = 'hover'; h.onmouseenter = () => alert('hover');
		document.body.prepend(f, h); }`})
	check := func(tool string, args map[string]any, want string) {
		t.Helper()
		args["sessionId"] = id
		out := e.ok(tool, args)
		d, _ := out["dialog"].(map[string]any)
		if d == nil || d["message"] != want {
			t.Fatalf("%s did not report the dialog: %v", tool, out)
		}
		body := e.fail(engine.DialogOpen, "get_text", map[string]any{"sessionId": id, "selector": "body"})
		if body["details"].(map[string]any)["dialog"] == nil {
			t.Fatalf("DIALOG_OPEN without the dialog: %v", body)
		}
		e.ok("handle_dialog", map[string]any{"sessionId": id, "accept": true})
	}
	check("press", map[string]any{"selector": "#k", "key": "a"}, "key")
	check("hover", map[string]any{"selector": "#h"}, "hover")
	body := e.fail(engine.DialogOpen, "evaluate", map[string]any{"sessionId": id, "script": "alert('eval')"})
	if body["details"].(map[string]any)["dialog"].(map[string]any)["message"] != "eval" {
		t.Fatalf("evaluate that opens a dialog: %v", body)
	}
	e.ok("handle_dialog", map[string]any{"sessionId": id, "accept": true})
	e.ok("get_text", map[string]any{"sessionId": id, "selector": "#h"})
}

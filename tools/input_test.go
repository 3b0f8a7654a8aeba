package tools_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
)

func TestHoverPressDragUpload(t *testing.T) {
	e := newEnv(t, engine.ManagerConfig{})
	id := e.open("/input.html")
	e.ok("hover", map[string]any{"sessionId": id, "selector": "#tip"})
	if got := e.title(id); got != "hovered" {
		t.Fatalf("hover: %q", got)
	}
	e.ok("press", map[string]any{"sessionId": id, "selector": "#field", "key": "Control+ArrowDown"})
	if got := e.title(id); got != "down true" {
		t.Fatalf("press with modifier: %q", got)
	}
	// Control+A selects the field's text; typing then replaces it.
	e.ok("press", map[string]any{"sessionId": id, "selector": "#field", "key": "a", "modifiers": []any{"Control"}})
	e.ok("press", map[string]any{"sessionId": id, "key": "X"})
	if out := e.ok("get_value", map[string]any{"sessionId": id, "selector": "#field"}); out["value"] != "X" {
		t.Fatalf("Control+A then X: %v", out)
	}
	e.ok("press", map[string]any{"sessionId": id, "selector": "#area", "key": "Escape"})
	if got := e.title(id); got != "escaped" {
		t.Fatalf("Escape: %q", got)
	}
	e.fail(engine.InvalidParameters, "press", map[string]any{"sessionId": id, "key": "Hyper+Q"})
	e.fail(engine.InvalidParameters, "press", map[string]any{"sessionId": id, "key": "NoSuchKey"})

	e.ok("drag_and_drop", map[string]any{"sessionId": id, "source": "#src", "target": "#dst"})
	if got := e.title(id); got != "dropped card" {
		t.Fatalf("drag and drop: %q", got)
	}

	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	os.WriteFile(a, []byte("12345"), 0o644)
	os.WriteFile(b, []byte("1"), 0o644)
	e.ok("upload_file", map[string]any{"sessionId": id, "selector": "#one", "files": []any{a}})
	if got := e.title(id); got != "files a.txt:5" {
		t.Fatalf("upload: %q", got)
	}
	e.ok("upload_file", map[string]any{"sessionId": id, "selector": "#many", "files": []any{a, b}})
	if got := e.title(id); got != "files a.txt,b.txt" {
		t.Fatalf("multiple upload: %q", got)
	}
	body := e.fail(engine.InvalidParameters, "upload_file", map[string]any{"sessionId": id, "selector": "#one", "files": []any{filepath.Join(dir, "missing")}})
	if body["details"].(map[string]any)["field"] != "files" {
		t.Fatalf("missing file: %v", body)
	}
	e.fail(engine.InvalidParameters, "upload_file", map[string]any{"sessionId": id, "selector": "#one", "files": []any{a, b}})
	e.fail(engine.ElementNotEditable, "upload_file", map[string]any{"sessionId": id, "selector": "#field", "files": []any{a}})

	// Enter in a form field submits it and press waits for the new page.
	out := e.ok("press", map[string]any{"sessionId": id, "selector": "#q", "key": "Enter"})
	if out["navigated"] != true || e.title(id) != "Welcome" {
		t.Fatalf("Enter submit: %v", out)
	}
}

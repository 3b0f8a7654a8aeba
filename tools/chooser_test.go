package tools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
)

// TestUploadFileChooser drives a native file chooser through MCP: a click
// that opens one says so (fileChooser: true, and the message names
// upload_file), the page's other tools answer FILE_CHOOSER_OPEN while the
// session's own tools still work, and upload_file without a selector or
// ref fills the chooser (the page reads the file back), refuses what the
// chooser cannot take and paths outside the allowed directories, or
// cancels it with files: [].
func TestUploadFileChooser(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		a, b := filepath.Join(e.out, "a.txt"), filepath.Join(e.out, "b.txt")
		if err := os.MkdirAll(e.out, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(a, []byte("alpha"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(b, []byte("beta"), 0o644); err != nil {
			t.Fatal(err)
		}
		read := func(id string) any {
			t.Helper()
			return e.ok("evaluate", map[string]any{"sessionId": id, "script": "window.read"})["result"]
		}
		id := e.open("/chooser.html")
		// With no chooser open, upload_file needs its input named.
		body, isErr := e.call("upload_file", map[string]any{"sessionId": id, "files": []any{a}})
		if !isErr {
			t.Fatalf("upload_file without a target or a chooser succeeded: %v", body)
		}
		if body["errorCode"] != string(engine.InvalidParameters) || body["details"].(map[string]any)["field"] != "selector" {
			t.Fatalf("upload_file without a target or a chooser = %v, want INVALID_PARAMETERS on selector", body)
		}
		// A file input needs files; files: [] is for the chooser only.
		body = e.fail(engine.InvalidParameters, "upload_file", map[string]any{"sessionId": id, "selector": "#one", "files": []any{}})
		if body["details"].(map[string]any)["field"] != "files" {
			t.Fatalf("upload_file to an input without files: %v", body)
		}

		out := e.ok("click", map[string]any{"sessionId": id, "selector": "#one"})
		if out["fileChooser"] != true || !strings.Contains(out["message"].(string), "a file chooser opened: call upload_file") {
			t.Fatalf("click on the file input = %v, want fileChooser and the next step", out)
		}
		// The chooser blocks the page's tools, not the session's.
		body = e.fail(engine.FileChooserOpen, "snapshot", map[string]any{"sessionId": id})
		if s, _ := body["suggestion"].(string); !strings.Contains(s, "upload_file") || !strings.Contains(s, "files: []") {
			t.Fatalf("FILE_CHOOSER_OPEN's suggestion = %q, want how to answer and cancel", s)
		}
		e.fail(engine.FileChooserOpen, "click", map[string]any{"sessionId": id, "selector": "#field", "timeout": 500})
		e.fail(engine.FileChooserOpen, "upload_file", map[string]any{"sessionId": id, "selector": "#one", "files": []any{a}})
		if got := e.title(id); got != "chooser" {
			t.Fatalf("list_sessions while the chooser waits: title %q", got)
		}
		e.ok("tabs", map[string]any{"sessionId": id, "action": "list"})
		// What the chooser cannot take, and paths outside, are refused and
		// leave it waiting.
		body = e.fail(engine.InvalidParameters, "upload_file", map[string]any{"sessionId": id, "files": []any{a, b}})
		if body["details"].(map[string]any)["field"] != "files" {
			t.Fatalf("two files for a single chooser: %v", body)
		}
		elsewhere := filepath.Join(t.TempDir(), "c.txt")
		os.WriteFile(elsewhere, []byte("gamma"), 0o644)
		body = e.fail(engine.InvalidParameters, "upload_file", map[string]any{"sessionId": id, "files": []any{elsewhere}})
		if !strings.Contains(body["message"].(string), "outside") {
			t.Fatalf("a file outside the allowed directories: %v", body)
		}
		// A relative path is taken in the output directory.
		out = e.ok("upload_file", map[string]any{"sessionId": id, "files": []any{"a.txt"}})
		if !strings.Contains(out["message"].(string), "Chose 1 file") || out["fileChooser"] != nil {
			t.Fatalf("upload_file to the chooser = %v", out)
		}
		if got := read(id); got != "a.txt=alpha" {
			t.Fatalf("the page read %v, want a.txt=alpha", got)
		}
		e.fail(engine.InvalidParameters, "upload_file", map[string]any{"sessionId": id, "files": []any{a}})

		// Several files through a button's script, then a cancel.
		out = e.ok("click", map[string]any{"sessionId": id, "selector": "#pick"})
		if out["fileChooser"] != true {
			t.Fatalf("click on the button = %v, want fileChooser", out)
		}
		e.ok("upload_file", map[string]any{"sessionId": id, "files": []any{a, b}})
		if got := read(id); got != "a.txt=alpha,b.txt=beta" {
			t.Fatalf("the page read %v, want both files", got)
		}
		// A page loaded again: Firefox opens an input's chooser once per
		// page (its own picker stays open).
		e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/chooser.html"})
		if out := e.ok("click", map[string]any{"sessionId": id, "selector": "#lbl"}); out["fileChooser"] != true {
			t.Fatalf("click on the label = %v, want fileChooser", out)
		}
		out = e.ok("upload_file", map[string]any{"sessionId": id, "files": []any{}})
		if !strings.Contains(out["message"].(string), "Cancelled") {
			t.Fatalf("upload_file with no files = %v, want the chooser cancelled", out)
		}
		if got := e.ok("evaluate", map[string]any{"sessionId": id, "script": "events.at(-1)"})["result"]; got != "one:cancel" {
			t.Fatalf("the input's last event = %v, want cancel", got)
		}
		// Answered: the page is free again.
		e.ok("get_text", map[string]any{"sessionId": id, "selector": "h1"})
	})
}

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// TestFileChooserOverStdio (issue 27, item 5) drives the built binary over
// stdio: a click that opens a native file chooser, in a tab the session
// opened, answers fileChooser: true and the page's tools answer
// FILE_CHOOSER_OPEN while the session's (list_sessions, tabs) still work;
// closing that tab drops its chooser; upload_file without a target fills
// the next one (the page reads both files back); navigating away drops a
// chooser left waiting, after which upload_file without a target has
// nothing to answer; and close_session ends a session whose chooser waits.
func TestFileChooserOverStdio(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	out := t.TempDir()
	a, b := filepath.Join(out, "a.txt"), filepath.Join(out, "b.txt")
	if err := os.WriteFile(a, []byte("alpha"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte("beta"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startBinary(t, "--output-dir", out)
	id := s.ok("create_session", nil)["sessionId"].(string)
	page := site.URL + "/chooser.html"
	s.ok("navigate", map[string]any{"sessionId": id, "url": page})
	s.ok("tabs", map[string]any{"sessionId": id, "action": "new", "url": page})

	res := s.ok("click", map[string]any{"sessionId": id, "selector": "#one"})
	if res["fileChooser"] != true {
		t.Fatalf("click on the file input in a new tab = %v, want fileChooser", res)
	}
	if e := s.fail("get_text", map[string]any{"sessionId": id, "selector": "h1"}); e["errorCode"] != "FILE_CHOOSER_OPEN" {
		t.Fatalf("get_text while the chooser waits = %v, want FILE_CHOOSER_OPEN", e)
	}
	s.ok("list_sessions", nil)
	tabs := s.ok("tabs", map[string]any{"sessionId": id, "action": "list"})
	if n := len(tabs["tabs"].([]any)); n != 2 {
		t.Fatalf("tabs while the chooser waits = %v", tabs)
	}
	// The chooser goes with its tab.
	s.ok("tabs", map[string]any{"sessionId": id, "action": "close"})
	s.ok("get_text", map[string]any{"sessionId": id, "selector": "h1"})

	if res := s.ok("click", map[string]any{"sessionId": id, "selector": "#pick"}); res["fileChooser"] != true {
		t.Fatalf("click on the button = %v, want fileChooser", res)
	}
	s.ok("upload_file", map[string]any{"sessionId": id, "files": []any{"a.txt", b}})
	if got := s.ok("evaluate", map[string]any{"sessionId": id, "script": "window.read"})["result"]; got != "a.txt=alpha,b.txt=beta" {
		t.Fatalf("the page read %v, want both files", got)
	}

	s.ok("click", map[string]any{"sessionId": id, "selector": "#lbl"})
	s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
	if e := s.fail("upload_file", map[string]any{"sessionId": id, "files": []any{a}}); e["errorCode"] != "INVALID_PARAMETERS" {
		t.Fatalf("upload_file without a target after navigating away = %v, want INVALID_PARAMETERS", e)
	}

	s.ok("navigate", map[string]any{"sessionId": id, "url": page})
	s.ok("click", map[string]any{"sessionId": id, "selector": "#one"})
	s.ok("close_session", map[string]any{"sessionId": id})
}

package tools_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
)

// Every element tool takes a ref as well as a selector, through the one
// resolver, and a stale ref is never acted on.
func TestCatalogToolsTakeRefs(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/catalog.html")
	s := e.snap(id, nil)
	link := ref(t, s, "link", "Welcome")
	if out := e.ok("get_text", map[string]any{"sessionId": id, "ref": link}); out["text"] != "Welcome" {
		t.Fatalf("get_text by ref: %v", out)
	}
	if out := e.ok("get_attribute", map[string]any{"sessionId": id, "ref": link, "name": "href"}); out["value"] != "welcome.html?user=l" {
		t.Fatalf("get_attribute by ref: %v", out)
	}
	if out := e.ok("find_element", map[string]any{"sessionId": id, "ref": link}); out["tag"] != "a" {
		t.Fatalf("find_element by ref: %v", out)
	}
	name := regexp.MustCompile(`textbox \[ref=(e\d+)\]: "initial"`).FindStringSubmatch(s)[1]
	e.ok("fill", map[string]any{"sessionId": id, "ref": name, "value": "by ref"})
	if out := e.ok("get_value", map[string]any{"sessionId": id, "ref": name}); out["value"] != "by ref" {
		t.Fatalf("fill/get_value by ref: %v", out)
	}
	agree := ref(t, s, "checkbox", "Agree")
	e.ok("check", map[string]any{"sessionId": id, "ref": agree})
	if out := e.ok("get_value", map[string]any{"sessionId": id, "ref": agree}); out["checked"] != true {
		t.Fatalf("check by ref: %v", out)
	}
	combo := regexp.MustCompile(`combobox \[ref=(e\d+)\]`).FindStringSubmatch(s)[1]
	if out := e.ok("select", map[string]any{"sessionId": id, "ref": combo, "values": []any{"Blue"}}); out["selected"].([]any)[0].(map[string]any)["value"] != "b" {
		t.Fatalf("select by ref: %v", out)
	}
	e.fail(engine.InvalidParameters, "get_text", map[string]any{"sessionId": id, "ref": link, "selector": "h1"})

	// After a navigation the old refs are stale for every tool.
	e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/catalog.html"})
	for _, tool := range []string{"get_text", "find_element", "screenshot_element", "hover"} {
		body := e.fail(engine.ElementNotFound, tool, map[string]any{"sessionId": id, "ref": link})
		if body["details"].(map[string]any)["reason"] != "stale_ref" {
			t.Fatalf("%s with a stale ref: %v", tool, body)
		}
	}

	id = e.open("/input.html")
	s = e.snap(id, nil)
	dir := e.out // upload_file takes files from the output directory
	f := filepath.Join(dir, "r.txt")
	os.WriteFile(f, []byte("ref"), 0o644)
	e.ok("upload_file", map[string]any{"sessionId": id, "ref": ref(t, s, "button", "Choose File: No file chosen"), "files": []any{f}})
	if got := e.title(id); got != "files r.txt:3" {
		t.Fatalf("upload by ref: %q", got)
	}
}

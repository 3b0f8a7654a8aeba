package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// TestFindAndSnapshotFileOverStdio drives find and snapshot {file:true}
// through the built binary: find's ref of the second "Add to cart" clicks
// the second product's button, an invalid regexp is INVALID_PARAMETERS
// naming it, and the saved outline is a file in the session's directory
// under --output-dir that holds that ref.
func TestFindAndSnapshotFileOverStdio(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	out := t.TempDir()
	s := startBinary(t, "--output-dir", out)
	id := s.ok("create_session", nil)["sessionId"].(string)
	s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/find.html"})

	found := s.ok("find", map[string]any{"sessionId": id, "text": "add to cart", "role": "button"})
	matches, _ := found["matches"].([]any)
	if len(matches) != 3 {
		t.Fatalf("find: %v", found)
	}
	second := matches[1].(map[string]any)
	ref, _ := second["ref"].(string)
	if ref == "" || !strings.Contains(strings.Join(anyStrings(second["context"]), "\n"), `heading "Green mug"`) {
		t.Fatalf("the second match: %v", second)
	}
	s.ok("click", map[string]any{"sessionId": id, "ref": ref})
	for _, sess := range s.ok("list_sessions", nil)["sessions"].([]any) {
		if m := sess.(map[string]any); m["sessionId"] == id && m["title"] != "cart: Green mug" {
			t.Errorf("after clicking %s the page's title is %v", ref, m["title"])
		}
	}

	body, isErr := s.call("find", map[string]any{"sessionId": id, "regex": "(cart"})
	if d, _ := body["details"].(map[string]any); !isErr || body["errorCode"] != "INVALID_PARAMETERS" || d["field"] != "regex" {
		t.Errorf("an invalid regexp: %v", body)
	}

	saved := s.ok("snapshot", map[string]any{"sessionId": id, "file": true})
	path, _ := saved["path"].(string)
	if rel, err := filepath.Rel(filepath.Join(out, id), path); err != nil || strings.HasPrefix(rel, "..") {
		t.Fatalf("the outline was saved to %q, outside %s", path, filepath.Join(out, id))
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if saved["bytes"] != float64(len(b)) || !strings.Contains(string(b), `- button "Add to cart" [ref=`+ref+`]`) || saved["snapshot"] != nil && saved["snapshot"] != "" {
		t.Errorf("the saved outline (%d bytes):\n%s\nthe answer: %v", len(b), b, saved)
	}
}

func anyStrings(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// TestStorageToolsOverStdio drives the storage tools of --caps state on
// the built binary: the page's localStorage and sessionStorage, read and
// written as the page sees them, and its cookies deleted by name, then
// all of them.
func TestStorageToolsOverStdio(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := startBinary(t, "--caps", "state")
	s.ok("navigate", map[string]any{"url": site.URL + "/storage.html?set=ada"})

	out := s.ok("local_storage", map[string]any{"action": "get", "key": "who"})
	if out["found"] != true || out["value"] != "ada" || out["origin"] != site.URL {
		t.Fatalf("local_storage get who = %v", out)
	}
	s.ok("local_storage", map[string]any{"action": "set", "key": "k", "value": "from the tool"})
	s.ok("session_storage", map[string]any{"action": "remove", "key": "who"})
	got := s.ok("evaluate", map[string]any{"script": "localStorage.getItem('k') + '|' + sessionStorage.getItem('who')"})["result"]
	if got != "from the tool|null" {
		t.Fatalf("the page reads %v", got)
	}
	if e := s.fail("local_storage", map[string]any{"action": "set", "value": "no key"}); e["errorCode"] != "INVALID_PARAMETERS" {
		t.Fatalf("set without a key: %v", e)
	}

	s.ok("set_cookies", map[string]any{"cookies": []any{map[string]any{"name": "extra", "value": "1", "url": site.URL}}})
	out = s.ok("delete_cookies", map[string]any{"name": "who"})
	if names, _ := out["names"].([]any); out["deleted"] != 1.0 || len(names) != 1 || names[0] != "who" {
		t.Fatalf("delete_cookies who = %v", out)
	}
	if e := s.fail("delete_cookies", nil); e["errorCode"] != "INVALID_PARAMETERS" {
		t.Fatalf("delete_cookies without a filter: %v", e)
	}
	out = s.ok("delete_cookies", map[string]any{"all": true})
	if names, _ := out["names"].([]any); out["deleted"] != 1.0 || !slices.Equal(names, []any{"extra"}) {
		t.Fatalf("delete_cookies all = %v", out)
	}
	s.ok("navigate", map[string]any{"url": site.URL + "/storage.html"})
	if got := s.ok("evaluate", map[string]any{"script": "document.title"})["result"].(string); !strings.Contains(got, `"cookie":""`) {
		t.Fatalf("the page still sees cookies: %q", got)
	}
}

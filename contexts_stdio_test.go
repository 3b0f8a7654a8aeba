package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/httpservetest"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// TestContextsOverStdio drives the seed's named contexts through the built
// binary: a context with a proxy that wants a login, one started from a
// saved state file, calls without sessionId on the active context, the
// list, close, and each refusal.
func TestContextsOverStdio(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	out := t.TempDir()
	s := startBinary(t, "--caps", "state", "--output-dir", out)
	fail := func(code engine.Code, name string, args map[string]any) map[string]any {
		t.Helper()
		res, isErr := s.call(name, args)
		if !isErr || res["errorCode"] != string(code) {
			t.Fatalf("%s(%v) = %v, want %s", name, args, res, code)
		}
		return res
	}
	list := func() (string, map[string]map[string]any) {
		t.Helper()
		res := s.ok("browser_context_list", nil)
		byName := map[string]map[string]any{}
		for _, c := range res["contexts"].([]any) {
			byName[c.(map[string]any)["name"].(string)] = c.(map[string]any)
		}
		return res["active"].(string), byName
	}

	proxy := testenv.LoginProxy(t, "ada", "s3cret", "127.0.0.1:1")
	s.ok("browser_context_create", map[string]any{"name": "uk", "proxy": map[string]any{"server": proxy.String(), "username": "ada", "password": "s3cret"}})
	if got := s.ok("navigate", map[string]any{"url": "http://shop.invalid/"})["title"]; got != "via proxy shop.invalid as ada" {
		t.Fatalf("through the proxy with a login: %v", got)
	}
	active, cs := list()
	if active != "uk" || cs["uk"]["proxy"] != proxy.String() || cs["uk"]["pages"] != 1.0 || cs["uk"]["url"] != "http://shop.invalid/" {
		t.Fatalf("list: %q %v", active, cs)
	}

	// A login saved in default, then a context started from its file.
	s.ok("browser_context_switch", map[string]any{"name": "default"})
	s.ok("navigate", map[string]any{"url": site.URL + "/login?user=ada"})
	s.ok("save_state", map[string]any{"path": "ada.json"})
	if _, err := os.Stat(filepath.Join(out, "ada.json")); err != nil {
		t.Fatal(err)
	}
	s.ok("browser_context_create", map[string]any{"name": "returning", "storageState": "ada.json"})
	if got := s.ok("navigate", map[string]any{"url": site.URL + "/members"})["title"].(string); !strings.HasPrefix(got, "s-ada t-ada") {
		t.Fatalf("context from the saved state: %q", got)
	}
	s.ok("browser_context_create", map[string]any{"name": "clean"})
	if got := s.ok("navigate", map[string]any{"url": site.URL + "/members"})["title"].(string); !strings.HasPrefix(got, "anonymous") {
		t.Fatalf("a clean context is not clean: %q", got)
	}

	fail(engine.InvalidParameters, "browser_context_create", map[string]any{"name": "clean"})
	fail(engine.InvalidParameters, "browser_context_create", map[string]any{"name": "x", "storageState": "/etc/passwd"})
	fail(engine.InvalidParameters, "browser_context_create", map[string]any{"name": "x", "proxy": map[string]any{"username": "ada"}})
	fail(engine.SessionNotFound, "browser_context_switch", map[string]any{"name": "nope"})
	fail(engine.SessionNotFound, "browser_context_close", map[string]any{"name": "nope"})

	// Parallel operations (seed 004): clean's refs carry its name, and
	// one given without sessionId acts in clean while default is active;
	// an unnamed session's refs stay plain.
	s.ok("navigate", map[string]any{"url": site.URL + "/form.html"})
	count := testenv.RefOf(t, s.ok("snapshot", nil)["snapshot"].(string), "button", "Count")
	if !strings.HasPrefix(count, "clean:e") {
		t.Fatalf("clean's ref %q", count)
	}
	s.ok("browser_context_switch", map[string]any{"name": "default"})
	plain := s.ok("create_session", nil)["sessionId"]
	s.ok("navigate", map[string]any{"sessionId": plain, "url": site.URL + "/form.html"})
	if r := testenv.RefOf(t, s.ok("snapshot", map[string]any{"sessionId": plain})["snapshot"].(string), "button", "Count"); strings.Contains(r, ":") {
		t.Fatalf("an unnamed session's ref %q", r)
	}
	s.ok("close_session", map[string]any{"sessionId": plain})
	s.ok("click", map[string]any{"ref": count})
	if got := s.ok("get_page_metadata", map[string]any{"sessionId": "clean"})["title"]; got != "clicked 1" {
		t.Fatalf("clean after a click by %s: %v", count, got)
	}
	if got := s.ok("get_page_metadata", nil)["url"].(string); !strings.HasSuffix(got, "/login?user=ada") {
		t.Fatalf("the click by %s moved default to %q", count, got)
	}
	fail(engine.InvalidParameters, "click", map[string]any{"sessionId": "default", "ref": count})
	fail(engine.SessionNotFound, "click", map[string]any{"ref": "nope:e1"})
	fail(engine.InvalidParameters, "browser_context_create", map[string]any{"name": "a b"})
	s.ok("browser_context_switch", map[string]any{"name": "clean"})

	if res := s.ok("browser_context_close", map[string]any{"name": "clean"}); res["active"] != "default" {
		t.Fatalf("closing the active context: %v", res)
	}
	if got := s.ok("get_page_metadata", nil)["url"].(string); !strings.HasSuffix(got, "/login?user=ada") {
		t.Fatalf("after close, a call without sessionId went to %q, not default", got)
	}
	if _, cs := list(); len(cs) != 3 || cs["default"]["active"] != true {
		t.Fatalf("after close: %v", cs)
	}
}

// TestContextsPerAPIKey: over HTTP each API key has its own active context
// and sees only its own contexts; clients of one key share its active
// context; another key cannot switch to, close or use them.
func TestContextsPerAPIKey(t *testing.T) {
	testenv.Chromium(t)
	site := testsite.Start()
	defer site.Close()
	srv := startHTTPBinary(t, "--headless")
	a1, a2, b := srv.client(t, httpservetest.KeyA), srv.client(t, httpservetest.KeyA), srv.client(t, httpservetest.KeyB)

	a1.OK("browser_context_create", map[string]any{"name": "mine"})
	a1.OK("navigate", map[string]any{"url": site.URL + "/form.html"})
	// The key's other client acts on the same active context.
	if got := a2.OK("get_page_metadata", nil)["url"].(string); !strings.HasSuffix(got, "/form.html") {
		t.Fatalf("second client of key A: %q", got)
	}
	// Key B sees none of it, and its calls go to its own default.
	if res := b.OK("browser_context_list", nil); res["active"] != "default" || len(res["contexts"].([]any)) != 0 {
		t.Fatalf("key B's list: %v", res)
	}
	b.Fail(engine.SessionNotFound, "browser_context_switch", map[string]any{"name": "mine"})
	b.Fail(engine.SessionNotFound, "browser_context_close", map[string]any{"name": "mine"})
	b.Fail(engine.SessionNotFound, "navigate", map[string]any{"sessionId": "mine", "url": site.URL + "/members"})
	// Nor is a ref of key A's context one of B's.
	mine := testenv.RefOf(t, a1.OK("snapshot", nil)["snapshot"].(string), "button", "Count")
	b.Fail(engine.SessionNotFound, "click", map[string]any{"ref": mine})
	if got := b.OK("get_page_metadata", nil)["url"]; got != "about:blank" {
		t.Fatalf("key B without sessionId reached %v", got)
	}
	// Key B's own context of the same name is its own.
	b.OK("browser_context_create", map[string]any{"name": "mine"})
	b.OK("browser_context_close", map[string]any{"name": "mine"})
	res := a1.OK("browser_context_list", nil)
	if res["active"] != "mine" || len(res["contexts"].([]any)) != 1 {
		t.Fatalf("key A's contexts after key B's calls: %v", res)
	}
	if got := a1.OK("get_page_metadata", nil)["url"].(string); !strings.HasSuffix(got, "/form.html") {
		t.Fatalf("key A's active context moved: %q", got)
	}
}

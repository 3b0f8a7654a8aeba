package tools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/tools"
)

// contexts returns browser_context_list's active name and its entries by
// name.
func (e *env) contexts() (string, map[string]map[string]any) {
	e.t.Helper()
	out := e.ok("browser_context_list", nil)
	byName := map[string]map[string]any{}
	for _, c := range out["contexts"].([]any) {
		m := c.(map[string]any)
		byName[m["name"].(string)] = m
	}
	return out["active"].(string), byName
}

// TestContexts follows the seed's named contexts: calls without sessionId
// use the active context, which create and switch change and closing it
// resets to default; contexts are isolated; the list tells each one's
// pages, URL, proxy and the active mark; every wrong call has its code.
func TestContexts(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	if active, cs := e.contexts(); active != "default" || len(cs) != 0 {
		t.Fatalf("before any call: active %q, contexts %v", active, cs)
	}
	// The default context is created by the first call that needs it.
	e.ok("navigate", map[string]any{"url": site.URL + "/form.html"})
	active, cs := e.contexts()
	if active != "default" || cs["default"]["active"] != true || cs["default"]["pages"] != 1.0 || !strings.HasSuffix(cs["default"]["url"].(string), "/form.html") {
		t.Fatalf("after a call without sessionId: active %q, %v", active, cs)
	}

	// A new context becomes active: calls without sessionId go there, and
	// its cookies are its own.
	out := e.ok("browser_context_create", map[string]any{"name": "clean"})
	if out["name"] != "clean" || out["sessionId"] == "" {
		t.Fatalf("browser_context_create: %v", out)
	}
	e.ok("navigate", map[string]any{"url": site.URL + "/login?user=ada"})
	if got := e.ok("navigate", map[string]any{"url": site.URL + "/members"})["title"].(string); !strings.HasPrefix(got, "s-ada") {
		t.Fatalf("logged in in clean: %q", got)
	}
	e.ok("tabs", map[string]any{"action": "new"})
	active, cs = e.contexts()
	if active != "clean" || cs["clean"]["active"] != true || cs["default"]["active"] != nil || cs["clean"]["pages"] != 2.0 {
		t.Fatalf("after create: active %q, %v", active, cs)
	}
	if !strings.HasSuffix(cs["default"]["url"].(string), "/form.html") {
		t.Fatalf("default moved with clean's calls: %v", cs["default"])
	}
	// The name works as a sessionId too.
	if got := e.ok("get_text", map[string]any{"sessionId": "default", "selector": "h1"})["text"]; got == "" {
		t.Fatalf("default by name: %v", got)
	}

	out = e.ok("browser_context_switch", map[string]any{"name": "default"})
	if out["name"] != "default" || !strings.HasSuffix(out["url"].(string), "/form.html") {
		t.Fatalf("switch: %v", out)
	}
	if got := e.ok("navigate", map[string]any{"url": site.URL + "/members"})["title"].(string); !strings.HasPrefix(got, "anonymous") {
		t.Fatalf("clean's login leaked into default: %q", got)
	}

	// Errors: each names what is wrong.
	e.fail(engine.InvalidParameters, "browser_context_create", map[string]any{"name": "clean"})
	e.fail(engine.InvalidParameters, "browser_context_create", map[string]any{})
	e.fail(engine.InvalidParameters, "browser_context_create", map[string]any{"name": ""})
	e.fail(engine.InvalidParameters, "browser_context_switch", map[string]any{"name": ""})
	e.fail(engine.InvalidParameters, "browser_context_close", map[string]any{"name": "x", "force": true})
	for _, tool := range []string{"browser_context_switch", "browser_context_close"} {
		body := e.fail(engine.SessionNotFound, tool, map[string]any{"name": "nope"})
		if !strings.Contains(body["message"].(string), `no context named "nope"`) {
			t.Errorf("%s of an unknown name: %v", tool, body)
		}
	}

	// Closing the active context makes default active.
	e.ok("browser_context_switch", map[string]any{"name": "clean"})
	out = e.ok("browser_context_close", map[string]any{"name": "clean"})
	if out["active"] != "default" {
		t.Fatalf("close of the active context: %v", out)
	}
	active, cs = e.contexts()
	if active != "default" || cs["clean"] != nil || cs["default"]["active"] != true {
		t.Fatalf("after close: active %q, %v", active, cs)
	}
	if got := e.ok("get_page_metadata", nil)["url"].(string); !strings.HasSuffix(got, "/members") {
		t.Fatalf("a call without sessionId after close went to %q, not default's page", got)
	}
	// close_session of the active context does the same; an unnamed
	// session can be made active by its id.
	id := e.session()
	e.ok("browser_context_switch", map[string]any{"name": id})
	if active, _ := e.contexts(); active != id {
		t.Fatalf("active after switching to an id: %q", active)
	}
	e.ok("close_session", map[string]any{"sessionId": id})
	if active, _ := e.contexts(); active != "default" {
		t.Fatalf("active after close_session: %q", active)
	}
	// Closing default while it is active leaves it active, created again on
	// the next call.
	e.ok("browser_context_close", map[string]any{"name": "default"})
	if active, cs := e.contexts(); active != "default" || len(cs) != 0 {
		t.Fatalf("after closing default: %q %v", active, cs)
	}
	if got := e.ok("get_page_metadata", nil)["url"]; got != "about:blank" {
		t.Fatalf("default again: %v", got)
	}
}

// TestActiveContextGone: an active context that expired is not replaced
// behind the caller's back: calls without sessionId say so until it
// switches.
func TestActiveContextGone(t *testing.T) {
	e := newEnv(t, sessions.Config{Timeout: 300 * time.Millisecond})
	e.ok("browser_context_create", map[string]any{"name": "short"})
	testenv.Eventually(t, "the context to expire", func() (bool, error) {
		_, cs := e.contexts()
		return cs["short"] == nil, nil
	})
	body := e.fail(engine.SessionExpired, "get_page_metadata", nil)
	if !strings.Contains(body["message"].(string), `active context "short"`) || !strings.Contains(body["suggestion"].(string), "browser_context_switch") {
		t.Fatalf("call on the expired active context: %v", body)
	}
	if active, _ := e.contexts(); active != "short" {
		t.Fatalf("active after expiry: %q", active)
	}
	e.ok("browser_context_switch", map[string]any{"name": "default"})
	e.ok("get_page_metadata", nil)
}

// TestContextStorageStateFile: storageState may be the path of a
// save_state file, under the rules of every file argument.
func TestContextStorageStateFile(t *testing.T) {
	allowed, outside := t.TempDir(), t.TempDir()
	e := newEnvWith(t, sessions.Config{}, tools.Options{Caps: []tools.Group{tools.All}, AllowedPaths: []string{allowed}})
	ada := e.session()
	e.ok("navigate", map[string]any{"sessionId": ada, "url": site.URL + "/login?user=ada"})
	e.ok("save_state", map[string]any{"sessionId": ada, "path": "ada.json"})
	e.ok("save_state", map[string]any{"sessionId": ada, "path": filepath.Join(allowed, "ada.json")})

	for name, p := range map[string]string{"rel": "ada.json", "allowed": filepath.Join(allowed, "ada.json")} {
		e.ok("browser_context_create", map[string]any{"name": name, "storageState": p})
		if got := e.ok("navigate", map[string]any{"url": site.URL + "/members"})["title"].(string); !strings.HasPrefix(got, "s-ada t-ada") {
			t.Fatalf("context from %s: %q", p, got)
		}
	}
	id := e.ok("create_session", map[string]any{"storageState": "ada.json"})["sessionId"]
	if got := e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/members"})["title"].(string); !strings.HasPrefix(got, "s-ada t-ada") {
		t.Fatalf("create_session from a file: %q", got)
	}

	secret := filepath.Join(outside, "secret.json")
	os.WriteFile(secret, []byte(`{"cookies": [], "origins": []}`), 0o600)
	os.WriteFile(filepath.Join(e.out, "bad.json"), []byte(`{"cookies": 5}`), 0o600)
	for _, c := range []struct {
		arg  any
		want string
	}{
		{secret, "outside"},
		{filepath.Join(e.out, "..", filepath.Base(outside), "secret.json"), "outside"},
		{"missing.json", "does not exist"},
		{"bad.json", "not a saved state"},
		{5, "storageState must be"},
	} {
		for _, tool := range []string{"browser_context_create", "create_session"} {
			body := e.fail(engine.InvalidParameters, tool, map[string]any{"name": "x", "storageState": c.arg})
			if body["details"].(map[string]any)["field"] != "storageState" || !strings.Contains(body["message"].(string), c.want) {
				t.Errorf("%s storageState %v: %v", tool, c.arg, body)
			}
		}
	}
	if _, cs := e.contexts(); cs["x"] != nil {
		t.Fatalf("a refused context was created: %v", cs)
	}

	off := newEnvWith(t, sessions.Config{}, tools.Options{Caps: []tools.Group{tools.All}, NoFileAccess: true})
	body := off.fail(engine.InvalidParameters, "browser_context_create", map[string]any{"name": "x", "storageState": "ada.json"})
	if !strings.Contains(body["message"].(string), "enableFileUpload") {
		t.Fatalf("with file access off: %v", body)
	}
}

// TestContextProxy: proxy takes the seed's object with a login, which
// really logs in, and browser_context_list shows the proxy server without
// the login; a string still works, and wrong shapes are refused.
func TestContextProxy(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	proxy := testenv.LoginProxy(t, "ada", "s3cret", "127.0.0.1:1")
	e.ok("browser_context_create", map[string]any{"name": "uk", "proxy": map[string]any{
		"server": proxy.String(), "username": "ada", "password": "s3cret", "bypass": "localhost",
	}})
	if got := e.ok("navigate", map[string]any{"url": "http://shop.invalid/"})["title"]; got != "via proxy shop.invalid as ada" {
		t.Fatalf("through the proxy: %v", got)
	}
	id := e.ok("create_session", map[string]any{"proxy": map[string]any{"server": proxy.String(), "username": "ada", "password": "s3cret"}})["sessionId"]
	if got := e.ok("navigate", map[string]any{"sessionId": id, "url": "http://other.invalid/"})["title"]; got != "via proxy other.invalid as ada" {
		t.Fatalf("create_session through the proxy: %v", got)
	}
	_, cs := e.contexts()
	if cs["uk"]["proxy"] != proxy.String() || cs["uk"]["active"] != true {
		t.Fatalf("listed: %v", cs["uk"])
	}
	for _, c := range cs {
		for k, v := range c {
			if s, ok := v.(string); ok && strings.Contains(s, "s3cret") {
				t.Fatalf("the list shows the password in %s: %v", k, c)
			}
		}
	}
	// Without the login the proxy refuses (the page is its 407), and the
	// plain string form still works.
	e.ok("browser_context_create", map[string]any{"name": "nologin", "proxy": proxy.String()})
	if got := e.ok("navigate", map[string]any{"url": "http://shop.invalid/"})["title"]; got == "via proxy shop.invalid as ada" {
		t.Fatal("the proxy let a session without the login through")
	}

	for _, p := range []any{
		map[string]any{"username": "ada"},
		map[string]any{"server": proxy.String(), "user": "ada"},
		map[string]any{"server": proxy.String(), "username": 5},
		map[string]any{"server": "https://127.0.0.1:1", "username": "ada"},
		"http://ada:s3cret@" + proxy.Host,
		"::not a url",
		true,
		map[string]any{"server": strings.Repeat("x", 5000)},
	} {
		for _, tool := range []string{"browser_context_create", "create_session"} {
			body := e.fail(engine.InvalidParameters, tool, map[string]any{"name": "bad", "proxy": p})
			if body["details"].(map[string]any)["field"] != "proxy" {
				t.Errorf("%s proxy %v: %v", tool, p, body)
			}
		}
	}
}

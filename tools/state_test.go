package tools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
)

func TestSaveAndRestoreStateLogsBackIn(t *testing.T) {
	e := newEnv(t, engine.ManagerConfig{})
	a := e.session()
	e.ok("navigate", map[string]any{"sessionId": a, "url": site.URL + "/login?user=ada"})
	if out := e.ok("navigate", map[string]any{"sessionId": a, "url": site.URL + "/members"}); !strings.HasPrefix(out["title"].(string), "s-ada t-ada") {
		t.Fatalf("logged-in session: %v", out["title"])
	}
	path := filepath.Join(t.TempDir(), "state.json")
	saved := e.ok("save_state", map[string]any{"sessionId": a, "path": path})
	st := saved["state"].(map[string]any)
	if len(st["cookies"].([]any)) != 1 || len(st["origins"].([]any)) != 1 {
		t.Fatalf("saved state: %v", st)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}

	// A fresh session is anonymous until the state is restored.
	b := e.session()
	if out := e.ok("navigate", map[string]any{"sessionId": b, "url": site.URL + "/members"}); !strings.HasPrefix(out["title"].(string), "anonymous no-token") {
		t.Fatalf("fresh session: %v", out["title"])
	}
	e.ok("restore_state", map[string]any{"sessionId": b, "state": st})
	if out := e.ok("navigate", map[string]any{"sessionId": b, "url": site.URL + "/members"}); !strings.HasPrefix(out["title"].(string), "s-ada t-ada") {
		t.Fatalf("restored session: %v", out["title"])
	}
	// From a file, and at creation time.
	c := e.session()
	e.ok("restore_state", map[string]any{"sessionId": c, "path": path})
	if out := e.ok("navigate", map[string]any{"sessionId": c, "url": site.URL + "/members"}); !strings.HasPrefix(out["title"].(string), "s-ada t-ada") {
		t.Fatalf("restored from file: %v", out["title"])
	}
	d := e.ok("create_session", map[string]any{"storageState": st})["sessionId"].(string)
	if out := e.ok("navigate", map[string]any{"sessionId": d, "url": site.URL + "/members"}); !strings.HasPrefix(out["title"].(string), "s-ada t-ada") {
		t.Fatalf("created with storageState: %v", out["title"])
	}
	e.fail(engine.InvalidParameters, "restore_state", map[string]any{"sessionId": d})
	e.fail(engine.InvalidParameters, "restore_state", map[string]any{"sessionId": d, "path": filepath.Join(t.TempDir(), "none.json")})
}

func TestCookies(t *testing.T) {
	e := newEnv(t, engine.ManagerConfig{})
	id := e.session()
	e.ok("set_cookies", map[string]any{"sessionId": id, "cookies": []any{
		map[string]any{"name": "sid", "value": "s-bob", "url": site.URL},
		map[string]any{"name": "other", "value": "1", "domain": "example.com"},
	}})
	if out := e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/members"}); !strings.HasPrefix(out["title"].(string), "s-bob") {
		t.Fatalf("cookie not sent: %v", out["title"])
	}
	if n := len(e.ok("get_cookies", map[string]any{"sessionId": id})["cookies"].([]any)); n != 2 {
		t.Fatalf("get_cookies: %d", n)
	}
	got := e.ok("get_cookies", map[string]any{"sessionId": id, "urls": []any{site.URL}})["cookies"].([]any)
	if len(got) != 1 || got[0].(map[string]any)["name"] != "sid" {
		t.Fatalf("get_cookies for url: %v", got)
	}
	e.fail(engine.InvalidParameters, "set_cookies", map[string]any{"sessionId": id, "cookies": []any{map[string]any{"name": "x", "value": "y"}}})
	e.fail(engine.InvalidParameters, "get_cookies", map[string]any{"sessionId": id, "urls": []any{"not a url"}})
	// Another session does not see them.
	other := e.session()
	if n := len(e.ok("get_cookies", map[string]any{"sessionId": other})["cookies"].([]any)); n != 0 {
		t.Fatalf("cookies leaked across sessions: %d", n)
	}
}

func TestCreateSessionOptions(t *testing.T) {
	e := newEnv(t, engine.ManagerConfig{})
	out := e.ok("create_session", map[string]any{
		"name": "german", "locale": "de-DE", "timezoneId": "Asia/Tokyo", "userAgent": "TestAgent/1.0",
		"viewport": map[string]any{"width": 800, "height": 600}, "extraHTTPHeaders": map[string]any{"X-Test": "hello"},
	})
	id := out["sessionId"].(string)
	// The name works wherever a sessionId does.
	if out := e.ok("navigate", map[string]any{"sessionId": "german", "url": site.URL + "/members"}); out["title"] != "anonymous no-token de-DE Asia/Tokyo" {
		t.Fatalf("locale/timezone: %v", out["title"])
	}
	if out := e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/headers"}); out["title"] != "hello|TestAgent/1.0" {
		t.Fatalf("headers/user agent: %v", out["title"])
	}
	if out := e.ok("evaluate", map[string]any{"sessionId": id, "script": "innerWidth + 'x' + innerHeight"}); out["result"] != "800x600" {
		t.Fatalf("viewport: %v", out)
	}
	e.fail(engine.InvalidParameters, "create_session", map[string]any{"name": "german"})
	e.fail(engine.InvalidParameters, "create_session", map[string]any{"timezoneId": "Mars/Olympus"})
	e.fail(engine.InvalidParameters, "create_session", map[string]any{"viewport": map[string]any{"width": 0, "height": 5}})
	e.fail(engine.InvalidParameters, "create_session", map[string]any{"proxy": "::not a url"})
}

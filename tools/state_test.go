package tools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/tools"
)

func TestSaveAndRestoreStateLogsBackIn(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	a := e.session()
	e.ok("navigate", map[string]any{"sessionId": a, "url": site.URL + "/login?user=ada"})
	if out := e.ok("navigate", map[string]any{"sessionId": a, "url": site.URL + "/members"}); !strings.HasPrefix(out["title"].(string), "s-ada t-ada") {
		t.Fatalf("logged-in session: %v", out["title"])
	}
	path := filepath.Join(e.out, "state.json")
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
	e.fail(engine.InvalidParameters, "restore_state", map[string]any{"sessionId": d, "path": filepath.Join(e.out, "none.json")})
}

func TestCookies(t *testing.T) {
	e := newEnv(t, sessions.Config{})
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
	e := newEnv(t, sessions.Config{})
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

// TestStateFilesConfined checks that save_state and restore_state use only
// files in the output directory or an allowed path: no path, however it is
// spelled (.., an absolute path, a link), reads or writes anything else,
// and a refusal names the field and the directories that are allowed.
func TestStateFilesConfined(t *testing.T) {
	allowed, outside := t.TempDir(), t.TempDir()
	e := newEnvWith(t, sessions.Config{}, tools.Options{Caps: []tools.Group{tools.All}, AllowedPaths: []string{allowed}})
	id := e.session()
	e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/login?user=ada"})

	// A relative path lands in the output directory, and reads back.
	out := e.ok("save_state", map[string]any{"sessionId": id, "path": "ada.json"})
	if want := filepath.Join(e.out, "ada.json"); out["path"] != want {
		t.Fatalf("saved to %v, want %s", out["path"], want)
	}
	e.ok("restore_state", map[string]any{"sessionId": e.session(), "path": "ada.json"})
	// An allowed path works both ways too.
	e.ok("save_state", map[string]any{"sessionId": id, "path": filepath.Join(allowed, "ada.json")})
	e.ok("restore_state", map[string]any{"sessionId": id, "path": filepath.Join(allowed, "ada.json")})

	secret := filepath.Join(outside, "secret.json")
	os.WriteFile(secret, []byte(`{"cookies": [], "origins": []}`), 0o600)
	link := filepath.Join(e.out, "link")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "dangling.json"), filepath.Join(e.out, "dangling.json")); err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(e.out, filepath.Join(outside, "written.json"))
	for _, p := range []string{filepath.Join(outside, "written.json"), rel, "link/written.json", "dangling.json", filepath.Join(e.out, "..", filepath.Base(outside), "written.json"), "/etc/passwd-copy"} {
		body := e.fail(engine.InvalidParameters, "save_state", map[string]any{"sessionId": id, "path": p})
		d := body["details"].(map[string]any)
		if d["field"] != "path" || !strings.Contains(body["message"].(string), e.out) || !strings.Contains(body["message"].(string), allowed) {
			t.Errorf("save_state %s: %v", p, body)
		}
	}
	for _, p := range []string{secret, "link/secret.json", filepath.Join(e.out, "..", filepath.Base(outside), "secret.json")} {
		body := e.fail(engine.InvalidParameters, "restore_state", map[string]any{"sessionId": id, "path": p})
		if body["details"].(map[string]any)["field"] != "path" || !strings.Contains(body["message"].(string), "outside") {
			t.Errorf("restore_state %s: %v", p, body)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Fatalf("save_state wrote outside the allowed directories: %v", entries)
	}
}

// TestFileAccessOff: with file access off (security.enableFileUpload false)
// no tool argument may name a server file; inline state still works.
func TestFileAccessOff(t *testing.T) {
	e := newEnvWith(t, sessions.Config{}, tools.Options{Caps: []tools.Group{tools.All}, NoFileAccess: true})
	id := e.session()
	for name, args := range map[string]map[string]any{
		"save_state":    {"sessionId": id, "path": "state.json"},
		"restore_state": {"sessionId": id, "path": "state.json"},
	} {
		body := e.fail(engine.InvalidParameters, name, args)
		if body["details"].(map[string]any)["field"] != "path" || !strings.Contains(body["message"].(string), "enableFileUpload") {
			t.Errorf("%s: %v", name, body)
		}
	}
	if entries, _ := os.ReadDir(e.out); len(entries) != 0 {
		t.Fatalf("save_state wrote with file access off: %v", entries)
	}
	st := e.ok("save_state", map[string]any{"sessionId": id})["state"]
	e.ok("restore_state", map[string]any{"sessionId": id, "state": st})
}

// TestResourceExhausted (issue 15 item 7): a full disk and the server's
// size cap are RESOURCE_EXHAUSTED, retryable, with the reason. /dev/full
// is a device whose every write fails with "no space left on device".
func TestResourceExhausted(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full:", err)
	}
	e := newEnvWith(t, sessions.Config{}, tools.Options{Caps: []tools.Group{tools.All}, AllowedPaths: []string{"/dev"}, MaxScreenshotBytes: 64})
	id := e.open("/form.html")
	body := e.fail(engine.ResourceExhausted, "save_state", map[string]any{"sessionId": id, "path": "/dev/full"})
	if d, _ := body["details"].(map[string]any); d["reason"] != "disk_full" || body["retryable"] != true || body["sessionId"] != id {
		t.Errorf("save_state to a full disk: %v", body)
	}
	body = e.fail(engine.ResourceExhausted, "screenshot", map[string]any{"sessionId": id})
	if d, _ := body["details"].(map[string]any); d["reason"] != "size_cap" {
		t.Errorf("a screenshot over the cap: %v", body)
	}
}

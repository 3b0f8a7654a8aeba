package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// TestPersistentSessions (issue 15 item 3, session.persistentSessions):
// with --persistent-sessions, a session keeps its id, its page, its
// cookies and its localStorage across a restart of the server, after a
// SIGTERM (saved at shutdown) and after a SIGKILL (saved on the last
// change); the state file is the user's alone.
func TestPersistentSessions(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	dir := t.TempDir()
	args := []string{"--persistent-sessions", "--state-dir", dir, "--caps", "state"}
	url := site.URL + "/storage.html"

	s := startBinary(t, args...)
	id := s.ok("create_session", map[string]any{"name": "keep"})["sessionId"].(string)
	s.ok("navigate", map[string]any{"sessionId": id, "url": url})
	s.ok("set_cookies", map[string]any{"sessionId": id, "cookies": []any{map[string]any{"name": "flavour", "value": "oat", "url": site.URL}}})
	s.ok("evaluate", map[string]any{"sessionId": id, "script": `localStorage.setItem("note", "kept")`})
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitGone(t, s.tmp, "SIGTERM")
	if fi, err := os.Stat(filepath.Join(dir, "sessions.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the state file: %v, %v; want mode 0600", fi, err)
	}

	s = startBinary(t, args...)
	check := func(wantNote string) {
		t.Helper()
		meta := s.ok("get_page_metadata", map[string]any{"sessionId": id})
		if meta["url"] != url {
			t.Errorf("the restored session shows %v, want %s", meta["url"], url)
		}
		cookies, _ := json.Marshal(s.ok("get_cookies", map[string]any{"sessionId": id}))
		if !strings.Contains(string(cookies), `"oat"`) {
			t.Errorf("the restored session's cookies: %s", cookies)
		}
		if got := s.ok("evaluate", map[string]any{"sessionId": id, "script": `localStorage.getItem("note")`})["result"]; got != wantNote {
			t.Errorf("localStorage note = %v, want %q", got, wantNote)
		}
		// Its name still finds it.
		if got := s.ok("get_page_metadata", map[string]any{"sessionId": "keep"})["sessionId"]; got != id {
			t.Errorf("the name keep finds %v, want %s", got, id)
		}
	}
	check("kept")

	// A change, then a SIGKILL: what was saved on the change comes back.
	s.ok("evaluate", map[string]any{"sessionId": id, "script": `localStorage.setItem("note", "after kill")`})
	testenv.Eventually(t, "the change to reach the state file", func() (bool, error) {
		b, err := os.ReadFile(filepath.Join(dir, "sessions.json"))
		return strings.Contains(string(b), "after kill"), err
	})
	tmp := s.tmp
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	waitGone(t, tmp, "the server was SIGKILLed")
	s = startBinaryIn(t, killedTempDir(t), args...)
	check("after kill")

	// Expiry still holds: a session whose idle time ran out while the
	// server was down (its lastUsed set back by a day) is not restored.
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitGone(t, s.tmp, "SIGTERM")
	if n, b := ageSavedSessions(t, filepath.Join(dir, "sessions.json")); n != 1 {
		t.Fatalf("saved sessions: %s", b)
	}
	s = startBinary(t, args...)
	if out, isErr := s.call("get_page_metadata", map[string]any{"sessionId": id}); !isErr || out["errorCode"] != "SESSION_EXPIRED" {
		t.Fatalf("a session that expired while the server was down: %v", out)
	}
}

// TestPersistentContextsListedAfterRestart: right after a restart, the
// restored contexts are in browser_context_list and list_sessions (which
// wait for the restore, as every other call does), a context keeps its
// proxy in the list, and it still logs in to that proxy.
func TestPersistentContextsListedAfterRestart(t *testing.T) {
	testenv.Chromium(t)
	dir := t.TempDir()
	args := []string{"--persistent-sessions", "--state-dir", dir}
	proxy := testenv.LoginProxy(t, "ada", "s3cret", "127.0.0.1:1")

	s := startBinary(t, args...)
	id := s.ok("browser_context_create", map[string]any{"name": "uk", "proxy": map[string]any{"server": proxy.String(), "username": "ada", "password": "s3cret"}})["sessionId"]
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitGone(t, s.tmp, "SIGTERM")

	s = startBinary(t, args...)
	if got, _ := json.Marshal(s.ok("list_sessions", nil)); !strings.Contains(string(got), `"uk"`) {
		t.Errorf("list_sessions as the first call after a restart: %s", got)
	}
	var uk map[string]any
	for _, c := range s.ok("browser_context_list", nil)["contexts"].([]any) {
		if c.(map[string]any)["sessionId"] == id {
			uk = c.(map[string]any)
		}
	}
	if uk == nil || uk["name"] != "uk" || uk["proxy"] != proxy.String() {
		t.Fatalf("the restored context in browser_context_list: %v", uk)
	}
	if got := s.ok("navigate", map[string]any{"sessionId": "uk", "url": "http://shop.invalid/"})["title"]; got != "via proxy shop.invalid as ada" {
		t.Fatalf("the restored context through its proxy with a login: %v", got)
	}

	// A context created as the first call after a restart does not take
	// the name of one being restored.
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitGone(t, s.tmp, "SIGTERM")
	s = startBinary(t, args...)
	if res, isErr := s.call("browser_context_create", map[string]any{"name": "uk"}); !isErr || res["errorCode"] != "INVALID_PARAMETERS" {
		t.Fatalf("a new context named as a restored one: %v", res)
	}
	if got := s.ok("get_page_metadata", map[string]any{"sessionId": "uk"})["sessionId"]; got != id {
		t.Fatalf("the name uk finds %v, want the restored %v", got, id)
	}
}

// TestPersistentSessionDownloadPath: a restored session saves its
// downloads under --download-path, as it did before the restart.
func TestPersistentSessionDownloadPath(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	dl := filepath.Join(t.TempDir(), "downloads")
	args := []string{"--persistent-sessions", "--state-dir", t.TempDir(), "--download-path", dl}
	s := startBinary(t, args...)
	id := s.ok("create_session", nil)["sessionId"].(string)
	s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/report.html"})
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitGone(t, s.tmp, "SIGTERM")

	s = startBinary(t, args...)
	res := s.ok("click", map[string]any{"sessionId": id, "selector": "#attachment"})
	dls, _ := res["downloads"].([]any)
	if len(dls) != 1 {
		t.Fatalf("downloads = %v", res)
	}
	if path, _ := dls[0].(map[string]any)["path"].(string); path != filepath.Join(dl, id, "report.csv") {
		t.Fatalf("the restored session saved its download to %q, want it under %s", path, dl)
	}
}

// TestPersistentActiveContext: with --persistent-sessions, the context a
// client made active is active again after a restart (after a SIGKILL too:
// the switch itself is saved), so calls without a sessionId act on it; an
// active context whose session is not restored (it expired while the
// server was down) leaves "default" active.
func TestPersistentActiveContext(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	dir := t.TempDir()
	path := filepath.Join(dir, "sessions.json")
	args := []string{"--persistent-sessions", "--state-dir", dir}

	s := startBinary(t, args...)
	work := s.ok("browser_context_create", map[string]any{"name": "work"})["sessionId"].(string)
	s.ok("browser_context_switch", map[string]any{"name": "work"})
	s.ok("navigate", map[string]any{"url": site.URL + "/welcome.html"})
	testenv.Eventually(t, "the switch and the page to reach the state file", func() (bool, error) {
		b, err := os.ReadFile(path)
		return strings.Contains(string(b), `"active":{"":"`+work+`"}`) && strings.Contains(string(b), "/welcome.html"), err
	})
	tmp := s.tmp
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	waitGone(t, tmp, "the server was SIGKILLed")

	s = startBinaryIn(t, killedTempDir(t), args...)
	if got := s.ok("browser_context_list", nil)["active"]; got != "work" {
		t.Fatalf("active after a restart = %v, want work", got)
	}
	if got := s.ok("get_page_metadata", nil); got["sessionId"] != work || got["url"] != site.URL+"/welcome.html" {
		t.Fatalf("a call without sessionId after a restart acts on %v, want work (%s)", got, work)
	}

	// The active context expires while the server is down: default is
	// active after the restart.
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitGone(t, s.tmp, "SIGTERM")
	ageSavedSessions(t, path)
	s = startBinary(t, args...)
	if got := s.ok("browser_context_list", nil)["active"]; got != "default" {
		t.Fatalf("active after its context expired = %v, want default", got)
	}
	if got := s.ok("get_page_metadata", nil)["sessionId"]; got == work {
		t.Fatalf("a call without sessionId acts on the expired %v", got)
	}
}

// ageSavedSessions sets the lastUsed of every session in the state file at
// path a day back, as if the server had been down that long; it returns
// how many there are and the file as it was.
func ageSavedSessions(t *testing.T, path string) (int, []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	ss := f["sessions"].([]any)
	for _, s := range ss {
		s.(map[string]any)["lastUsed"] = time.Now().Add(-24 * time.Hour).Format(time.RFC3339)
	}
	aged, _ := json.Marshal(f)
	if err := os.WriteFile(path, aged, 0o600); err != nil {
		t.Fatal(err)
	}
	return len(ss), b
}

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/seed4af8c199/browsermcp/internal/httpservetest"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// TestRestoredProfileSessionIsTheProfiles: with --user-data-dir and
// --persistent-sessions over HTTP, the default session restored on the
// persistent profile holds it as a new one would: another API key's
// default session is not put in the same browser context (it would read
// the first key's cookies).
func TestRestoredProfileSessionIsTheProfiles(t *testing.T) {
	testenv.Chromium(t)
	site := testsite.Start()
	defer site.Close()
	dir := t.TempDir()
	profile := filepath.Join(dir, "profile")
	args := []string{"--headless", "--persistent-sessions", "--state-dir", filepath.Join(dir, "state"), "--user-data-dir", profile}
	start := func() *httpBinary {
		s := startHTTPBinary(t, args...)
		t.Cleanup(func() {
			s.cmd.Process.Kill()
			s.cmd.Wait()
			// The browser dies with the server; the profile goes after it.
			waitGone(t, "--user-data-dir="+profile, "the server was killed")
		})
		return s
	}
	first := start()
	first.client(t, httpservetest.KeyA).OK("navigate", map[string]any{"url": site.URL + "/login?user=ada"})
	if err := first.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	first.cmd.Wait()
	waitGone(t, "--user-data-dir="+profile, "SIGTERM")

	second := start()
	a, b := second.client(t, httpservetest.KeyA), second.client(t, httpservetest.KeyB)
	if got := a.OK("navigate", map[string]any{"url": site.URL + "/members"})["title"].(string); !strings.HasPrefix(got, "s-ada") {
		t.Fatalf("key A's restored default session: %q", got)
	}
	// Key B does not see key A's restored session.
	if got := b.SessionIDs(); len(got) != 0 {
		t.Fatalf("key B sees %v after the restart", got)
	}
	res, isErr := b.Call("navigate", map[string]any{"url": site.URL + "/members"})
	if title, _ := res["title"].(string); !isErr && !strings.HasPrefix(title, "anonymous") {
		t.Fatalf("key B's default session reads key A's login on the profile: %v", res)
	}
}

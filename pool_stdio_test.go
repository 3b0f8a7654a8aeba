package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// The tests in this file run the built binary with a browser pool
// (--pool-min-browsers, --pool-max-browsers, --pool-idle-timeout) and
// follow its browsers from their processes: each browser is one main
// process (no --type= switch) with its own profile under the server's
// TMPDIR.

// mainBrowserPIDs lists the browsers' main processes under dir, sorted.
func mainBrowserPIDs(dir string) []int {
	var mains []int
	for _, pid := range browserPIDs(dir) {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if !bytes.Contains(b, []byte("--type=")) {
			mains = append(mains, pid)
		}
	}
	slices.Sort(mains)
	return mains
}

// waitBrowsers waits until n browsers run under the server's TMPDIR and
// returns their main processes.
func (s *proc) waitBrowsers(n int, what string) []int {
	s.t.Helper()
	var pids []int
	testenv.Eventually(s.t, fmt.Sprintf("%d browsers to run %s", n, what), func() (bool, error) {
		pids = mainBrowserPIDs(s.tmp)
		return len(pids) == n, fmt.Errorf("browser processes: %v", pids)
	})
	return pids
}

func TestPoolStartsMinimumAhead(t *testing.T) {
	// No session yet: the minimum starts with the server.
	s := startBinary(t, "--pool-min-browsers", "2", "--pool-max-browsers", "3")
	ahead := s.waitBrowsers(2, "before any session")
	for range 2 {
		s.ok("create_session", nil)
	}
	if got := mainBrowserPIDs(s.tmp); !slices.Equal(got, ahead) {
		t.Fatalf("two sessions on a pool of two started ahead: browsers %v, want the same %v", got, ahead)
	}
	// Each browser has a session: the third starts a third browser.
	s.ok("create_session", nil)
	s.waitBrowsers(3, "for three sessions")
	s.c.Close()
	waitGone(t, s.tmp, "stdin EOF")
}

// TestPoolSpreadsSessionsAndIsolatesACrash places five sessions on a pool
// of two browsers and kills one browser: exactly the sessions the
// least-loaded placement put on it are lost, and the others keep their
// pages and keep working. Which browser is killed does not matter: the
// lost sessions must be one of the two groups.
func TestPoolSpreadsSessionsAndIsolatesACrash(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := startBinary(t, "--pool-min-browsers", "2", "--pool-max-browsers", "2")
	s.waitBrowsers(2, "at startup")
	id := func() string { return s.ok("create_session", nil)["sessionId"].(string) }
	// Placement: s1 and s2 go to the two idle browsers, s3 and s4 to
	// each again; with s1 closed, its browser has the fewest sessions
	// and gets s5.
	s1, s2, s3, s4 := id(), id(), id(), id()
	s.ok("close_session", map[string]any{"sessionId": s1})
	s5 := id()
	groups := [][]string{{s3, s5}, {s2, s4}}
	all := []string{s2, s3, s4, s5}
	for _, sid := range all {
		s.ok("navigate", map[string]any{"sessionId": sid, "url": site.URL + "/form.html"})
		s.ok("type", map[string]any{"sessionId": sid, "selector": "#user", "text": sid[:8]})
	}
	if n := len(mainBrowserPIDs(s.tmp)); n != 2 {
		t.Fatalf("%d browsers for a pool of two", n)
	}
	victim := mainBrowserPIDs(s.tmp)[0]
	if err := syscall.Kill(victim, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The lost sessions leave the list at once, without a call on them.
	var listed []string
	testenv.Eventually(t, "the dead browser's sessions to leave list_sessions", func() (bool, error) {
		listed = nil
		for _, x := range s.ok("list_sessions", nil)["sessions"].([]any) {
			listed = append(listed, x.(map[string]any)["sessionId"].(string))
		}
		return len(listed) == 2, fmt.Errorf("listed %v", listed)
	})
	slices.Sort(listed)
	var lost, kept []string
	for _, g := range groups {
		g = slices.Sorted(slices.Values(g))
		if slices.Equal(g, listed) {
			kept = g
		} else {
			lost = g
		}
	}
	if kept == nil {
		t.Fatalf("the sessions left %v are not one browser's: the groups were %v", listed, groups)
	}
	for _, sid := range lost {
		body, isErr := s.call("navigate", map[string]any{"sessionId": sid, "url": site.URL + "/form.html"})
		if !isErr || body["errorCode"] != "BROWSER_CRASHED" {
			t.Fatalf("a session of the killed browser: %v; want BROWSER_CRASHED", body)
		}
	}
	for _, sid := range kept {
		// The page is the one typed into before the crash, and it works:
		// the form sends what was typed then.
		out := s.ok("click", map[string]any{"sessionId": sid, "selector": "#go"})
		if u, _ := out["url"].(string); !strings.Contains(u, "user="+sid[:8]) {
			t.Fatalf("a session of the other browser after the crash: %v; want its form submitted with user=%s", out, sid[:8])
		}
	}
	// The pool starts the dead browser again, and a new session works.
	s.waitBrowsers(2, "after one was killed")
	fresh := id()
	out := s.ok("navigate", map[string]any{"sessionId": fresh, "url": site.URL + "/form.html"})
	if out["title"] != "Sign in" {
		t.Fatalf("a new session after the crash: %v", out)
	}
}

func TestPoolClosesIdleBrowserAboveMinimum(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := startBinary(t, "--pool-min-browsers", "1", "--pool-max-browsers", "2", "--pool-idle-timeout", "200")
	first := s.waitBrowsers(1, "at startup")
	a := s.ok("create_session", nil)["sessionId"].(string)
	b := s.ok("create_session", nil)["sessionId"].(string)
	s.waitBrowsers(2, "for two sessions")
	profiles := filepath.Join(s.tmp, "browsermcp-runtime")
	if ents, _ := os.ReadDir(profiles); len(ents) != 2 {
		t.Fatalf("%d profiles for two browsers: %v", len(ents), ents)
	}
	s.ok("close_session", map[string]any{"sessionId": b})
	// The second browser, now idle and above the minimum, closes; the
	// first, with a's session, stays.
	if left := s.waitBrowsers(1, "once the second is idle"); !slices.Equal(left, first) {
		t.Fatalf("browser %v left; want the first one, %v", left, first)
	}
	testenv.Eventually(t, "the idle browser's profile to be removed", func() (bool, error) {
		ents, err := os.ReadDir(profiles)
		return err == nil && len(ents) == 1, fmt.Errorf("profiles: %v (%v)", ents, err)
	})
	out := s.ok("navigate", map[string]any{"sessionId": a, "url": site.URL + "/form.html"})
	if out["title"] != "Sign in" {
		t.Fatalf("the session on the browser that stayed: %v", out)
	}
	// A new session while the first browser is busy starts a second
	// browser again.
	s.ok("create_session", nil)
	s.waitBrowsers(2, "for two sessions again")
}

// TestPoolStopsWithServerIdleTimeout: the server's --idle-timeout stops
// every browser of the pool while no session exists, and the next session
// starts the minimum again.
func TestPoolStopsWithServerIdleTimeout(t *testing.T) {
	s := startBinary(t, "--idle-timeout", "300", "--pool-min-browsers", "2")
	s.waitBrowsers(0, "with no session for --idle-timeout")
	id := s.ok("create_session", nil)["sessionId"].(string)
	s.waitBrowsers(2, "once a session exists")
	s.ok("close_session", map[string]any{"sessionId": id})
	s.waitBrowsers(0, "after the last session closed")
}

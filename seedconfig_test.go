package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine/browserpath"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// seedConfig is the seed's own example configuration (seed 002 §7.2), as
// written.
const seedConfig = "testdata/seed-config.json"

// TestSeedConfigExample starts the binary with the seed's example file and
// holds an MCP session with it. Each key shows: name and version in
// serverInfo, logging.destination stdout going to stderr with a note (stdout
// carries the protocol), JSON logs, browser.args on the browser's command
// line, enableScriptEvaluation false removing evaluate, and allowedDomains
// *.example.com letting www.example.com load and refusing the test site.
// The example's hosts do not resolve here, so a proxy in the environment
// (a layer above the file) answers for them.
func TestSeedConfigExample(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	proxy, seen := proxyServer(t, "seed")
	t.Setenv("BROWSERMCP_PROXY_SERVER", proxy.URL)
	s := startBinary(t, "--config", seedConfig)

	if si := s.init.ServerInfo; si.Name != "playwright-mcp-server" || si.Version != "1.0.0" {
		t.Errorf("serverInfo = %+v, want playwright-mcp-server 1.0.0", si)
	}
	tools, err := s.c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if slices.Contains(names, "evaluate") || !slices.Contains(names, "upload_file") {
		t.Errorf("tools with enableScriptEvaluation false and enableFileUpload true: %v", names)
	}

	id := s.ok("create_session", nil)["sessionId"].(string)
	s.ok("navigate", map[string]any{"sessionId": id, "url": "http://www.example.com/"})
	if got := titleOf(s, id); got != "seed www.example.com" {
		t.Errorf("a page of an allowed domain has the title %q", got)
	}
	if _, ok := seen.Load("www.example.com"); !ok {
		t.Error("the page did not come through the proxy")
	}
	out, isErr := s.call("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
	if !isErr || out["errorCode"] != "NAVIGATION_BLOCKED" {
		t.Errorf("a page outside allowedDomains: %v", out)
	}

	pid := mainBrowserPID(s.tmp)
	if pid == 0 {
		t.Fatalf("no browser process under %s", s.tmp)
	}
	for _, sw := range []string{"no-sandbox", "disable-dev-shm-usage"} {
		if !hasSwitch(t, pid, sw) {
			t.Errorf("the browser lacks --%s from browser.args", sw)
		}
	}
	if got := switchValues(t, pid, "disable-features"); len(got) != 1 || !strings.Contains(got[0], "Translate") {
		t.Errorf("--disable-features = %q, want one value holding ours", got)
	}

	stderrMu.Lock()
	logs := s.stderr.String()
	stderrMu.Unlock()
	if strings.Count(logs, "logging.destination is stdout, but over stdio stdout carries the protocol: logging to stderr") != 1 {
		t.Errorf("stderr lacks the one note on logging.destination:\n%s", logs)
	}
	if !strings.Contains(logs, `"msg":"browser ready"`) {
		t.Errorf("stderr lacks the JSON log record of the browser's start:\n%s", logs)
	}
}

// hasSwitch reports whether process pid's command line has --name.
func hasSwitch(t *testing.T, pid int, name string) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	return slices.Contains(strings.Split(string(b), "\x00"), "--"+name)
}

// TestUserDataDir runs the default session on a persistent profile: a
// cookie and localStorage set in it are there again after the browser
// stopped for idleness, and after the server restarted, while a session
// created beside it stays isolated. Its cookies and tabs are the
// session's own. A profile in use, by another server or
// by another Chromium (its SingletonLock), is refused at startup, naming
// the directory. waitGone looks for the browser's switch, as the server's
// own command line names the profile too.
func TestUserDataDir(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	tmp := t.TempDir()
	profile := filepath.Join(tmp, "profile")
	page := site.URL + "/form.html"
	read := func(s *proc) string {
		s.ok("navigate", map[string]any{"url": page})
		return s.ok("evaluate", map[string]any{"script": "document.cookie + '|' + localStorage.getItem('k')"})["result"].(string)
	}
	const want = "k=v|stored"

	s := startBinaryIn(t, tmp, "--user-data-dir", profile, "--idle-timeout", "100", "--caps", "state")
	s.ok("navigate", map[string]any{"url": page})
	s.ok("evaluate", map[string]any{"script": "document.cookie = 'k=v; max-age=3600; path=/'; localStorage.setItem('k', 'stored'); true"})
	cookies, _ := s.ok("get_cookies", nil)["cookies"].([]any)
	if len(cookies) != 1 || cookies[0].(map[string]any)["name"] != "k" {
		t.Errorf("get_cookies of the profile's session = %v", cookies)
	}
	// The session's tabs are its pages in the browser's own context: one
	// at first (not the tab the browser started with), then the popup.
	s.ok("navigate", map[string]any{"url": site.URL + "/report.html"})
	if tabs := s.ok("tabs", map[string]any{"action": "list"})["tabs"].([]any); len(tabs) != 1 {
		t.Errorf("tabs of the profile's session = %v, want its one page", tabs)
	}
	if opened, _ := s.ok("click", map[string]any{"selector": "#popup"})["newTabs"].([]any); len(opened) != 1 {
		t.Errorf("a popup of the profile's session: newTabs = %v", opened)
	}
	if tabs := s.ok("tabs", map[string]any{"action": "list"})["tabs"].([]any); len(tabs) != 2 {
		t.Errorf("tabs after the popup = %v", tabs)
	}
	other := s.ok("create_session", nil)["sessionId"].(string)
	s.ok("navigate", map[string]any{"sessionId": other, "url": page})
	if got := s.ok("evaluate", map[string]any{"sessionId": other, "script": "document.cookie + '|' + localStorage.getItem('k')"})["result"]; got != "|null" {
		t.Errorf("a session beside the profile's sees %v", got)
	}

	// A second server on the same profile is refused while this one runs.
	profileRefused(t, profile, nil, "is in use by another browsermcp server")

	// The browser stops once no session is left (--idle-timeout), and the
	// next one starts on the same profile.
	s.ok("close_session", map[string]any{"sessionId": other})
	s.ok("close_session", map[string]any{"sessionId": "default"})
	waitGone(t, "--user-data-dir="+profile, "the last session closed")
	if got := read(s); got != want {
		t.Errorf("after the browser stopped and started again: %q, want %q", got, want)
	}

	s.c.Close()
	waitGone(t, "--user-data-dir="+profile, "the server stopped")
	s = startBinaryIn(t, tmp, "--user-data-dir", profile)
	if got := read(s); got != want {
		t.Errorf("after the server restarted: %q, want %q", got, want)
	}
	s.c.Close()
	waitGone(t, "--user-data-dir="+profile, "the server stopped")
	if _, err := os.Stat(filepath.Join(profile, "Default")); err != nil {
		t.Errorf("the profile is gone after the server stopped: %v", err)
	}

	// A Chromium of the user's runs on the profile (full Chromium marks it
	// with its SingletonLock; the headless shell we launch does not).
	full, err := browserpath.FindChromium("", false)
	if err != nil {
		testenv.NoBrowser(t, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	chromium := exec.CommandContext(ctx, full, "--headless", "--no-sandbox", "--user-data-dir="+profile, "--remote-debugging-port=0", "about:blank")
	if err := chromium.Start(); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, "Chromium to take the profile", func() (bool, error) {
		_, err := os.Readlink(filepath.Join(profile, "SingletonLock"))
		return err == nil, err
	})
	profileRefused(t, profile, nil, "is in use by another browser (process ")
	// Killed, it leaves its SingletonLock behind: a stale lock, which the
	// next server takes over.
	cancel()
	chromium.Wait()
	waitGone(t, "--user-data-dir="+profile, "Chromium was killed")
	s = startBinaryIn(t, tmp, "--user-data-dir", profile)
	if got := read(s); got != want {
		t.Errorf("after a Chromium of the user's used the profile: %q, want %q", got, want)
	}
	// The playwright engine has no persistent profile.
	refused(t, []string{"--user-data-dir", profile, "--engine", "playwright"}, "a persistent profile is cdp-only")
}

// profileRefused starts the binary on profile and wants it to exit at
// once with an error on stderr that names the directory.
func profileRefused(t *testing.T, profile string, more []string, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, buildBinary(t), append([]string{"--user-data-dir", profile}, more...)...)
	cmd.Env = append(os.Environ(), "DISPLAY=", "WAYLAND_DISPLAY=")
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("a server on a profile in use: exit = %v, want status 1; output:\n%s", err, out)
	}
	if !strings.Contains(string(out), profile) || !strings.Contains(string(out), want) {
		t.Errorf("the error does not name %s with %q:\n%s", profile, want, out)
	}
}

// TestDownloadPath saves each session's downloads under
// browser.downloadPath, in a directory of the session's that goes with it.
func TestDownloadPath(t *testing.T) {
	testenv.Chromium(t)
	site := testsite.Start()
	defer site.Close()
	dir := filepath.Join(t.TempDir(), "downloads")
	s := startBinary(t, "--download-path", dir)
	id := s.ok("create_session", nil)["sessionId"].(string)
	s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/report.html"})
	res := s.ok("click", map[string]any{"sessionId": id, "selector": "#attachment"})
	dls, _ := res["downloads"].([]any)
	if len(dls) != 1 {
		t.Fatalf("downloads = %v", res)
	}
	path, _ := dls[0].(map[string]any)["path"].(string)
	if path != filepath.Join(dir, id, "report.csv") {
		t.Fatalf("the download was saved to %q, want it under %s", path, dir)
	}
	if st, err := os.Stat(path); err != nil || st.Size() != 2048 {
		t.Fatalf("the saved file: %v %v", st, err)
	}
	s.ok("close_session", map[string]any{"sessionId": id})
	testenv.Eventually(t, "the session's download directory to go with it", func() (bool, error) {
		_, err := os.Stat(filepath.Join(dir, id))
		return errors.Is(err, os.ErrNotExist), err
	})
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("the download directory itself is gone: %v", err)
	}
}

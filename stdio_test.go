package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testenv/mcpcheck"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// The tests in this file build browsermcp and drive it over stdio with an
// MCP client, as an MCP host does: lifecycle, signals, browser crashes and
// attaching to a running Chromium.

// binary builds browsermcp once per test run.
var binary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "browsermcp-bin")
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, "browsermcp")
	out, err := exec.Command("go", "build", "-o", p, ".").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return p, nil
})

// proc is the built binary running over stdio, with its own TMPDIR so
// that its browser processes can be found by their profile directory. It
// runs without a display and without --headless.
type proc struct {
	t      *testing.T
	c      *mcpcheck.Client // checks every result against its output schema
	tmp    string
	stderr *bytes.Buffer
	cmd    *exec.Cmd
	init   *mcp.InitializeResult
}

func startBinary(t *testing.T, args ...string) *proc {
	t.Helper()
	return startBinaryIn(t, t.TempDir(), args...)
}

// startBinaryIn is startBinary with tmp as the server's TMPDIR.
func startBinaryIn(t *testing.T, tmp string, args ...string) *proc {
	t.Helper()
	testenv.Chromium(t)
	bin, err := binary()
	if err != nil {
		t.Fatal(err)
	}
	s := &proc{t: t, tmp: tmp, stderr: &bytes.Buffer{}}
	// No display and no --headless: the server must notice and run headless.
	env := append(driverEnv(), "TMPDIR="+tmp, "DISPLAY=", "WAYLAND_DISPLAY=")
	c, err := client.NewStdioMCPClientWithOptions(bin, env, args,
		transport.WithCommandFunc(func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
			cmd := exec.CommandContext(ctx, command, args...)
			cmd.Env = env
			s.cmd = cmd
			return cmd, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := client.GetStderr(c); ok {
		go io.Copy(syncWriter{s.stderr}, r)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.c = mcpcheck.Wrap(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if s.init, err = c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return s
}

var stderrMu sync.Mutex

type syncWriter struct{ b *bytes.Buffer }

func (w syncWriter) Write(p []byte) (int, error) {
	stderrMu.Lock()
	defer stderrMu.Unlock()
	return w.b.Write(p)
}

// callTimeout bounds a call on the built binary. It is there only to stop
// a hang, so it is long, as engine/enginetest's is: the first call waits
// for the browser's launch, which a machine running the other packages'
// browsers and a Grid beside it (two cores) can stretch past a minute.
const callTimeout = 3 * time.Minute

func (s *proc) call(name string, args map[string]any) (map[string]any, bool) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := s.c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		s.t.Fatalf("%s: %v", name, err)
	}
	return mcpcheck.Body(res), res.IsError
}

func (s *proc) ok(name string, args map[string]any) map[string]any {
	s.t.Helper()
	out, isErr := s.call(name, args)
	if isErr {
		s.t.Fatalf("%s failed: %v", name, out)
	}
	return out
}

// browserPIDs lists the processes whose command line mentions dir.
func browserPIDs(dir string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Contains(b, []byte(dir)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// mainBrowserPID returns the browser process (not a helper) under dir.
func mainBrowserPID(dir string) int {
	for _, pid := range browserPIDs(dir) {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if !bytes.Contains(b, []byte("--type=")) {
			return pid
		}
	}
	return 0
}

// waitGone waits for every browser process under dir to exit; what says
// after what, for the failure message.
func waitGone(t *testing.T, dir, what string) {
	t.Helper()
	// A child (the network service, which writes the profile) can outlive
	// the main process for a moment, and one can fork just as it dies and
	// show up after an empty look: gone means several empty looks in a row.
	quiet := 0
	testenv.Eventually(t, "the browser processes to exit after "+what, func() (bool, error) {
		for ; quiet < 3; quiet++ {
			if pids := browserPIDs(dir); len(pids) > 0 {
				quiet = 0
				return false, fmt.Errorf("processes left: %v", pids)
			}
			time.Sleep(20 * time.Millisecond)
		}
		return true, nil
	})
}

func TestStdioBinaryEndToEnd(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := startBinary(t)

	tools, err := s.c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range tools.Tools {
		names[tl.Name] = true
	}
	for _, n := range []string{"create_session", "close_session", "list_sessions", "navigate", "click", "type"} {
		if !names[n] {
			t.Errorf("tool %s missing from tools/list", n)
		}
	}

	a := s.ok("create_session", nil)["sessionId"].(string)
	b := s.ok("create_session", nil)["sessionId"].(string)
	s.ok("navigate", map[string]any{"sessionId": a, "url": site.URL + "/form.html"})
	s.ok("navigate", map[string]any{"sessionId": b, "url": site.URL + "/storage.html"})
	s.ok("type", map[string]any{"sessionId": a, "selector": "#user", "text": "bin"})
	out := s.ok("click", map[string]any{"sessionId": a, "selector": "#go"})
	if !strings.Contains(out["url"].(string), "user=bin") {
		t.Fatalf("click: %v", out)
	}
	if n := len(s.ok("list_sessions", nil)["sessions"].([]any)); n != 2 {
		t.Fatalf("%d sessions listed", n)
	}
	body, isErr := s.call("click", map[string]any{"sessionId": b, "selector": "#none", "timeout": 100})
	if !isErr || body["errorCode"] != "ELEMENT_NOT_FOUND" {
		t.Fatalf("error over stdio: %v", body)
	}
	s.ok("close_session", map[string]any{"sessionId": b})

	if len(browserPIDs(s.tmp)) == 0 {
		t.Fatal("no browser process found under the server's TMPDIR")
	}
	// stdin EOF shuts the server down and takes the browser with it.
	s.c.Close()
	waitGone(t, s.tmp, "stdin EOF")
	stderrMu.Lock()
	defer stderrMu.Unlock()
	if n := strings.Count(s.stderr.String(), "running the browser headless"); n != 1 {
		t.Fatalf("the no-display notice appeared %d times on stderr:\n%s", n, s.stderr.String())
	}
}

// pools are the browser pools the shutdown tests run with: today's one
// browser, and a pool of two, each with a session.
var pools = []struct {
	name     string
	args     []string
	browsers int
}{
	{"one browser", nil, 1},
	{"pool of two", []string{"--pool-min-browsers", "2", "--pool-max-browsers", "2"}, 2},
}

// sessionPerBrowser opens a session on each of the server's n browsers.
func (s *proc) sessionPerBrowser(n int) {
	s.t.Helper()
	for range n {
		s.ok("create_session", nil)
	}
	s.waitBrowsers(n, "with a session each")
}

func TestSIGTERMShutsDown(t *testing.T) {
	for _, p := range pools {
		t.Run(p.name, func(t *testing.T) {
			s := startBinary(t, p.args...)
			s.sessionPerBrowser(p.browsers)
			if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			waitGone(t, s.tmp, "SIGTERM")
		})
	}
}

func TestSIGKILLLeavesNoBrowser(t *testing.T) {
	for _, p := range pools {
		t.Run(p.name, func(t *testing.T) {
			s := startBinaryIn(t, killedTempDir(t), p.args...)
			s.sessionPerBrowser(p.browsers)
			if err := s.cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			waitGone(t, s.tmp, "the server was SIGKILLed")
		})
	}
}

// killedTempDir is a TMPDIR for a server the test kills: what the killed
// browser's last helper processes still write there (crash reports) may
// land while t.TempDir's cleanup removes it, so this one is removed until
// it is gone.
func killedTempDir(t *testing.T) string {
	tmp, err := os.MkdirTemp("", "browsermcp-killed-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		testenv.Eventually(t, "the killed server's TMPDIR to be removed", func() (bool, error) {
			err := os.RemoveAll(tmp)
			return err == nil, err
		})
	})
	return tmp
}

// TestSIGKILLsLeaveNoProfile kills the server several times, then starts
// it once more: that start sweeps every profile the killed ones left, and
// a clean exit removes its own.
func TestSIGKILLsLeaveNoProfile(t *testing.T) {
	for _, p := range pools {
		t.Run(p.name, func(t *testing.T) { sigkillsLeaveNoProfile(t, p.args, p.browsers) })
	}
}

func sigkillsLeaveNoProfile(t *testing.T, args []string, browsers int) {
	tmp := killedTempDir(t)
	runtimeDir := filepath.Join(tmp, "browsermcp-runtime")
	const kills = 3
	for range kills {
		s := startBinaryIn(t, tmp, args...)
		s.sessionPerBrowser(browsers)
		if err := s.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		waitGone(t, tmp, "the server was SIGKILLed")
		// A killed server cannot remove its profiles: the next start
		// does, so exactly the last one's are there.
		if ents, _ := os.ReadDir(runtimeDir); len(ents) != browsers {
			t.Fatalf("%d profiles in the runtime directory after a SIGKILL (%v); want the killed server's %d", len(ents), ents, browsers)
		}
	}
	s := startBinaryIn(t, tmp, args...)
	s.sessionPerBrowser(browsers)
	ents, _ := os.ReadDir(runtimeDir)
	if len(ents) != browsers {
		t.Fatalf("the runtime directory holds %d entries after the next start (%v); want the %d live profiles", len(ents), ents, browsers)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "chromedp-runner*")); len(left) > 0 {
		t.Fatalf("profiles outside the runtime directory: %v", left)
	}
	s.c.Close()
	waitGone(t, tmp, "stdin EOF")
	testenv.Eventually(t, "the live profile to be removed on exit", func() (bool, error) {
		ents, err := os.ReadDir(runtimeDir)
		return err == nil && len(ents) == 0, fmt.Errorf("left: %v (%v)", ents, err)
	})
}

func TestBrowserCrashFreesEverySlotAndRelaunches(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := startBinary(t, "--max-sessions", "2")
	ids := []string{s.ok("create_session", nil)["sessionId"].(string), s.ok("create_session", nil)["sessionId"].(string)}
	for _, id := range ids {
		s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
	}
	if body, isErr := s.call("create_session", nil); !isErr || body["errorCode"] != "MAX_SESSIONS_REACHED" {
		t.Fatalf("a third session: %v; want MAX_SESSIONS_REACHED", body)
	}
	pid := mainBrowserPID(s.tmp)
	if pid == 0 {
		t.Fatal("no browser process")
	}
	killed := time.Now()
	syscall.Kill(pid, syscall.SIGKILL)
	// Both slots come free without any call on the dead sessions.
	var fresh []string
	testenv.Eventually(t, "two new sessions to be created after the browser died", func() (bool, error) {
		body, isErr := s.call("create_session", nil)
		if !isErr {
			fresh = append(fresh, body["sessionId"].(string))
		}
		return len(fresh) == 2, fmt.Errorf("create_session answered %v", body)
	})
	out := s.ok("navigate", map[string]any{"sessionId": fresh[0], "url": site.URL + "/form.html"})
	if out["title"] != "Sign in" {
		t.Fatalf("after relaunch: %v", out)
	}
	t.Logf("from the browser's SIGKILL to a new session's page: %s", time.Since(killed).Round(time.Millisecond))
	for _, id := range ids {
		body, isErr := s.call("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
		if !isErr || body["errorCode"] != "BROWSER_CRASHED" || body["retryable"] != true || body["suggestion"] == nil {
			t.Fatalf("first call on a dead session: %v; want BROWSER_CRASHED, retryable, with a suggestion", body)
		}
		body, isErr = s.call("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
		if !isErr || body["errorCode"] != "SESSION_NOT_FOUND" {
			t.Fatalf("second call on a dead session: %v; want SESSION_NOT_FOUND", body)
		}
	}
}

func TestInitializeDoesNotWaitForBrowser(t *testing.T) {
	// A "browser" that never answers: initialize and tools/list must still
	// work, because the browser starts in the background.
	dir := t.TempDir()
	fake := filepath.Join(dir, "slow-browser")
	os.WriteFile(fake, []byte("#!/bin/sh\nsleep 60\n"), 0o755)
	testenv.Chromium(t)
	bin, err := binary()
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.NewStdioMCPClient(bin, nil, "--headless", "--executable-path", fake)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil {
		t.Fatal(err)
	}
}

func TestAttachToRunningChromium(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	chromium := testenv.Chromium(t)
	profile := t.TempDir()
	args := []string{"--headless", "--remote-debugging-port=0", "--user-data-dir=" + profile,
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "about:blank"}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	browser := exec.Command(chromium, args...)
	// Debian's launchers are shell scripts that do not exec: kill the group.
	browser.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := browser.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { syscall.Kill(-browser.Process.Pid, syscall.SIGKILL); browser.Wait() }()
	var port string
	testenv.Eventually(t, "the test browser to report its debugging port", func() (bool, error) {
		b, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort"))
		port = strings.SplitN(string(b), "\n", 2)[0]
		return err == nil && port != "", err
	})
	endpoint := "http://127.0.0.1:" + port
	// The user's own tab, which we must never close.
	userTab := newTab(t, endpoint, site.URL+"/welcome.html?user=owner")

	for _, ep := range []string{endpoint, wsEndpoint(t, endpoint)} {
		s := startBinary(t, "--cdp-endpoint", ep)
		id := s.ok("create_session", nil)["sessionId"].(string)
		out := s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
		if out["title"] != "Sign in" {
			t.Fatalf("navigate via %s: %v", ep, out)
		}
		if !hasTab(t, endpoint, site.URL+"/form.html") {
			t.Fatal("our session's page is not in the attached browser")
		}
		s.c.Close()
		s.cmd.Wait()
		if browser.ProcessState != nil {
			t.Fatal("the attached browser exited with our server")
		}
		if !hasTab(t, endpoint, userTab) {
			t.Fatalf("the user's tab was closed (endpoint %s)", ep)
		}
		if hasTab(t, endpoint, site.URL+"/form.html") {
			t.Fatalf("our session's tab outlived the server (endpoint %s)", ep)
		}
	}

	// The domain policy holds the sessions' pages, not the user's: a tab the
	// user opens while the server runs loads a host the policy blocks.
	other := strings.Replace(site.URL, "127.0.0.1", "localhost", 1)
	s := startBinary(t, "--cdp-endpoint", endpoint, "--blocked-domains", "localhost")
	id := s.ok("create_session", nil)["sessionId"].(string)
	if out, isErr := s.call("navigate", map[string]any{"sessionId": id, "url": other + "/form.html"}); !isErr || out["errorCode"] != "NAVIGATION_BLOCKED" {
		t.Fatalf("navigate to a blocked host: %v", out)
	}
	mine := newTab(t, endpoint, other+"/welcome.html?user=owner2")
	testenv.Eventually(t, "the user's tab on a host the policy blocks for sessions to load", func() (bool, error) {
		p := tabTitle(t, endpoint, mine)
		if p == nil {
			return false, errors.New("the tab is not listed")
		}
		return *p == "Welcome", fmt.Errorf("the tab's title is %q, want Welcome", *p)
	})
	s.c.Close()
	s.cmd.Wait()
}

type tabInfo struct {
	URL   string `json:"url"`
	Title string `json:"title"`
	Type  string `json:"type"`
	WS    string `json:"webSocketDebuggerUrl"`
}

func newTab(t *testing.T, endpoint, url string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPut, endpoint+"/json/new?"+url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	testenv.Eventually(t, "the user's tab to open", func() (bool, error) { return hasTab(t, endpoint, url), nil })
	return url
}

func hasTab(t *testing.T, endpoint, url string) bool {
	t.Helper()
	return tabTitle(t, endpoint, url) != nil
}

// tabTitle returns the title of the browser's page at url, nil if none.
func tabTitle(t *testing.T, endpoint, url string) *string {
	t.Helper()
	resp, err := http.Get(endpoint + "/json/list")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tabs []tabInfo
	json.NewDecoder(resp.Body).Decode(&tabs)
	for _, tb := range tabs {
		if tb.Type == "page" && tb.URL == url {
			return &tb.Title
		}
	}
	return nil
}

func wsEndpoint(t *testing.T, endpoint string) string {
	t.Helper()
	resp, err := http.Get(endpoint + "/json/version")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v struct {
		WS string `json:"webSocketDebuggerUrl"`
	}
	json.NewDecoder(resp.Body).Decode(&v)
	if !strings.HasPrefix(v.WS, "ws://") {
		t.Fatalf("no ws endpoint: %v", v)
	}
	return v.WS
}

func TestBrowserThatNeverStartsFailsCreateSession(t *testing.T) {
	testenv.Chromium(t)
	dir := t.TempDir()
	fake := filepath.Join(dir, "dead-browser")
	os.WriteFile(fake, []byte("#!/bin/sh\nsleep 60\n"), 0o755)
	bin, err := binary()
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.NewStdioMCPClient(bin, []string{"BROWSERMCP_LAUNCH_TIMEOUT=1s"}, "--headless", "--executable-path", fake)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c.Start(ctx)
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "create_session"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(mcpcheck.Body(res))
	if !res.IsError || !strings.Contains(string(b), `"errorCode":"BROWSER_ERROR"`) || !strings.Contains(string(b), "did not start") {
		t.Fatalf("create_session with a dead browser: %s", b)
	}
}

// TestCapsFlagOverStdio checks that --caps reaches the server: the opt-in
// groups it names are listed, the others are not.
func TestCapsFlagOverStdio(t *testing.T) {
	s := startBinary(t, "--caps", "network,pdf")
	res, err := s.c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range res.Tools {
		names[tl.Name] = true
	}
	for n, want := range map[string]bool{"navigate": true, "block_resource": true, "get_request_log": true, "pdf": true,
		"get_console_messages": false, "get_cookies": false, "mouse_click": false} {
		if names[n] != want {
			t.Errorf("--caps network,pdf: %s listed = %v, want %v", n, names[n], want)
		}
	}
}

// TestTabsAfterBlockedPopup: a page on an allowed host opens a popup to a
// refused one; listing the tabs right after must not report a crash.
func TestTabsAfterBlockedPopup(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := startBinary(t, "--allowed-domains", "127.0.0.1")
	id := s.ok("create_session", nil)["sessionId"].(string)
	for i := range 5 {
		s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/policy.html"})
		s.ok("click", map[string]any{"sessionId": id, "selector": "#popup"})
		body, isErr := s.call("tabs", map[string]any{"sessionId": id, "action": "list"})
		if isErr {
			t.Fatalf("trial %d: tabs list after a blocked popup: %v", i, body)
		}
	}
	testenv.Eventually(t, "the blocked popups to leave the tab list", func() (bool, error) {
		body := s.ok("tabs", map[string]any{"sessionId": id, "action": "list"})
		tabs, _ := body["tabs"].([]any)
		return len(tabs) == 1, fmt.Errorf("tabs: %v", body)
	})
}

// TestRendererKillRecoversOnNavigate kills the renderer processes of the
// server's one session: the next navigate opens a new page in the same
// browser context, keeps the cookies, and says so.
func TestRendererKillRecoversOnNavigate(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := startBinary(t)
	id := s.ok("create_session", nil)["sessionId"].(string)
	s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/welcome.html?user=before"})
	s.ok("evaluate", map[string]any{"sessionId": id, "script": `() => { document.cookie = "kept=yes; path=/"; return true }`})
	renderers := renderersOf(mainBrowserPID(s.tmp))
	if len(renderers) == 0 {
		t.Fatal("no renderer process found")
	}
	for _, pid := range renderers {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	testenv.Eventually(t, "a call to report the renderer crash", func() (bool, error) {
		body, isErr := s.call("snapshot", map[string]any{"sessionId": id})
		return isErr && body["errorCode"] == "BROWSER_CRASHED", fmt.Errorf("snapshot answered %v", body)
	})
	out := s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/welcome.html?user=after"})
	if out["recovered"] == nil || !strings.Contains(out["url"].(string), "user=after") {
		t.Fatalf("navigate after the renderer was killed: %v; want the page and recovered", out)
	}
	res := s.ok("evaluate", map[string]any{"sessionId": id, "script": "() => document.cookie"})
	if !strings.Contains(fmt.Sprint(res["result"]), "kept=yes") {
		t.Fatalf("cookies after recovery: %v", res)
	}
}

// renderersOf lists the renderer processes descending from the browser
// process pid (they are the zygote's children, and their command lines do
// not name the profile).
func renderersOf(browser int) []int {
	parent := func(pid int) int {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return 0
		}
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		ppid, _ := strconv.Atoi(f[1])
		return ppid
	}
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if !bytes.Contains(b, []byte("--type=renderer")) {
			continue
		}
		for p := parent(pid); p > 1; p = parent(p) {
			if p == browser {
				out = append(out, pid)
				break
			}
		}
	}
	return out
}

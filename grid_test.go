package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/grid"
	"github.com/seed4af8c199/browsermcp/internal/httpserve"
	"github.com/seed4af8c199/browsermcp/internal/httpservetest"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
	"github.com/seed4af8c199/browsermcp/tools"
)

// These tests run against a real Selenium Grid that each starts on
// 127.0.0.1 (testenv.StartGrid): they skip without java, unless
// BROWSERMCP_REQUIRE_BROWSER=1.

// gridArgs are the binary's flags for sessions on g.
func gridArgs(t *testing.T, g *testenv.Grid, more ...string) []string {
	return append([]string{"--grid-url", g.URL, "--headless", "--executable-path", testenv.Chromium(t)}, more...)
}

// webDriverSession creates a Grid session by hand, as another client would,
// and returns its capabilities; the test deletes it at the end.
func webDriverSession(t *testing.T, g *testenv.Grid) map[string]any {
	t.Helper()
	args := []string{"--headless=new"}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	body, _ := json.Marshal(map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"browserName": "chrome", "goog:chromeOptions": map[string]any{"binary": testenv.Chromium(t), "args": args}}}})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, g.URL+"/session", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Value struct {
			SessionID    string         `json:"sessionId"`
			Capabilities map[string]any `json:"capabilities"`
		} `json:"value"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Value.SessionID == "" {
		t.Fatalf("WebDriver New Session: %s %v %v", resp.Status, err, r)
	}
	t.Cleanup(func() {
		req, _ := http.NewRequest(http.MethodDelete, g.URL+"/session/"+r.Value.SessionID, nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	})
	return r.Value.Capabilities
}

// TestCDPEndpointForms attaches the built binary to one Grid browser in
// each of the three forms of --cdp-endpoint: its DevTools host, its browser
// websocket, and the Grid's se:cdp proxy (which has no /json/version). A
// wrong or unreachable endpoint stops the binary at startup with status 2,
// naming it, and without a panic.
func TestCDPEndpointForms(t *testing.T) {
	g := testenv.StartGrid(t)
	site := testsite.Start()
	defer site.Close()
	caps := webDriverSession(t, g)
	devtools := "http://" + caps["goog:chromeOptions"].(map[string]any)["debuggerAddress"].(string)
	seCDP := caps["se:cdp"].(string)
	forms := map[string]string{"DevToolsHost": devtools, "BrowserWebsocket": wsEndpoint(t, devtools), "GridSeCDP": seCDP}
	for name, ep := range forms {
		t.Run(name, func(t *testing.T) {
			s := startBinary(t, "--cdp-endpoint", ep)
			id := s.ok("create_session", nil)["sessionId"].(string)
			out := s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html?via=" + name})
			if out["title"] != "Sign in" {
				t.Fatalf("navigate via %s: %v", ep, out)
			}
			// The page is the Grid browser's, whichever way we came in.
			if !hasTab(t, devtools, site.URL+"/form.html?via="+name) {
				t.Fatalf("the session's page is not in the Grid's browser")
			}
		})
	}

	bin := buildBinary(t)
	bad := map[string]string{
		"UnknownGridSession": strings.Replace(seCDP, "/session/", "/session/0000", 1),
		"NothingListens":     "http://127.0.0.1:1",
		"GridIsNoDevTools":   g.URL,
		"NotAURL":            "ftp://127.0.0.1:1/x",
	}
	for name, ep := range bad {
		t.Run("Bad"+name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "--cdp-endpoint", ep)
			cmd.Stdin = strings.NewReader("")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 {
				t.Fatalf("exit = %v, want status 2; stderr:\n%s", err, stderr.String())
			}
			if !strings.Contains(stderr.String(), "--cdp-endpoint "+ep) || strings.Contains(stderr.String(), "panic") {
				t.Fatalf("stderr must name the endpoint and hold no panic:\n%s", stderr.String())
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout must stay clean for MCP, got %q", stdout.String())
			}
		})
	}
}

// TestGridSessions runs sessions on a Grid through the built binary: each
// is a Grid session labelled with our id, with the session's options, and
// deleted with ours; a browser that dies fails its own session only, with
// BROWSER_CRASHED.
func TestGridSessions(t *testing.T) {
	g := testenv.StartGrid(t, "--max-sessions", "2")
	site := testsite.Start()
	defer site.Close()
	s := startBinary(t, gridArgs(t, g)...)
	a := s.ok("create_session", map[string]any{"viewport": map[string]any{"width": 900, "height": 700}, "locale": "de-DE"})["sessionId"].(string)
	b := s.ok("create_session", nil)["sessionId"].(string)
	ga, gb := g.Session(t, a), g.Session(t, b)
	if ga == nil || gb == nil || len(g.Sessions(t)) != 2 {
		t.Fatalf("sessions %s and %s are not both on the Grid: %v", a, b, g.Sessions(t))
	}
	if owner, ok := ga.Capabilities["bmcp:owner"]; !ok || owner != "" {
		t.Fatalf("bmcp:owner over stdio = %v, %v; want the empty owner", owner, ok)
	}
	for _, id := range []string{a, b} {
		s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
	}
	out := s.ok("evaluate", map[string]any{"sessionId": a, "script": "[innerWidth, innerHeight, navigator.language]"})
	if got := fmt.Sprint(out["result"]); got != "[900 700 de-DE]" {
		t.Fatalf("session a's viewport and locale = %s, want [900 700 de-DE]", got)
	}

	g.KillBrowser(t, *ga)
	testenv.Eventually(t, "session a to answer BROWSER_CRASHED", func() (bool, error) {
		out, isErr := s.call("get_text", map[string]any{"sessionId": a, "selector": "h1"})
		return isErr && out["errorCode"] == "BROWSER_CRASHED", fmt.Errorf("get_text: %v", out)
	})
	if out := s.ok("get_text", map[string]any{"sessionId": b, "selector": "h1"}); out["text"] == "" {
		t.Fatalf("session b after a's browser died: %v", out)
	}

	s.ok("close_session", map[string]any{"sessionId": b})
	s.ok("close_session", map[string]any{"sessionId": a})
	testenv.Eventually(t, "the Grid sessions to be deleted with ours", func() (bool, error) {
		left := g.Sessions(t)
		return len(left) == 0, fmt.Errorf("left on the Grid: %v", left)
	})
}

// TestGridReportsWhatActionsCaused: a click on a Grid session reports
// what it caused, as on a local one: the tab a target=_blank link opened,
// the file a download link saved (into --download-path), and the console
// errors its handler logged. The Grid's session wraps engine/cdp's, and
// these reports used to stop at the wrapper: all three came back empty.
func TestGridReportsWhatActionsCaused(t *testing.T) {
	g := testenv.StartGrid(t)
	site := testsite.Start()
	defer site.Close()
	dl := filepath.Join(t.TempDir(), "downloads")
	s := startBinary(t, gridArgs(t, g, "--download-path", dl)...)
	id := s.ok("create_session", nil)["sessionId"].(string)
	s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/report.html"})

	res := s.ok("click", map[string]any{"sessionId": id, "selector": "#blank"})
	tabs, _ := res["newTabs"].([]any)
	if len(tabs) != 1 || tabs[0].(map[string]any)["index"] != float64(1) {
		t.Fatalf("a click on a target=_blank link: newTabs = %v", res)
	}
	if list := s.ok("tabs", map[string]any{"sessionId": id, "action": "list"})["tabs"].([]any); len(list) != 2 {
		t.Fatalf("the session has %d tabs after the click, want 2: %v", len(list), list)
	}

	res = s.ok("click", map[string]any{"sessionId": id, "selector": "#attachment"})
	dls, _ := res["downloads"].([]any)
	if len(dls) != 1 {
		t.Fatalf("a click on a download link: downloads = %v", res)
	}
	d := dls[0].(map[string]any)
	path, _ := d["path"].(string)
	if d["state"] != "completed" || path != filepath.Join(dl, id, "report.csv") {
		t.Fatalf("download %v: want completed at %s", d, filepath.Join(dl, id, "report.csv"))
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != 2048 || d["bytes"] != float64(2048) {
		t.Fatalf("the downloaded file %s: %v, %v; result %v; want 2048 bytes", path, fi, err, d)
	}

	res = s.ok("click", map[string]any{"sessionId": id, "selector": "#errors"})
	if n, _ := res["consoleErrors"].(float64); n < 2 {
		t.Fatalf("a click whose handler logs two console errors: consoleErrors = %v", res)
	}
}

// TestGridQueue fills a one-slot Grid: a second create_session waits in
// the Grid's queue and gets the browser the first one frees; with nothing
// freed it answers MAX_SESSIONS_REACHED, retryable, saying the Grid is
// full, both when our --grid-queue-timeout ends the wait and when the
// Grid's own --session-request-timeout does. The request we gave up on
// leaves no session on the Grid.
func TestGridQueue(t *testing.T) {
	g := testenv.StartGrid(t, "--max-sessions", "1", "--session-request-timeout", "15")
	short := startBinary(t, gridArgs(t, g, "--grid-queue-timeout", "1500")...)
	long := startBinary(t, gridArgs(t, g, "--grid-queue-timeout", "60000")...)

	first := long.ok("create_session", nil)["sessionId"].(string)
	full := func(s *proc, what string) {
		t.Helper()
		out, isErr := s.call("create_session", nil)
		details, _ := out["details"].(map[string]any)
		if !isErr || out["errorCode"] != "MAX_SESSIONS_REACHED" || out["retryable"] != true || details["reason"] != "grid_full" {
			t.Fatalf("create_session on a full Grid (%s): %v", what, out)
		}
	}
	full(short, "our queue timeout")
	full(long, "the Grid's request timeout")

	var wg sync.WaitGroup
	var second map[string]any
	var secondErr bool
	wg.Go(func() { second, secondErr = long.call("create_session", nil) })
	testenv.Eventually(t, "the second create_session to wait in the Grid's queue", func() (bool, error) {
		var r struct {
			Data struct {
				Grid struct {
					SessionQueueSize int `json:"sessionQueueSize"`
				} `json:"grid"`
			} `json:"data"`
		}
		err := postJSON(g.URL+"/graphql", map[string]string{"query": "{ grid { sessionQueueSize } }"}, &r)
		return err == nil && r.Data.Grid.SessionQueueSize > 0, err
	})
	long.ok("close_session", map[string]any{"sessionId": first})
	wg.Wait()
	if secondErr {
		t.Fatalf("the queued create_session, once a browser was free: %v", second)
	}
	id := second["sessionId"].(string)
	testenv.Eventually(t, "only the queued session to hold the Grid", func() (bool, error) {
		ss := g.Sessions(t)
		return len(ss) == 1 && ss[0].Capabilities["bmcp:sessionId"] == id, fmt.Errorf("Grid sessions: %v", ss)
	})
	long.ok("close_session", map[string]any{"sessionId": id})
}

// TestGridOwner checks, over the HTTP transport, that a Grid session
// carries its owner's key identity (bmcp:owner) and that another API key
// cannot use it.
func TestGridOwner(t *testing.T) {
	g := testenv.StartGrid(t)
	eng, err := grid.New(grid.Config{URL: g.URL, Headless: true, ExecPath: testenv.Chromium(t),
		Viewport: engine.Viewport{Width: 800, Height: 600}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	srv := httpservetest.Start(t, eng, tools.Options{})
	a, b := srv.HTTPClient(t, httpservetest.KeyA), srv.HTTPClient(t, httpservetest.KeyB)
	id := a.OK("create_session", nil)["sessionId"].(string)
	gs := g.Session(t, id)
	if gs == nil || gs.Capabilities["bmcp:owner"] != httpserve.KeyIdentity(httpservetest.KeyA) {
		t.Fatalf("Grid session of %s: %v, want bmcp:owner %s", id, gs, httpserve.KeyIdentity(httpservetest.KeyA))
	}
	b.Fail(engine.SessionNotFound, "navigate", map[string]any{"sessionId": id, "url": "about:blank"})
	a.OK("navigate", map[string]any{"sessionId": id, "url": "about:blank"})
}

func postJSON(url string, body, out any) error {
	b, _ := json.Marshal(body)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	return json.NewDecoder(resp.Body).Decode(out)
}

// TestGridNodeDies runs two sessions on a hub with two one-slot nodes, so
// that each lands on its own node (as the Grid's GraphQL API shows), then
// kills one node with its browsers as a machine that dies would: that
// node's session answers BROWSER_CRASHED, and the session on the other node
// carries on.
func TestGridNodeDies(t *testing.T) {
	g := testenv.StartGridHub(t, 2, 1)
	site := testsite.Start()
	defer site.Close()
	s := startBinary(t, gridArgs(t, g)...)
	a := s.ok("create_session", nil)["sessionId"].(string)
	b := s.ok("create_session", nil)["sessionId"].(string)
	for _, id := range []string{a, b} {
		s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
	}
	ga, gb := g.Session(t, a), g.Session(t, b)
	if ga == nil || gb == nil {
		t.Fatalf("sessions %s and %s are not both on the Grid: %v", a, b, g.Sessions(t))
	}
	na, nb := g.NodeOf(t, ga.ID), g.NodeOf(t, gb.ID)
	if na == nil || nb == nil || na == nb {
		t.Fatalf("the sessions are not on two nodes: %v and %v", na, nb)
	}

	na.Kill()
	testenv.Eventually(t, "the session on the killed node to answer BROWSER_CRASHED", func() (bool, error) {
		out, isErr := s.call("get_text", map[string]any{"sessionId": a, "selector": "h1"})
		return isErr && out["errorCode"] == "BROWSER_CRASHED", fmt.Errorf("get_text: %v", out)
	})
	s.ok("type", map[string]any{"sessionId": b, "selector": "#user", "text": "still here"})
	out := s.ok("evaluate", map[string]any{"sessionId": b, "script": "document.querySelector('#user').value"})
	if out["result"] != "still here" {
		t.Fatalf("the session on the other node after the kill: %v", out)
	}
	if g.NodeOf(t, gb.ID) != nb {
		t.Fatalf("session b is no longer on its node")
	}
	s.ok("close_session", map[string]any{"sessionId": b})
	testenv.Eventually(t, "session b's Grid session to be deleted with ours", func() (bool, error) {
		return g.Session(t, b) == nil, errors.New("still on the Grid")
	})
}

// TestGridShutdown: a server that shuts down (stdin EOF) deletes the Grid
// sessions it holds, as close_session does; with --grid-keep-sessions it
// leaves them on the Grid for another replica to adopt.
func TestGridShutdown(t *testing.T) {
	g := testenv.StartGrid(t, "--max-sessions", "2")
	s := startBinary(t, gridArgs(t, g)...)
	id := s.ok("create_session", nil)["sessionId"].(string)
	if g.Session(t, id) == nil {
		t.Fatalf("session %s is not on the Grid: %v", id, g.Sessions(t))
	}
	s.c.Close()
	testenv.Eventually(t, "the Grid session to be deleted at shutdown", func() (bool, error) {
		left := g.Sessions(t)
		return len(left) == 0, fmt.Errorf("left on the Grid: %v", left)
	})

	k := startBinary(t, gridArgs(t, g, "--grid-keep-sessions")...)
	kept := k.ok("create_session", nil)["sessionId"].(string)
	k.c.Close()
	testenv.Eventually(t, "the server to exit", func() (bool, error) {
		return k.cmd.ProcessState != nil, errors.New("still running")
	})
	if g.Session(t, kept) == nil {
		t.Fatalf("with --grid-keep-sessions the session %s left the Grid at shutdown: %v", kept, g.Sessions(t))
	}
}

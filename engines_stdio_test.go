package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine/pw"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testenv/mcpcheck"
	"github.com/seed4af8c199/browsermcp/internal/testenv/pwenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// buildBinary returns the binary built for this test run.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin, err := binary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// driverEnv is the environment with the repository's Playwright driver,
// unless the caller already points PLAYWRIGHT_DRIVER_PATH elsewhere.
func driverEnv() []string {
	env := os.Environ()
	if os.Getenv(pw.EnvDriverPath) == "" {
		env = append(env, pw.EnvDriverPath+"="+testenv.PlaywrightDriverDir())
	}
	return env
}

// TestStartupFailsFast checks that a missing browser or driver, or flags
// that do not fit together, stop the binary at startup with a message that
// says what to do, before it serves anything.
func TestStartupFailsFast(t *testing.T) {
	pwenv.Playwright(t, pw.Chromium) // the driver must exist for the WebKit case
	bin := buildBinary(t)
	type tc struct {
		name   string
		args   []string
		env    []string
		status int
		stderr []string
	}
	cases := []tc{
		{"DriverMissing", []string{"--browser", "firefox", "--headless"}, []string{pw.EnvDriverPath + "=" + t.TempDir()}, 1,
			[]string{"playwright driver 1.52.0 not found", "`browsermcp install driver`", "npm install playwright-core@1.52.0"}},
		{"FirefoxMissing", []string{"--browser", "firefox", "--headless", "--executable-path", "/nonexistent/firefox"}, nil, 1,
			[]string{"is not an executable Firefox"}},
		{"EngineCannotDriveBrowser", []string{"--engine", "cdp", "--browser", "firefox"}, nil, 2,
			[]string{"--engine cdp drives only chromium", "--engine playwright"}},
		{"UnknownEngine", []string{"--engine", "selenium"}, nil, 2, []string{`invalid value "selenium" for flag -engine`}},
		{"DomainRulesNeedCDP", []string{"--browser", "firefox", "--allowed-domains", "example.com"}, nil, 2,
			[]string{"allowedDomains/blockedDomains are enforced only by --engine cdp"}},
		{"EndpointNeedsCDP", []string{"--engine", "playwright", "--cdp-endpoint", "http://127.0.0.1:9222"}, nil, 2,
			[]string{"--cdp-endpoint needs --engine cdp"}},
	}
	if _, err := pw.New(pw.Config{Browser: pw.WebKit, DriverDir: testenv.PlaywrightDriverDir()}); err != nil {
		// Playwright's WebKit build cannot be installed here; where it is,
		// TestEnginesOverStdio drives it instead.
		cases = append(cases, tc{"WebKitMissing", []string{"--browser", "webkit", "--headless"}, nil, 1,
			[]string{"Playwright's WebKit build is not installed", "install --with-deps webkit", "--executable-path"}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, c.args...)
			cmd.Env = append(driverEnv(), c.env...)
			// A server that started would serve this stdin and exit 0.
			cmd.Stdin = strings.NewReader("")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != c.status {
				t.Fatalf("exit = %v, want status %d; stderr:\n%s", err, c.status, stderr.String())
			}
			for _, want := range c.stderr {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
				}
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout must stay clean for MCP, got %q", stdout.String())
			}
		})
	}
}

// TestEnginesOverStdio drives the built binary over stdio with an MCP client
// on each engine and browser: a form submission, and an error whose code
// must be the same everywhere.
func TestEnginesOverStdio(t *testing.T) {
	type tc struct{ name, browser string }
	cases := []tc{{"cdp/chromium", pw.Chromium}, {"playwright/chromium", pw.Chromium}, {"playwright/firefox", pw.Firefox}}
	if _, err := pw.New(pw.Config{Browser: pw.WebKit, DriverDir: testenv.PlaywrightDriverDir()}); err == nil {
		cases = append(cases, tc{"playwright/webkit", pw.WebKit})
	}
	testenv.Chromium(t)
	pwenv.Playwright(t, pw.Firefox)
	bin := buildBinary(t)
	site := testsite.Start()
	defer site.Close()
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, "/", "_"), func(t *testing.T) {
			engineName, _, _ := strings.Cut(c.name, "/")
			var stderr bytes.Buffer
			raw, err := client.NewStdioMCPClientWithOptions(bin, driverEnv(),
				[]string{"--headless", "--engine", engineName, "--browser", c.browser, "--dialogs", "accept"},
				transport.WithCommandStderrWriter(&stderr))
			if err != nil {
				t.Fatal(err)
			}
			cl := mcpcheck.Wrap(t, raw)
			defer cl.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if _, err := cl.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
				t.Fatal(err)
			}
			call := func(name string, args map[string]any) (map[string]any, bool) {
				t.Helper()
				res, err := cl.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
				if err != nil {
					t.Fatalf("%s: %v\nstderr:\n%s", name, err, stderr.String())
				}
				out := mcpcheck.Body(res)
				if out == nil {
					t.Fatalf("%s: no JSON object in %+v", name, res)
				}
				return out, res.IsError
			}
			ok := func(name string, args map[string]any) map[string]any {
				t.Helper()
				out, isErr := call(name, args)
				if isErr {
					t.Fatalf("%s(%v) failed: %v\nstderr:\n%s", name, args, out, stderr.String())
				}
				return out
			}
			id := ok("create_session", nil)["sessionId"].(string)
			ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
			// The snapshot's refs drive the form on every engine.
			snap, _ := ok("snapshot", map[string]any{"sessionId": id})["snapshot"].(string)
			ok("type", map[string]any{"sessionId": id, "ref": testenv.RefOf(t, snap, "textbox", "Username"), "text": "ada"})
			ok("click", map[string]any{"sessionId": id, "ref": testenv.RefOf(t, snap, "button", "Sign in")})
			sessions := ok("list_sessions", nil)["sessions"].([]any)
			if len(sessions) != 1 || sessions[0].(map[string]any)["title"] != "Welcome" {
				t.Fatalf("list_sessions after the submission = %v", sessions)
			}
			ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/covered.html"})
			out, isErr := call("click", map[string]any{"sessionId": id, "selector": "#buy", "timeout": 300})
			if !isErr || out["errorCode"] != "ELEMENT_NOT_CLICKABLE" {
				t.Fatalf("covered click = %v, want ELEMENT_NOT_CLICKABLE", out)
			}
			// --dialogs accept answers a confirm at once and reports it.
			ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/dialogs.html"})
			out = ok("click", map[string]any{"sessionId": id, "selector": "#confirm"})
			if d, _ := out["dialog"].(map[string]any); d == nil || d["handled"] != "accepted" {
				t.Fatalf("confirm under --dialogs accept = %v", out)
			}
			testenv.Eventually(t, "the accepted confirm to let the page go on", func() (bool, error) {
				title := ok("list_sessions", nil)["sessions"].([]any)[0].(map[string]any)["title"]
				return title == "confirmed", fmt.Errorf("the title is %v", title)
			})
			// The form actions report what their change handlers caused:
			// a language picker that loads a page, a checkbox that opens
			// a tab (issue 24).
			ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/actions.html"})
			out = ok("check", map[string]any{"sessionId": id, "selector": "#popup"})
			if tabs, _ := out["newTabs"].([]any); len(tabs) != 1 || out["url"] != nil {
				t.Fatalf("check that opens a tab = %v, want one newTabs and no url", out)
			}
			out = ok("select", map[string]any{"sessionId": id, "selector": "#lang", "values": []any{"fr"}})
			if u, _ := out["url"].(string); !strings.HasSuffix(u, "/welcome.html?user=fr") || out["title"] != "Welcome" {
				t.Fatalf("select whose onchange navigates = %v, want the new page's url and title", out)
			}
		})
	}
}

// TestFirefoxHistoryOverStdio: on Firefox, go_back and go_forward between
// pages the back/forward cache keeps (the binary's defaults route no
// request, which would keep them out of it) took the navigation timeout
// and answered NAVIGATION_FAILED no_history, though the page had gone
// back: WebDriver BiDi reports no navigation for a restored document.
func TestFirefoxHistoryOverStdio(t *testing.T) {
	pwenv.Playwright(t, pw.Firefox)
	bin := buildBinary(t)
	// Each response closes its connection, as an HTTP/1.0 server's does:
	// with testsite's kept-alive connections Firefox reports the steps.
	files := http.FileServer(http.Dir(testsite.Dir()))
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		files.ServeHTTP(w, r)
	}))
	defer site.Close()
	var stderr bytes.Buffer
	raw, err := client.NewStdioMCPClientWithOptions(bin, driverEnv(), []string{"--headless", "--browser", "firefox"},
		transport.WithCommandStderrWriter(&stderr))
	if err != nil {
		t.Fatal(err)
	}
	cl := mcpcheck.Wrap(t, raw)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := cl.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	ok := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res, err := cl.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %v\nstderr:\n%s", name, err, mcpcheck.Body(res), stderr.String())
		}
		return mcpcheck.Body(res)
	}
	id := ok("create_session", nil)["sessionId"].(string)
	ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/reorder.html"})
	ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/modal.html"})
	for _, step := range []struct{ tool, path, title string }{
		{"go_back", "/reorder.html", "Reorder"}, {"go_forward", "/modal.html", "Modal"}, {"go_back", "/reorder.html", "Reorder"},
	} {
		out := ok(step.tool, map[string]any{"sessionId": id, "timeout": 10000})
		if out["url"] != site.URL+step.path || out["title"] != step.title {
			t.Fatalf("%s: %v", step.tool, out)
		}
		if got := ok("evaluate", map[string]any{"sessionId": id, "script": "location.pathname"})["result"]; got != step.path {
			t.Fatalf("the page after %s: %v", step.tool, got)
		}
	}
}

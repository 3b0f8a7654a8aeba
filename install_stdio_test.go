package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine/pw"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testenv/mcpcheck"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// The tests in this file run the binary as a user who installed only the
// binary (npx, go install) does: without a checkout, with an empty home,
// and without PLAYWRIGHT_DRIVER_PATH.

// bareEnv is the environment of such a user: home is an empty directory
// (the user's cache directory is under it), and neither
// PLAYWRIGHT_DRIVER_PATH nor XDG_CACHE_HOME is set.
func bareEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "XDG_CACHE_HOME", pw.EnvDriverPath, "PLAYWRIGHT_NODEJS_PATH", "PLAYWRIGHT_BROWSERS_PATH", "npm_config_cache":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "DISPLAY=", "WAYLAND_DISPLAY=")
}

// runBare runs the binary with args in dir (not a checkout) under env,
// and returns its exit status, stdout and stderr.
func runBare(t *testing.T, timeout time.Duration, dir string, env []string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, buildBinary(t), args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin = strings.NewReader("")
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%v did not finish within %v; stderr:\n%s", args, timeout, stderr.String())
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, stdout.String(), stderr.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), stdout.String(), stderr.String()
	}
	t.Fatalf("%v: %v", args, err)
	return 0, "", ""
}

// TestInstallDriverThenFirefox installs the Playwright driver with the
// binary alone, into an empty home, and then serves --browser firefox over
// stdio with it: a session navigates a page. Before the install, the
// server refuses to start and names the install command.
func TestInstallDriverThenFirefox(t *testing.T) {
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.NoBrowser(t, err)
		}
	}
	if _, err := pw.FindExecutable(pw.Firefox, "", pw.Driver{}); err != nil {
		testenv.NoBrowser(t, err)
	}
	home, work := t.TempDir(), t.TempDir()
	env := bareEnv(home)

	// Without the driver: exit 1, naming the command that installs it.
	code, stdout, stderr := runBare(t, time.Minute, work, env, "--browser", "firefox", "--headless")
	if code != 1 || !strings.Contains(stderr, "playwright driver "+pw.DriverVersion+" not found") || !strings.Contains(stderr, "`browsermcp install driver`") {
		t.Fatalf("without a driver: exit %d, stderr:\n%s", code, stderr)
	}
	if stdout != "" {
		t.Errorf("the refused server wrote to stdout: %q", stdout)
	}

	code, stdout, stderr = runBare(t, 12*time.Minute, work, env, "install", "driver")
	dir := filepath.Join(home, ".cache", "browsermcp", "pwdriver-"+pw.DriverVersion)
	if code != 0 || !strings.Contains(stderr, "is in "+dir) {
		t.Fatalf("install driver: exit %d, stderr:\n%s", code, stderr)
	}
	if stdout != "" {
		t.Errorf("install wrote to stdout, the protocol's channel: %q", stdout)
	}
	if drv, err := pw.FindDriver(dir); err != nil || drv.Dir != dir {
		t.Fatalf("after install driver, %s holds no driver: %v", dir, err)
	}
	if link, err := os.Readlink(filepath.Join(dir, "node")); err != nil || !filepath.IsAbs(link) {
		t.Errorf("%s/node = %q, %v; want a link to the system's node", dir, link, err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(home, ".cache", "browsermcp", ".pwdriver-*"))
	if len(leftovers) > 0 {
		t.Errorf("install left its work directories: %v", leftovers)
	}

	// Again, and with Firefox: nothing to fetch, and Firefox is found.
	code, _, stderr = runBare(t, 2*time.Minute, work, env, "install", "firefox")
	if code != 0 || !strings.Contains(stderr, "already in "+dir) || !strings.Contains(stderr, "Firefox is at ") {
		t.Fatalf("install firefox: exit %d, stderr:\n%s", code, stderr)
	}

	site := testsite.Start()
	defer site.Close()
	var serr bytes.Buffer
	raw, err := client.NewStdioMCPClientWithOptions(buildBinary(t), env, []string{"--browser", "firefox", "--headless"},
		transport.WithCommandStderrWriter(&serr),
		transport.WithCommandFunc(func(ctx context.Context, command string, env []string, args []string) (*exec.Cmd, error) {
			cmd := exec.CommandContext(ctx, command, args...)
			cmd.Env, cmd.Dir = env, work
			return cmd, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	c := mcpcheck.Wrap(t, raw)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		t.Fatalf("initialize: %v\nstderr:\n%s", err, serr.String())
	}
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %v\nstderr:\n%s", name, err, res, serr.String())
		}
		out, _ := res.StructuredContent.(map[string]any)
		return out
	}
	id, _ := call("create_session", nil)["sessionId"].(string)
	nav := call("navigate", map[string]any{"sessionId": id, "url": site.URL + "/welcome.html"})
	if nav["title"] != "Welcome" {
		t.Errorf("navigate = %v, want the page's title Welcome", nav)
	}
	got := call("evaluate", map[string]any{"sessionId": id, "script": "() => navigator.userAgent"})["result"]
	if ua, _ := got.(string); !strings.Contains(ua, "Firefox/") {
		t.Errorf("the page's user agent is %v, want Firefox's", got)
	}
}

// TestInstallWebKitFailsClearly checks that install webkit says what it
// would need instead of trying a download, and that a bad target is a
// usage error.
func TestInstallWebKitFailsClearly(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env := bareEnv(home)
	code, stdout, stderr := runBare(t, time.Minute, work, env, "install", "webkit")
	for _, want := range []string{"webkit cannot be installed by browsermcp", "Playwright's CDN", "install --with-deps webkit", "--browser firefox or chromium"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("install webkit: stderr lacks %q:\n%s", want, stderr)
		}
	}
	if code != 1 || stdout != "" {
		t.Errorf("install webkit: exit %d, stdout %q; want 1 and nothing", code, stdout)
	}
	if ents, _ := os.ReadDir(home); len(ents) > 0 {
		t.Errorf("install webkit wrote into the home directory: %v", ents)
	}
	for _, args := range [][]string{{"install"}, {"install", "safari"}} {
		code, stdout, stderr := runBare(t, time.Minute, work, env, args...)
		if code != 2 || !strings.Contains(stderr, "Usage: browsermcp install driver|firefox|chromium|webkit") || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr:\n%s", args, code, stdout, stderr)
		}
	}
	// serve is the server, as no subcommand is.
	if code, stdout, _ := runBare(t, time.Minute, work, env, "serve", "--version"); code != 0 || !strings.HasPrefix(stdout, "browsermcp ") {
		t.Errorf("serve --version: exit %d, stdout %q", code, stdout)
	}
}

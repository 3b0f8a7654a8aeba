package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/internal/httpservetest"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testenv/mcpcheck"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// rootsHolder is a client's roots, which the test changes.
type rootsHolder struct {
	mu    sync.Mutex
	dirs  []string
	asked int
}

func (h *rootsHolder) set(dirs ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dirs = dirs
}

func (h *rootsHolder) ListRoots(ctx context.Context, _ mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.asked++
	res := &mcp.ListRootsResult{Roots: []mcp.Root{}}
	for _, d := range h.dirs {
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(d)}
		res.Roots = append(res.Roots, mcp.Root{URI: u.String(), Name: filepath.Base(d)})
	}
	return res, nil
}

func (h *rootsHolder) times() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.asked
}

// handshake is an initialize request pinned to the last protocol version
// with the initialize handshake.
func handshake() mcp.InitializeRequest {
	var r mcp.InitializeRequest
	r.Params.ProtocolVersion = "2025-11-25"
	r.Params.ClientInfo = mcp.Implementation{Name: "roots-test", Version: "1"}
	return r
}

// errorCodeOf reads the errorCode of an error result from its text
// content, where every error result carries our error JSON.
func errorCodeOf(t *testing.T, res *mcp.CallToolResult) (code, message string) {
	t.Helper()
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			var e struct{ ErrorCode, Message string }
			if json.Unmarshal([]byte(tc.Text), &e) == nil && e.ErrorCode != "" {
				return e.ErrorCode, e.Message
			}
		}
	}
	t.Fatalf("no error JSON in the result's text: %+v", res.Content)
	return "", ""
}

// uploadTo uploads path into input.html's #one and returns the result
// and, on success, what the page saw (its title).
func uploadTo(t *testing.T, ctx context.Context, c *mcpcheck.Client, id, path string) (*mcp.CallToolResult, string) {
	t.Helper()
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "upload_file",
		Arguments: map[string]any{"sessionId": id, "selector": "#one", "files": []string{path}}}})
	if err != nil {
		t.Fatalf("upload_file: %v", err)
	}
	if res.IsError {
		return res, ""
	}
	ev, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "evaluate",
		Arguments: map[string]any{"sessionId": id, "script": "() => document.title"}}})
	if err != nil || ev.IsError {
		t.Fatalf("evaluate: %v %+v", err, ev)
	}
	out, _ := ev.StructuredContent.(map[string]any)
	title, _ := out["result"].(string)
	return res, title
}

// openInput creates a session on input.html and returns its id.
func openInput(t *testing.T, ctx context.Context, c *mcpcheck.Client, site string) string {
	t.Helper()
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "create_session"}})
	if err != nil || res.IsError {
		t.Fatalf("create_session: %v %+v", err, res)
	}
	id, _ := res.StructuredContent.(map[string]any)["sessionId"].(string)
	res, err = c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "navigate",
		Arguments: map[string]any{"sessionId": id, "url": site + "/input.html"}}})
	if err != nil || res.IsError {
		t.Fatalf("navigate: %v %+v", err, res)
	}
	return id
}

// writeFile writes a small file named name in dir and returns its path.
func writeFile(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("root test"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestClientRootsOverStdio checks that over stdio the directories of the
// client's MCP roots are open to file tools, as in playwright-mcp: an
// upload from a root succeeds, one from outside is refused with
// INVALID_PARAMETERS, and a change of roots the client announces is
// followed.
func TestClientRootsOverStdio(t *testing.T) {
	testenv.Chromium(t)
	site := testsite.Start()
	defer site.Close()
	project, other := t.TempDir(), t.TempDir()
	inProject, inOther := writeFile(t, project, "in-project.txt"), writeFile(t, other, "in-other.txt")
	roots := &rootsHolder{}
	roots.set(project)

	var stderr bytes.Buffer
	tr := transport.NewStdioWithOptions(buildBinary(t),
		append(os.Environ(), "TMPDIR="+t.TempDir(), "DISPLAY=", "WAYLAND_DISPLAY="), []string{"--headless"})
	raw := client.NewClient(tr, client.WithRootsHandler(roots))
	c := mcpcheck.Wrap(t, raw)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// Start's context bounds the process, so it must outlive the test.
	if err := raw.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r, ok := client.GetStderr(raw); ok {
		go io.Copy(syncWriter{&stderr}, r)
	}
	// The initialize handshake, as the official SDKs and hosts make it
	// (mcp-go's client would otherwise try its stateless protocol first).
	if _, err := c.Initialize(ctx, handshake()); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	id := openInput(t, ctx, c, site.URL)

	res, seen := uploadTo(t, ctx, c, id, inProject)
	if res.IsError || seen != "files in-project.txt:9" {
		stderrMu.Lock()
		defer stderrMu.Unlock()
		t.Fatalf("upload from the client's root: %+v, the page saw %q; roots asked %d times\nstderr:\n%s", res.Content, seen, roots.times(), stderr.String())
	}
	res, _ = uploadTo(t, ctx, c, id, inOther)
	if code, msg := errorCodeOf(t, res); !res.IsError || code != "INVALID_PARAMETERS" || !strings.Contains(msg, "the MCP client's roots") || !strings.Contains(msg, project) {
		t.Fatalf("upload from outside the roots: error %v, %s: %s", res.IsError, code, msg)
	}
	asked := roots.times()
	if asked == 0 {
		t.Fatal("the server never asked the client for its roots")
	}

	// The roots are kept until the client says they changed.
	uploadTo(t, ctx, c, id, inProject)
	if n := roots.times(); n != asked {
		t.Errorf("roots/list asked %d times for unchanged roots, want %d", n, asked)
	}
	roots.set(other)
	if err := raw.RootListChanges(ctx); err != nil {
		t.Fatal(err)
	}
	if res, seen := uploadTo(t, ctx, c, id, inOther); res.IsError || seen != "files in-other.txt:9" {
		t.Fatalf("upload from the new root: error %v, the page saw %q", res.IsError, seen)
	}
	if res, _ := uploadTo(t, ctx, c, id, inProject); !res.IsError {
		t.Fatal("upload from a root the client dropped succeeded")
	} else if code, _ := errorCodeOf(t, res); code != "INVALID_PARAMETERS" {
		t.Fatalf("upload from a dropped root: %s", code)
	}

	// A root is a directory: a link in it that leads outside does not
	// open the outside.
	link := filepath.Join(other, "escape")
	if err := os.Symlink(project, link); err != nil {
		t.Fatal(err)
	}
	if res, _ := uploadTo(t, ctx, c, id, filepath.Join(link, "in-project.txt")); !res.IsError {
		t.Fatal("an upload through a link out of the root succeeded")
	}
}

// TestClientRootsIgnoredOverHTTP checks that over HTTP a client's roots
// open nothing: they name directories of the client's machine.
func TestClientRootsIgnoredOverHTTP(t *testing.T) {
	testenv.Chromium(t)
	site := testsite.Start()
	defer site.Close()
	project := t.TempDir()
	inProject := writeFile(t, project, "in-project.txt")
	roots := &rootsHolder{}
	roots.set(project)

	s := startHTTPBinary(t, "--headless")
	tr, err := transport.NewStreamableHTTP(s.url+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + httpservetest.KeyA}))
	if err != nil {
		t.Fatal(err)
	}
	raw := client.NewClient(tr, client.WithRootsHandler(roots))
	if err := raw.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	c := mcpcheck.Wrap(t, raw)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if _, err := c.Initialize(ctx, handshake()); err != nil {
		t.Fatal(err)
	}
	id := openInput(t, ctx, c, site.URL)
	res, _ := uploadTo(t, ctx, c, id, inProject)
	if !res.IsError {
		t.Fatal("over HTTP, an upload from the client's root succeeded")
	}
	if code, msg := errorCodeOf(t, res); code != "INVALID_PARAMETERS" || strings.Contains(msg, "roots") {
		t.Fatalf("over HTTP: %s: %s", code, msg)
	}
	if n := roots.times(); n != 0 {
		t.Errorf("over HTTP the server asked for the client's roots %d times", n)
	}
}

// TestClientRootsTypeScriptSDK offers a root from the official TypeScript
// SDK's client over stdio, as Claude Code and VS Code do: an upload from
// the root succeeds and one from outside it is refused.
func TestClientRootsTypeScriptSDK(t *testing.T) {
	testenv.Chromium(t)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	dir, _ := filepath.Abs(filepath.Join("internal", "httpserve", "testdata", "tsclient"))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Skipf("the TypeScript SDK is not installed (make tsclient): %v", err)
	}
	site := testsite.Start()
	defer site.Close()
	project, other := t.TempDir(), t.TempDir()
	inProject, inOther := writeFile(t, project, "in-project.txt"), writeFile(t, other, "in-other.txt")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "roots.mjs", buildBinary(t), site.URL+"/input.html", project, inProject, inOther)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir(), "DISPLAY=", "WAYLAND_DISPLAY=")
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node roots.mjs: %v\n%s\n%s", err, out, stderr.String())
	}
	var got struct {
		Inside, Outside struct {
			IsError   bool
			ErrorCode string
			Title     string
		}
		Asked int
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.Inside.IsError || got.Inside.Title != "files in-project.txt:9" {
		t.Errorf("upload from the root: %+v\n%s", got.Inside, stderr.String())
	}
	if !got.Outside.IsError || got.Outside.ErrorCode != "INVALID_PARAMETERS" {
		t.Errorf("upload from outside the root: %+v", got.Outside)
	}
	if got.Asked == 0 {
		t.Error("the server never asked the TypeScript client for its roots")
	}
}

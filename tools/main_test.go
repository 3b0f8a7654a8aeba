package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/cdp"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testenv/mcpcheck"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
	"github.com/seed4af8c199/browsermcp/tools"
)

// One browser and one test site serve every test; each test gets its own
// Manager and MCP client, so its sessions are its own browser contexts.
var (
	browserOnce  sync.Once
	sharedEngine engine.Engine
	browserErr   error
	site         *httptest.Server
)

func TestMain(m *testing.M) {
	site = testsite.Start()
	code := m.Run()
	if sharedEngine != nil {
		sharedEngine.Close()
	}
	if sharedFirefox != nil {
		sharedFirefox.Close()
	}
	site.Close()
	os.Exit(code)
}

// sharedBrowser returns the shared browser, launching it on first use, or
// skips tb when there is none. A run that needs no browser, such as a
// fuzzer and each of its worker processes, launches none.
func sharedBrowser(tb testing.TB) engine.Engine {
	tb.Helper()
	browserOnce.Do(func() {
		path, err := testenv.ChromiumPath()
		if err != nil {
			browserErr = err
			return
		}
		e := cdp.New(cdp.Config{ExecPath: path, Headless: true, Viewport: engine.Viewport{Width: 1280, Height: 720}})
		e.Start()
		sharedEngine = e
	})
	if sharedEngine == nil {
		testenv.NoBrowser(tb, browserErr)
	}
	return sharedEngine
}

type env struct {
	t   testing.TB
	c   *mcpcheck.Client // checks every result against its output schema
	mgr *sessions.Manager
	out string // the server's output directory
}

// newEnv returns an MCP client, connected in-process, to a server with its
// own session manager on the shared browser and every tool group on.
func newEnv(t testing.TB, cfg sessions.Config) *env {
	return newEnvWith(t, cfg, tools.Options{Version: "test", Caps: []tools.Group{tools.All}})
}

func newEnvWith(t testing.TB, cfg sessions.Config, opts tools.Options) *env {
	t.Helper()
	return newEnvOnWith(t, sharedBrowser(t), cfg, opts)
}

// newEnvOnWith is newEnvWith on the engine eng.
func newEnvOnWith(t testing.TB, eng engine.Engine, cfg sessions.Config, opts tools.Options) *env {
	t.Helper()
	if cfg.Timeout == 0 {
		cfg.Timeout = time.Minute
	}
	if cfg.MaxSessions == 0 {
		cfg.MaxSessions = 20
	}
	cfg.Defaults.Viewport = engine.Viewport{Width: 1280, Height: 720}
	if opts.OutputDir == "" {
		opts.OutputDir = t.TempDir()
	}
	mgr := sessions.New(eng, cfg)
	srv := tools.NewServer(mgr, opts)
	c, err := client.NewInProcessClient(srv)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		mgr.Shutdown(context.Background())
		c.Close()
	})
	return &env{t: t, c: mcpcheck.Wrap(t, c), mgr: mgr, out: opts.OutputDir}
}

// call runs a tool and returns its structured result and isError.
func (e *env) call(name string, args map[string]any) (map[string]any, bool) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := e.c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		e.t.Fatalf("%s: protocol error: %v", name, err)
	}
	return decode(e.t, res), res.IsError
}

func decode(t testing.TB, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	var text string
	if len(res.Content) > 0 {
		if tc, ok := mcp.AsTextContent(res.Content[0]); ok {
			text = tc.Text
		}
	}
	var fromText map[string]any
	if err := json.Unmarshal([]byte(text), &fromText); err != nil {
		t.Fatalf("text content is not JSON: %q", text)
	}
	if res.IsError {
		// An error's JSON is only in its text: structuredContent answers
		// the output schema, which describes the tool's success.
		if res.StructuredContent != nil {
			t.Fatalf("error result carries structuredContent: %v", res.StructuredContent)
		}
		return fromText
	}
	b, _ := json.Marshal(res.StructuredContent)
	var structured map[string]any
	if err := json.Unmarshal(b, &structured); err != nil {
		t.Fatalf("structuredContent is not an object: %s", b)
	}
	// An action's changes are data in structuredContent, and lines in a
	// second text block (changes.go).
	if c, ok := structured["changes"]; ok {
		var lines string
		if len(res.Content) == 2 {
			if tc, ok := mcp.AsTextContent(res.Content[1]); ok {
				lines = tc.Text
			}
		}
		if lines == "" {
			t.Fatalf("a result with changes has no text block of them: %v", res.Content)
		}
		delete(structured, "changes")
		defer func() { structured["changes"] = c }()
	}
	if fmt.Sprint(structured) != fmt.Sprint(fromText) {
		t.Fatalf("structuredContent %v differs from text %v", structured, fromText)
	}
	return structured
}

// ok calls a tool that must succeed.
func (e *env) ok(name string, args map[string]any) map[string]any {
	e.t.Helper()
	out, isErr := e.call(name, args)
	if isErr {
		e.t.Fatalf("%s(%v) failed: %v", name, args, out)
	}
	return out
}

// fail calls a tool that must fail with code, and returns the error body.
func (e *env) fail(code engine.Code, name string, args map[string]any) map[string]any {
	e.t.Helper()
	out, isErr := e.call(name, args)
	if !isErr {
		e.t.Fatalf("%s(%v) succeeded, want %s: %v", name, args, code, out)
	}
	if out["errorCode"] != string(code) {
		e.t.Fatalf("%s(%v) errorCode = %v, want %s: %v", name, args, out["errorCode"], code, out)
	}
	if out["message"] == "" || out["message"] == nil {
		e.t.Fatalf("%s: error without message: %v", name, out)
	}
	if _, ok := out["retryable"].(bool); !ok {
		e.t.Fatalf("%s: error without retryable: %v", name, out)
	}
	return out
}

// session creates a session and returns its id.
func (e *env) session() string {
	e.t.Helper()
	return e.ok("create_session", nil)["sessionId"].(string)
}

// open creates a session on a test page.
func (e *env) open(path string) string {
	e.t.Helper()
	id := e.session()
	e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + path})
	return id
}

// title returns the session's page title as list_sessions reports it. Test
// pages write their state into the title, so tests observe the page only
// through the MCP interface.
func (e *env) title(id string) string {
	e.t.Helper()
	for _, s := range e.ok("list_sessions", nil)["sessions"].([]any) {
		m := s.(map[string]any)
		if m["sessionId"] == id {
			return m["title"].(string)
		}
	}
	e.t.Fatalf("session %s not listed", id)
	return ""
}

var jsonMarshal = json.Marshal

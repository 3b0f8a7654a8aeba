package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/cdp"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
	"github.com/seed4af8c199/browsermcp/tools"
)

// One browser and one test site serve every test in this package.
var (
	sharedEngine engine.Engine
	browserErr   error
	site         *httptest.Server
)

func TestMain(m *testing.M) {
	site = testsite.Start()
	if path, err := testenv.ChromiumPath(); err != nil {
		browserErr = err
	} else {
		e := cdp.New(cdp.Config{ExecPath: path, Headless: true, Viewport: engine.Viewport{Width: 800, Height: 600}})
		e.Start()
		sharedEngine = e
	}
	code := m.Run()
	if sharedEngine != nil {
		sharedEngine.Close()
	}
	site.Close()
	os.Exit(code)
}

const (
	keyA = "key-a-0123456789"
	keyB = "key-b-0123456789"
)

// testServer is the HTTP transport over its own Manager on the shared browser.
type testServer struct {
	url string
	mgr *engine.Manager
}

func startServer(t *testing.T, opts tools.Options) *testServer {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	if sharedEngine == nil {
		testenv.NoBrowser(t, browserErr)
	}
	mgr := engine.NewManager(sharedEngine, engine.ManagerConfig{Timeout: time.Minute, MaxSessions: 20,
		Defaults: engine.SessionOptions{Viewport: engine.Viewport{Width: 800, Height: 600}}})
	opts.Version, opts.Log = "test", log
	srv := tools.NewServer(mgr, opts)
	h := newHTTPHandler(srv, []string{keyA, keyB}, allowedHosts(config{Host: "127.0.0.1", AllowedHosts: []string{"mcp.example.test"}}), log)
	hs := httptest.NewServer(h)
	t.Cleanup(func() {
		h.sse.CloseSessions()
		hs.CloseClientConnections()
		hs.Close()
		mgr.Shutdown(context.Background())
	})
	return &testServer{url: hs.URL, mgr: mgr}
}

func connect(t *testing.T, c *client.Client) *client.Client {
	t.Helper()
	// Start's context bounds the SSE stream, so it must outlive the test.
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func httpClient(t *testing.T, s *testServer, key string) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(s.url+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + key}))
	if err != nil {
		t.Fatal(err)
	}
	return connect(t, c)
}

func sseClient(t *testing.T, s *testServer, key string) *client.Client {
	t.Helper()
	c, err := client.NewSSEMCPClient(s.url+"/sse", transport.WithHeaders(map[string]string{"Authorization": "Bearer " + key}))
	if err != nil {
		t.Fatal(err)
	}
	return connect(t, c)
}

// call runs a tool and decodes its JSON text result.
func call(t *testing.T, c *client.Client, name string, args map[string]any) (map[string]any, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	// structuredContent is the result; the text is the same JSON except for
	// tools whose text is an outline (snapshot).
	var out map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out, res.IsError
}

func ok(t *testing.T, c *client.Client, name string, args map[string]any) map[string]any {
	t.Helper()
	out, isErr := call(t, c, name, args)
	if isErr {
		t.Fatalf("%s(%v) failed: %v", name, args, out)
	}
	return out
}

func failCode(t *testing.T, c *client.Client, code engine.Code, name string, args map[string]any) {
	t.Helper()
	out, isErr := call(t, c, name, args)
	if !isErr || out["errorCode"] != string(code) {
		t.Fatalf("%s(%v) = %v, want %s", name, args, out, code)
	}
}

func sessionIDs(t *testing.T, c *client.Client) []string {
	t.Helper()
	var ids []string
	for _, s := range ok(t, c, "list_sessions", nil)["sessions"].([]any) {
		ids = append(ids, s.(map[string]any)["sessionId"].(string))
	}
	return ids
}

func TestAuth(t *testing.T) {
	s := startServer(t, tools.Options{})
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	cases := []struct {
		name, method, path, auth, host, origin string
		status                                 int
		errCode                                string
	}{
		{"no key", "POST", "/mcp", "", "", "", 401, "unauthorized"},
		{"not bearer", "POST", "/mcp", "Basic " + keyA, "", "", 401, "unauthorized"},
		{"wrong key", "POST", "/mcp", "Bearer wrong-key-123", "", "", 403, "forbidden"},
		{"good key", "POST", "/mcp", "Bearer " + keyA, "", "", 200, ""},
		{"sse without key", "GET", "/sse", "", "", "", 401, "unauthorized"},
		{"message with wrong key", "POST", "/message?sessionId=x", "Bearer nope-nope-nope", "", "", 403, "forbidden"},
		{"rebinding host", "POST", "/mcp", "Bearer " + keyA, "evil.example.com", "", 403, "forbidden_host"},
		{"extra allowed host", "POST", "/mcp", "Bearer " + keyA, "mcp.example.test:8080", "", 200, ""},
		{"localhost host", "POST", "/mcp", "Bearer " + keyA, "localhost:1234", "", 200, ""},
		{"foreign origin", "POST", "/mcp", "Bearer " + keyA, "", "http://evil.example.com", 403, "forbidden_origin"},
		{"local origin", "POST", "/mcp", "Bearer " + keyA, "", "http://localhost:3000", 200, ""},
		{"healthz", "GET", "/healthz", "", "", "", 200, ""},
		{"healthz rebinding", "GET", "/healthz", "", "evil.example.com", "", 403, "forbidden_host"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var body io.Reader
			if tc.method == "POST" {
				body = strings.NewReader(init)
			}
			req, _ := http.NewRequest(tc.method, s.url+tc.path, body)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			if tc.host != "" {
				req.Host = tc.host
			}
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			if res.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", res.StatusCode, tc.status, b)
			}
			if tc.errCode != "" {
				var e map[string]string
				if err := json.Unmarshal(b, &e); err != nil || e["error"] != tc.errCode || e["message"] == "" {
					t.Fatalf("body %s, want error %q", b, tc.errCode)
				}
			}
		})
	}
}

func TestOwnershipAcrossKeys(t *testing.T) {
	s := startServer(t, tools.Options{})
	a := httpClient(t, s, keyA)
	b := sseClient(t, s, keyB)
	idA := ok(t, a, "create_session", nil)["sessionId"].(string)
	ok(t, a, "navigate", map[string]any{"sessionId": idA, "url": site.URL + "/welcome.html"})

	if got := sessionIDs(t, b); len(got) != 0 {
		t.Fatalf("key B sees sessions %v", got)
	}
	failCode(t, b, engine.SessionNotFound, "navigate", map[string]any{"sessionId": idA, "url": site.URL + "/form.html"})
	failCode(t, b, engine.SessionNotFound, "close_session", map[string]any{"sessionId": idA})
	ctx := context.Background()
	if _, err := b.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "browser:///session/" + idA}}); err == nil || !strings.Contains(err.Error(), "SESSION_NOT_FOUND") {
		t.Fatalf("key B read A's session resource: %v", err)
	}

	// A new connection with the same key keeps the session: sessions are
	// keyed by our sessionId, not by the transport's connection.
	a.Close()
	a2 := sseClient(t, s, keyA)
	if got := sessionIDs(t, a2); len(got) != 1 || got[0] != idA {
		t.Fatalf("reconnected key A sees %v, want [%s]", got, idA)
	}
	res, err := a2.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "browser:///session/" + idA}})
	if err != nil {
		t.Fatal(err)
	}
	var sr tools.SessionResource
	json.Unmarshal([]byte(res.Contents[0].(mcp.TextResourceContents).Text), &sr)
	if sr.Title != "Welcome" || !strings.HasSuffix(sr.URL, "/welcome.html") || sr.ExpiresAt == 0 {
		t.Fatalf("session resource = %+v", sr)
	}
}

func TestParallelClients(t *testing.T) {
	s := startServer(t, tools.Options{})
	const n = 4
	clients := make([]*client.Client, n)
	for i := range clients {
		key := keyA
		if i%2 == 1 {
			key = keyB
		}
		if i < 2 {
			clients[i] = httpClient(t, s, key)
		} else {
			clients[i] = sseClient(t, s, key)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i, c := range clients {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "create_session"}})
			if err != nil || res.IsError {
				errs <- fmt.Errorf("client %d create: %v %v", i, err, res)
				return
			}
			id := res.StructuredContent.(map[string]any)["sessionId"].(string)
			user := fmt.Sprintf("user%d", i)
			res, err = c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "navigate",
				Arguments: map[string]any{"sessionId": id, "url": site.URL + "/welcome.html?user=" + user}}})
			if err != nil || res.IsError {
				errs <- fmt.Errorf("client %d navigate: %v %v", i, err, res)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// Each key sees exactly its own two sessions.
	for i := range 2 {
		if got := sessionIDs(t, clients[i]); len(got) != 2 {
			t.Errorf("client %d sees %d sessions, want 2", i, len(got))
		}
	}
	if s.mgr.Len() != n {
		t.Fatalf("manager holds %d sessions, want %d", s.mgr.Len(), n)
	}
}

func TestDisabledTools(t *testing.T) {
	s := startServer(t, tools.Options{DisabledTools: []string{"click", "evaluate"}})
	c := httpClient(t, s, keyA)
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	if strings.Contains(","+strings.Join(names, ",")+",", ",click,") || len(names) == 0 {
		t.Fatalf("tools = %v, want no click", names)
	}
	if _, err := c.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "click"}}); err == nil {
		t.Fatal("calling a disabled tool succeeded")
	}
}

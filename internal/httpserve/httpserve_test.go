package httpserve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/cdp"
	"github.com/seed4af8c199/browsermcp/internal/httpservetest"
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
	keyA = httpservetest.KeyA
	keyB = httpservetest.KeyB
)

// startServer serves the HTTP transport over its own Manager on the shared
// browser.
func startServer(t *testing.T, opts tools.Options) *httpservetest.Server {
	t.Helper()
	if sharedEngine == nil {
		testenv.NoBrowser(t, browserErr)
	}
	return httpservetest.Start(t, sharedEngine, opts)
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
		{"extra allowed host", "POST", "/mcp", "Bearer " + keyA, httpservetest.AllowedHost + ":8080", "", 200, ""},
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
			req, _ := http.NewRequest(tc.method, s.URL+tc.path, body)
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
	a := s.HTTPClient(t, keyA)
	b := s.SSEClient(t, keyB)
	idA := a.OK("create_session", nil)["sessionId"].(string)
	a.OK("navigate", map[string]any{"sessionId": idA, "url": site.URL + "/welcome.html"})

	if got := b.SessionIDs(); len(got) != 0 {
		t.Fatalf("key B sees sessions %v", got)
	}
	b.Fail(engine.SessionNotFound, "navigate", map[string]any{"sessionId": idA, "url": site.URL + "/form.html"})
	b.Fail(engine.SessionNotFound, "close_session", map[string]any{"sessionId": idA})
	ctx := context.Background()
	if _, err := b.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "browser:///session/" + idA}}); err == nil || !strings.Contains(err.Error(), "SESSION_NOT_FOUND") {
		t.Fatalf("key B read A's session resource: %v", err)
	}

	// A new connection with the same key keeps the session: sessions are
	// keyed by our sessionId, not by the transport's connection.
	a.Close()
	a2 := s.SSEClient(t, keyA)
	if got := a2.SessionIDs(); len(got) != 1 || got[0] != idA {
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

// An SSE stream takes messages only from the key that opened it: the
// stream's owner is the key's identity the guard put into the context.
func TestSSEStreamBelongsToItsKey(t *testing.T) {
	s := startServer(t, tools.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL+"/sse", nil)
	req.Header.Set("Authorization", "Bearer "+keyA)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	// The first event names the endpoint to post the stream's messages to.
	var endpoint string
	for sc := bufio.NewScanner(res.Body); endpoint == "" && sc.Scan(); {
		if e, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			endpoint = strings.TrimSpace(e)
		}
	}
	if !strings.Contains(endpoint, "/message?sessionId=") {
		t.Fatalf("SSE endpoint event = %q", endpoint)
	}
	post := func(key string) (int, []byte) {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		req, _ := http.NewRequestWithContext(ctx, "POST", s.URL+endpoint, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, b
	}
	if code, b := post(keyB); code != http.StatusForbidden || !strings.Contains(string(b), "belongs to another API key") {
		t.Fatalf("key B posting to key A's stream: %d %s", code, b)
	}
	if code, b := post(keyA); code >= 300 {
		t.Fatalf("key A posting to its own stream: %d %s", code, b)
	}
}

func TestParallelClients(t *testing.T) {
	s := startServer(t, tools.Options{})
	const n = 4
	clients := make([]*httpservetest.Client, n)
	for i := range clients {
		key := keyA
		if i%2 == 1 {
			key = keyB
		}
		if i < 2 {
			clients[i] = s.HTTPClient(t, key)
		} else {
			clients[i] = s.SSEClient(t, key)
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
		if got := clients[i].SessionIDs(); len(got) != 2 {
			t.Errorf("client %d sees %d sessions, want 2", i, len(got))
		}
	}
	if s.Mgr.Len() != n {
		t.Fatalf("manager holds %d sessions, want %d", s.Mgr.Len(), n)
	}
}

func TestDisabledTools(t *testing.T) {
	s := startServer(t, tools.Options{DisabledTools: []string{"click", "evaluate"}})
	c := s.HTTPClient(t, keyA)
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

// TestJSONRPCChecksOverHTTP: /mcp checks every message before mcp-go
// reads it (package jsonrpc), as stdio does: another key's session is a
// missing resource (-32002), a batch in 2025-06-18 is -32600, and a body over the
// message size limit is refused with 413.
func TestJSONRPCChecksOverHTTP(t *testing.T) {
	s := startServer(t, tools.Options{})
	a := s.HTTPClient(t, keyA)
	idA := a.OK("create_session", nil)["sessionId"].(string)
	post := func(key, body string) (int, map[string]any) {
		req, _ := http.NewRequest("POST", s.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("MCP-Protocol-Version", "2025-06-18") // a version without batches
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var m map[string]any
		json.NewDecoder(res.Body).Decode(&m)
		return res.StatusCode, m
	}
	for _, c := range []struct {
		body   string
		status int
		code   float64
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"browser:///session/` + idA + `"}}`, 200, -32002},
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, 400, -32600},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"type","arguments":{"text":"` + strings.Repeat("x", 2<<20) + `"}}}`, 413, -32600},
	} {
		status, m := post(keyB, c.body)
		e, _ := m["error"].(map[string]any)
		if status != c.status || e == nil || e["code"] != c.code {
			t.Errorf("%.60s: %d %v, want %d and code %v", c.body, status, m, c.status, c.code)
		}
	}
}

// TestJSONRPCChecksOverSSE: the legacy SSE transport checks every message
// posted to /message with the guard of /mcp, stdio and /ws, and answers a
// refusal on the stream, where its client waits for it: an unknown tool is
// -32601, params that are not an object -32602, a prompt without its
// required argument -32602, another key's session -32002, and a message
// over the size limit -32600; the stream serves on after each.
func TestJSONRPCChecksOverSSE(t *testing.T) {
	s := startServer(t, tools.Options{})
	idA := s.HTTPClient(t, keyA).OK("create_session", nil)["sessionId"].(string)
	b := s.SSEClient(t, keyB)
	tr := b.GetTransport()
	for i, c := range []struct {
		method string
		params any
		code   int
		want   string
	}{
		{"tools/call", map[string]any{"name": "no_such_tool", "arguments": map[string]any{}}, -32601, `tool "no_such_tool" not found`},
		{"tools/call", []any{"type"}, -32602, "must be an object"},
		{"prompts/get", map[string]any{"name": "scrape_website", "arguments": map[string]any{"url": "https://example.com"}}, -32602, `INVALID_PARAMETERS: missing required argument "selectors"`},
		{"resources/read", map[string]any{"uri": "browser:///session/" + idA}, -32002, "SESSION_NOT_FOUND"},
		{"tools/call", map[string]any{"name": "type", "arguments": map[string]any{"text": strings.Repeat("x", 2<<20)}}, -32600, "larger than the server's limit"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		res, err := tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(int64(100 + i)), Method: c.method, Params: c.params})
		cancel()
		if err != nil || res.Error == nil || res.Error.Code != c.code || !strings.Contains(res.Error.Message, c.want) {
			t.Errorf("%s %.60v: %+v, %v; want code %d with %q", c.method, c.params, res, err, c.code, c.want)
			continue
		}
		if res.ID.String() != mcp.NewRequestId(int64(100+i)).String() {
			t.Errorf("%s: answered id %v", c.method, res.ID)
		}
	}
	// The typed client sees the same: an unknown tool is method not found.
	if _, err := b.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "no_such_tool"}}); !errors.Is(err, mcp.ErrMethodNotFound) {
		t.Errorf("unknown tool over SSE: %v", err)
	}
	if id := b.OK("create_session", nil)["sessionId"]; id == "" {
		t.Fatal("the SSE stream does not serve after the refusals")
	}
}

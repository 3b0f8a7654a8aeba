// Package httpservetest serves a tools server over the real HTTP transport
// (internal/httpserve) for tests, with two API keys, KeyA and KeyB, and
// connects MCP clients to it as either key over Streamable HTTP or SSE, or
// over a WebSocket (StartWS, WSTransport).
// Tests that need two owners (resources, prompts, subscriptions, the
// transport itself) use it.
package httpservetest

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/httpserve"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/internal/testenv/mcpcheck"
	"github.com/seed4af8c199/browsermcp/tools"
)

// The API keys the server accepts; each owns its own sessions.
const (
	KeyA = "key-a-0123456789"
	KeyB = "key-b-0123456789"
)

// AllowedHost is accepted in Host and Origin headers besides the loopback
// names.
const AllowedHost = "mcp.example.test"

// Server is the HTTP transport over its own Manager on a shared engine.
type Server struct {
	URL string
	Mgr *sessions.Manager
}

// Start serves a tools server with opts over a new Manager on eng, on
// 127.0.0.1, until the test ends.
func Start(t testing.TB, eng engine.Engine, opts tools.Options) *Server {
	t.Helper()
	return start(t, eng, opts, false)
}

// StartWS is Start for the WebSocket transport (MCP at /ws).
func StartWS(t testing.TB, eng engine.Engine, opts tools.Options) *Server {
	t.Helper()
	return start(t, eng, opts, true)
}

func start(t testing.TB, eng engine.Engine, opts tools.Options, ws bool) *Server {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	mgr := sessions.New(eng, sessions.Config{Timeout: time.Minute, MaxSessions: 20,
		Defaults: engine.SessionOptions{Viewport: engine.Viewport{Width: 800, Height: 600}}})
	opts.Version, opts.Log = "test", log
	srv := tools.NewServer(mgr, opts)
	h := httpserve.NewHandler(srv, httpserve.Options{Host: "127.0.0.1", APIKeys: []string{KeyA, KeyB}, AllowedHosts: []string{AllowedHost},
		MaxMessage: 1 << 20, Check: tools.Check(mgr, srv), Recode: tools.Recode, Turns: tools.Turns(mgr, srv), WebSocket: ws}, log)
	hs := httptest.NewServer(h)
	t.Cleanup(func() {
		h.CloseSessions()
		hs.CloseClientConnections()
		hs.Close()
		mgr.Shutdown(context.Background())
	})
	return &Server{URL: hs.URL, Mgr: mgr}
}

// Client is an MCP client of a Server, bound to the test that opened it.
// Every result it gets is checked against its tool's output schema
// (mcpcheck).
type Client struct {
	*mcpcheck.Client
	t testing.TB
}

// Connect starts and initializes c, and closes it when the test ends.
func Connect(t testing.TB, c *client.Client) *Client {
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
	return &Client{Client: mcpcheck.Wrap(t, c), t: t}
}

// HTTPClient connects over Streamable HTTP with key.
func (s *Server) HTTPClient(t testing.TB, key string) *Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(s.URL+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + key}))
	if err != nil {
		t.Fatal(err)
	}
	return Connect(t, c)
}

// SSEClient connects over the legacy SSE transport with key.
func (s *Server) SSEClient(t testing.TB, key string) *Client {
	t.Helper()
	c, err := client.NewSSEMCPClient(s.URL+"/sse", transport.WithHeaders(map[string]string{"Authorization": "Bearer " + key}))
	if err != nil {
		t.Fatal(err)
	}
	return Connect(t, c)
}

// WSClient connects over the WebSocket transport with key, as a header.
func (s *Server) WSClient(t testing.TB, key string) *Client {
	t.Helper()
	return Connect(t, client.NewClient(NewWSTransport(WSURL(s.URL), http.Header{"Authorization": {"Bearer " + key}})))
}

// WSURL is the WebSocket address of a server at base (http://host:port).
func WSURL(base string) string { return "ws" + strings.TrimPrefix(base, "http") + "/ws" }

// Call runs a tool and decodes its structured result.
func (c *Client) Call(name string, args map[string]any) (map[string]any, bool) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		c.t.Fatalf("%s: %v", name, err)
	}
	// structuredContent is the result; the text is the same JSON except for
	// tools whose text is an outline (snapshot).
	out := mcpcheck.Body(res)
	if out == nil {
		c.t.Fatalf("%s: no JSON object in %+v", name, res)
	}
	return out, res.IsError
}

// OK runs a tool that must succeed.
func (c *Client) OK(name string, args map[string]any) map[string]any {
	c.t.Helper()
	out, isErr := c.Call(name, args)
	if isErr {
		c.t.Fatalf("%s(%v) failed: %v", name, args, out)
	}
	return out
}

// Fail runs a tool that must fail with code.
func (c *Client) Fail(code engine.Code, name string, args map[string]any) {
	c.t.Helper()
	out, isErr := c.Call(name, args)
	if !isErr || out["errorCode"] != string(code) {
		c.t.Fatalf("%s(%v) = %v, want %s", name, args, out, code)
	}
}

// SessionIDs lists the sessions the client's key sees.
func (c *Client) SessionIDs() []string {
	c.t.Helper()
	var ids []string
	for _, s := range c.OK("list_sessions", nil)["sessions"].([]any) {
		ids = append(ids, s.(map[string]any)["sessionId"].(string))
	}
	return ids
}

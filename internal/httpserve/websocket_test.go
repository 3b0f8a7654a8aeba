package httpserve_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mark3labs/mcp-go/client"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/httpservetest"
	"github.com/seed4af8c199/browsermcp/tools"
)

// TestWebSocketOwnership drives the WebSocket transport with two keys, one
// as a header and one as the bearer.<key> subprotocol a browser would
// send: each sees only its own sessions, and the server answers mcp.
func TestWebSocketOwnership(t *testing.T) {
	s := startWSServer(t)
	a := s.WSClient(t, keyA)
	tr := httpservetest.NewWSTransport(httpservetest.WSURL(s.URL), nil, "mcp", "bearer."+keyB)
	b := httpservetest.Connect(t, client.NewClient(tr))
	if got := tr.Response.Header.Get("Sec-WebSocket-Protocol"); got != "mcp" {
		t.Fatalf("the server answered the subprotocol %q, want mcp", got)
	}

	idA := a.OK("create_session", nil)["sessionId"].(string)
	out := a.OK("navigate", map[string]any{"sessionId": idA, "url": site.URL + "/welcome.html"})
	if out["title"] != "Welcome" {
		t.Fatalf("navigate over a WebSocket: %v", out)
	}
	if got := b.SessionIDs(); len(got) != 0 {
		t.Fatalf("key B sees sessions %v", got)
	}
	b.Fail(engine.SessionNotFound, "navigate", map[string]any{"sessionId": idA, "url": site.URL + "/form.html"})
	idB := b.OK("create_session", nil)["sessionId"].(string)
	if got := a.SessionIDs(); len(got) != 1 || got[0] != idA {
		t.Fatalf("key A sees %v, want [%s]", got, idA)
	}
	// A new connection with the same key sees the session: sessions
	// belong to keys, not to connections.
	b.Close()
	if got := s.WSClient(t, keyB).SessionIDs(); len(got) != 1 || got[0] != idB {
		t.Fatalf("key B, connected again, sees %v, want [%s]", got, idB)
	}
}

func startWSServer(t *testing.T) *httpservetest.Server {
	t.Helper()
	if sharedEngine == nil {
		startServer(t, tools.Options{}) // skips
	}
	return httpservetest.StartWS(t, sharedEngine, tools.Options{})
}

// TestWebSocketHandshake checks the guard of /ws: Host and Origin as over
// HTTP, the key as a header or a subprotocol, and mcp offered beside it.
func TestWebSocketHandshake(t *testing.T) {
	s := startWSServer(t)
	url := httpservetest.WSURL(s.URL)
	cases := []struct {
		name   string
		header http.Header
		protos []string
		status int
	}{
		{"no key", nil, nil, 401},
		{"no key, mcp only", nil, []string{"mcp"}, 401},
		{"wrong key", http.Header{"Authorization": {"Bearer wrong-key-123"}}, nil, 403},
		{"wrong key as subprotocol", nil, []string{"mcp", "bearer.wrong-key-123"}, 403},
		{"key without mcp", nil, []string{"bearer." + keyA}, 400},
		{"foreign origin", http.Header{"Authorization": {"Bearer " + keyA}, "Origin": {"http://evil.example.com"}}, nil, 403},
		{"allowed origin", http.Header{"Origin": {"http://" + httpservetest.AllowedHost}}, []string{"mcp", "bearer." + keyA}, 101},
		{"key as header", http.Header{"Authorization": {"Bearer " + keyA}}, nil, 101},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := httpservetest.NewWSTransport(url, c.header, c.protos...)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err := tr.Start(ctx)
			if tr.Response == nil {
				t.Fatalf("no handshake answer: %v", err)
			}
			defer tr.Close()
			if tr.Response.StatusCode != c.status {
				t.Fatalf("status %d (%v), want %d", tr.Response.StatusCode, err, c.status)
			}
		})
	}
	// A handshake naming another host is refused (DNS rebinding).
	req, _ := http.NewRequest("GET", s.URL+"/ws", nil)
	req.Host = "evil.example.com"
	req.Header = http.Header{"Authorization": {"Bearer " + keyA}, "Connection": {"Upgrade"}, "Upgrade": {"websocket"},
		"Sec-Websocket-Version": {"13"}, "Sec-Websocket-Key": {"dGhlIHNhbXBsZSBub25jZQ=="}}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 403 {
		t.Fatalf("a rebinding Host got %d, want 403", res.StatusCode)
	}
	// Without the WebSocket transport, /ws is not served.
	h := startServer(t, tools.Options{})
	tr := httpservetest.NewWSTransport(httpservetest.WSURL(h.URL), http.Header{"Authorization": {"Bearer " + keyA}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tr.Start(ctx); err == nil || tr.Response == nil || tr.Response.StatusCode != 404 {
		t.Fatalf("/ws over --transport http: %v", err)
	}
}

// TestWebSocketGuard sends raw frames: the JSON-RPC checks of stdio and
// HTTP apply, a frame over the size limit is answered with its id and the
// connection goes on, a frame with newlines is one message, and a binary
// frame ends the connection with 1003.
func TestWebSocketGuard(t *testing.T) {
	s := startWSServer(t)
	tr := httpservetest.NewWSTransport(httpservetest.WSURL(s.URL), http.Header{"Authorization": {"Bearer " + keyA}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := tr.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	init := `{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	if res, err := tr.Exchange(ctx, json.RawMessage(`"i"`), []byte(init)); err != nil || res.Error != nil {
		t.Fatalf("initialize: %v %+v", err, res)
	}
	cases := []struct {
		id    string
		frame string
		code  int
	}{
		{"2", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":[1]}`, -32602},
		{"3", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"type","arguments":{"text":"` + strings.Repeat("x", 2<<20) + `"}}}`, -32600},
		{"4", "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 4,\n  \"method\": \"ping\"\n}", 0},
		{"null", `[{"jsonrpc":"2.0","id":5,"method":"ping"}]`, -32600},
	}
	for _, c := range cases {
		got, err := tr.Exchange(ctx, json.RawMessage(c.id), []byte(c.frame))
		switch {
		case err != nil:
			t.Fatalf("%.60q: %v", c.frame, err)
		case c.code == 0 && (got.Error != nil || got.Result == nil):
			t.Errorf("%.60q: %+v, want a result", c.frame, got)
		case c.code != 0 && (got.Error == nil || got.Error.Code != c.code):
			t.Errorf("%.60q: %+v, want code %d", c.frame, got, c.code)
		}
	}
	if err := tr.Conn().Write(ctx, websocket.MessageBinary, []byte(`{"jsonrpc":"2.0","id":6,"method":"ping"}`)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-tr.Done():
	case <-ctx.Done():
		t.Fatal("a binary frame did not end the connection")
	}
	if code := httpservetest.CloseStatus(tr.Err()); code != websocket.StatusUnsupportedData {
		t.Fatalf("closed with %v (%v), want 1003", code, tr.Err())
	}
}

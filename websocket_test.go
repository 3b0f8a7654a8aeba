package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/httpservetest"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// TestWebSocketTransport runs the built binary with --transport websocket
// and drives it with a real WebSocket client: two keys, one as a header and
// one as the bearer.<key> subprotocol a browser would offer beside mcp,
// each initializing, listing the tools and working on a real page; a bad
// key and a foreign Origin are refused at the handshake, and neither key
// sees or uses the other's sessions.
func TestWebSocketTransport(t *testing.T) {
	testenv.Chromium(t)
	site := testsite.Start()
	defer site.Close()
	bin := buildBinary(t)
	var log bytes.Buffer
	cmd := exec.Command(bin, "--transport", "websocket", "--port", "0", "--headless",
		"--api-key", httpservetest.KeyA, "--api-key", httpservetest.KeyB)
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	cmd.Stdout, cmd.Stderr = syncWriter{&log}, syncWriter{&log}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			stderrMu.Lock()
			t.Logf("server output:\n%s", log.String())
			stderrMu.Unlock()
		}
	})
	var url string
	listening := regexp.MustCompile(`Listening on (ws://\S+/ws)`)
	testenv.Eventually(t, "the server to listen", func() (bool, error) {
		stderrMu.Lock()
		defer stderrMu.Unlock()
		m := listening.FindStringSubmatch(log.String())
		if m != nil {
			url = m[1]
		}
		return m != nil, nil
	})

	a := httpservetest.Connect(t, client.NewClient(httpservetest.NewWSTransport(url, http.Header{"Authorization": {"Bearer " + httpservetest.KeyA}})))
	trB := httpservetest.NewWSTransport(url, nil, "mcp", "bearer."+httpservetest.KeyB)
	b := httpservetest.Connect(t, client.NewClient(trB))
	if got := trB.Response.Header.Get("Sec-WebSocket-Protocol"); got != "mcp" {
		t.Fatalf("the server answered the subprotocol %q, want mcp", got)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	list, err := b.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range list.Tools {
		names[tl.Name] = true
	}
	for _, n := range []string{"create_session", "navigate", "click", "type", "list_sessions"} {
		if !names[n] {
			t.Errorf("tools/list over a WebSocket lacks %s", n)
		}
	}

	idA := a.OK("create_session", nil)["sessionId"].(string)
	a.OK("navigate", map[string]any{"sessionId": idA, "url": site.URL + "/form.html"})
	a.OK("type", map[string]any{"sessionId": idA, "selector": "#user", "text": "ws"})
	if out := a.OK("click", map[string]any{"sessionId": idA, "selector": "#go"}); !strings.Contains(out["url"].(string), "user=ws") {
		t.Fatalf("the form was not submitted: %v", out)
	}

	// Owner scoping: B neither sees nor uses A's session, and its own
	// session is invisible to A.
	if got := b.SessionIDs(); len(got) != 0 {
		t.Fatalf("key B sees %v", got)
	}
	b.Fail(engine.SessionNotFound, "navigate", map[string]any{"sessionId": idA, "url": site.URL + "/storage.html"})
	b.Fail(engine.SessionNotFound, "close_session", map[string]any{"sessionId": idA})
	idB := b.OK("create_session", nil)["sessionId"].(string)
	if got := a.SessionIDs(); len(got) != 1 || got[0] != idA {
		t.Fatalf("key A sees %v, want only %s", got, idA)
	}
	a.Fail(engine.SessionNotFound, "close_session", map[string]any{"sessionId": idB})

	// A browser page, which cannot set headers on a WebSocket, connects
	// with the key as a subprotocol: here A's page on the test site (an
	// allowed loopback origin), as key B, sees only B's session.
	page := a.OK("evaluate", map[string]any{"sessionId": idA, "args": []any{url, httpservetest.KeyB}, "script": `(url, key) => new Promise((resolve) => {
		const ws = new WebSocket(url, ["mcp", "bearer." + key]);
		const send = (m) => ws.send(JSON.stringify(Object.assign({ jsonrpc: "2.0" }, m)));
		ws.onclose = (e) => resolve({ closed: e.code });
		ws.onopen = () => send({ id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "page", version: "1" } } });
		ws.onmessage = (e) => {
			const m = JSON.parse(e.data);
			if (m.id === 1) {
				send({ method: "notifications/initialized" });
				send({ id: 2, method: "tools/call", params: { name: "list_sessions", arguments: {} } });
			} else if (m.id === 2) {
				resolve({ protocol: ws.protocol, sessions: m.result.structuredContent.sessions.map((s) => s.sessionId) });
				ws.close();
			}
		};
	})`})["result"].(map[string]any)
	if page["protocol"] != "mcp" || fmt.Sprint(page["sessions"]) != "["+idB+"]" {
		t.Fatalf("the page's WebSocket as key B: %v, want protocol mcp and sessions [%s]", page, idB)
	}

	// Refused handshakes.
	for _, c := range []struct {
		name   string
		header http.Header
		protos []string
		status int
	}{
		{"no key", nil, []string{"mcp"}, 401},
		{"bad key", http.Header{"Authorization": {"Bearer not-the-key-123"}}, nil, 403},
		{"bad key as subprotocol", nil, []string{"mcp", "bearer.not-the-key-123"}, 403},
		{"foreign origin", http.Header{"Origin": {"https://evil.example.com"}}, []string{"mcp", "bearer." + httpservetest.KeyA}, 403},
	} {
		tr := httpservetest.NewWSTransport(url, c.header, c.protos...)
		err := tr.Start(ctx)
		if err == nil {
			tr.Close()
		}
		if tr.Response == nil || tr.Response.StatusCode != c.status {
			t.Errorf("%s: %v, want status %d", c.name, err, c.status)
		}
	}
	// A page on an allowed origin (loopback) gets in with the subprotocol.
	tr := httpservetest.NewWSTransport(url, http.Header{"Origin": {site.URL}}, "mcp", "bearer."+httpservetest.KeyA)
	c := httpservetest.Connect(t, client.NewClient(tr))
	if got := c.SessionIDs(); len(got) != 1 || got[0] != idA {
		t.Fatalf("key A on a second connection sees %v, want [%s]", got, idA)
	}

	// SIGTERM closes every connection, going away.
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-tr.Done():
	case <-ctx.Done():
		t.Fatal("SIGTERM did not close the connection")
	}
	if code := httpservetest.CloseStatus(tr.Err()); code != websocket.StatusGoingAway {
		t.Fatalf("SIGTERM closed the connection with %v (%v), want 1001", code, tr.Err())
	}
}

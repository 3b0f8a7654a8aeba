package main

import (
	"crypto/sha1"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	"github.com/seed4af8c199/browsermcp/internal/httpservetest"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// acceptingWebSockets is a server that accepts every WebSocket handshake.
func acceptingWebSockets(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			http.Error(w, "WebSocket only", http.StatusBadRequest)
			return
		}
		sum := sha1.Sum([]byte(r.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		w.Header().Set("Upgrade", "websocket")
		w.Header().Set("Connection", "Upgrade")
		w.Header().Set("Sec-WebSocket-Accept", base64.StdEncoding.EncodeToString(sum[:]))
		w.WriteHeader(http.StatusSwitchingProtocols)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// openWebSocket is the script that opens a WebSocket to its argument and
// says whether it opened.
const openWebSocket = `(url) => new Promise((resolve) => {
	const ws = new WebSocket(url);
	ws.onopen = () => { ws.close(); resolve("open"); };
	ws.onerror = () => resolve("error");
	setTimeout(() => resolve("no answer within 15 s"), 15000);
})`

// TestGridReplicaRestartsWebSocketRelay (issue #23). Under a domain
// policy a session's WebSockets pass a relay of the server that created
// it (engine/cdp/sockets.go), named in its browser context's proxy rules.
// Before: a replica that adopted the session after that server was killed
// served no relay, so every WebSocket of the page failed, allowed or not.
// After: the adopting replica serves the relay again where the browser
// context sends its WebSockets: an allowed one opens, a refused one does
// not.
func TestGridReplicaRestartsWebSocketRelay(t *testing.T) {
	g := testenv.StartGrid(t)
	site := testsite.Start()
	defer site.Close()
	ws := acceptingWebSockets(t)
	allowed := strings.Replace(ws.URL, "http://", "ws://", 1) + "/allowed"
	refused := strings.Replace(allowed, "127.0.0.1", "localhost", 1)
	policy := []string{"--allowed-domains", "127.0.0.1", "--grid-keep-sessions"}
	a, b := startReplica(t, g, policy...), startReplica(t, g, policy...)

	ca := a.client(t, httpservetest.KeyA)
	id := ca.OK("create_session", nil)["sessionId"].(string)
	ca.OK("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
	for _, c := range []struct{ url, want string }{{allowed, "open"}, {refused, "error"}} {
		if got := ca.OK("evaluate", map[string]any{"sessionId": id, "script": openWebSocket, "args": []any{c.url}})["result"]; got != c.want {
			t.Fatalf("a WebSocket to %s on replica A: %v, want %s", c.url, got, c.want)
		}
	}

	// A shuts down (a rolling restart): it lets go of the session, and
	// its relay with it.
	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	a.cmd.Wait()

	cb := b.client(t, httpservetest.KeyA)
	for _, c := range []struct{ url, want string }{{allowed, "open"}, {refused, "error"}} {
		if got := cb.OK("evaluate", map[string]any{"sessionId": id, "script": openWebSocket, "args": []any{c.url}})["result"]; got != c.want {
			t.Errorf("a WebSocket to %s on replica B, which adopted the session: %v, want %s", c.url, got, c.want)
		}
	}
	cb.OK("close_session", map[string]any{"sessionId": id})
}

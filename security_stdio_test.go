package main

import (
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// wsHandshakes is a WebSocket server that accepts every handshake and
// counts them.
func wsHandshakes(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			http.Error(w, "WebSocket only", http.StatusBadRequest)
			return
		}
		n.Add(1)
		sum := sha1.Sum([]byte(r.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		w.Header().Set("Upgrade", "websocket")
		w.Header().Set("Connection", "Upgrade")
		w.Header().Set("Sec-WebSocket-Accept", base64.StdEncoding.EncodeToString(sum[:]))
		w.WriteHeader(http.StatusSwitchingProtocols)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func hostPort(u string) string {
	p, _ := url.Parse(u)
	return p.Host
}

// TestSecurityOverStdio drives the built binary with domain rules and the
// state tools: a page's WebSocket to a host the rules refuse never reaches
// it while one to an allowed host opens, and save_state writes only inside
// the output directory (issue #18, items 1 and 3).
func TestSecurityOverStdio(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	allowed, allowedHits := wsHandshakes(t)
	refused, refusedHits := wsHandshakes(t)
	out := t.TempDir()
	s := startBinary(t, "--caps", "state", "--output-dir", out,
		"--allowed-domains", hostPort(site.URL), "--allowed-domains", hostPort(allowed.URL))

	title := func(want string) {
		t.Helper()
		testenv.Eventually(t, "the page to report "+want, func() (bool, error) {
			got := s.ok("get_page_metadata", map[string]any{})["title"]
			return got == want, fmt.Errorf("the title is %v", got)
		})
	}
	page := func(srv *httptest.Server) string {
		return site.URL + "/websocket.html?ws=" + url.QueryEscape(strings.Replace(srv.URL, "http://", "ws://", 1)+"/x")
	}
	s.ok("navigate", map[string]any{"url": page(refused)})
	title("ws=error")
	s.ok("navigate", map[string]any{"url": page(allowed)})
	title("ws=open")
	if n := refusedHits.Load(); n != 0 {
		t.Errorf("the refused WebSocket server got %d handshakes", n)
	}
	if n := allowedHits.Load(); n != 1 {
		t.Errorf("the allowed WebSocket server got %d handshakes, want 1", n)
	}

	saved := s.ok("save_state", map[string]any{"path": "state.json"})
	if _, err := os.Stat(filepath.Join(out, "state.json")); err != nil || saved["path"] != filepath.Join(out, "state.json") {
		t.Fatalf("save_state into the output directory: %v, %v", saved, err)
	}
	res, isErr := s.call("save_state", map[string]any{"path": "../escaped.json"})
	if !isErr || res["errorCode"] != "INVALID_PARAMETERS" || res["details"].(map[string]any)["field"] != "path" {
		t.Fatalf("save_state outside the output directory: %v", res)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(out), "escaped.json")); err == nil {
		t.Fatal("save_state wrote outside the output directory")
	}
}

package grid

import (
	"bytes"
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
)

// TestRelayAtLoopbackOnly: the relay address of an adopted session comes
// from the Grid session's capabilities, which anyone creating a Grid
// session sets. Only a loopback address is served; any other is refused
// with a logged error, and nothing listens.
func TestRelayAtLoopbackOnly(t *testing.T) {
	p, err := engine.NewPolicy([]string{"example.com"}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(Config{URL: "http://127.0.0.1:1", Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{"0.0.0.0:0", "[::]:0", ":0", "localhost:0", "192.0.2.1:0", "not an address", "[::ffff:0.0.0.0]:0"} {
		var logs bytes.Buffer
		ln, err := e.relayAt(addr, slog.New(slog.NewTextHandler(&logs, nil)))
		if ln != nil {
			ln.Close()
			t.Errorf("relayAt(%q) listens at %s", addr, ln.Addr())
		}
		if ee := engine.AsError(err); err == nil || ee.Code != engine.BrowserError || ee.Details["relay"] != addr || !strings.Contains(ee.Message, "loopback") {
			t.Errorf("relayAt(%q) = %v, want a BROWSER_ERROR that names the address", addr, err)
		}
		if !strings.Contains(logs.String(), "level=ERROR") || !strings.Contains(logs.String(), "loopback") {
			t.Errorf("relayAt(%q) logged %q, want an error", addr, logs.String())
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "127.0.0.2:0"} {
		ln, err := e.relayAt(addr, slog.New(slog.DiscardHandler))
		if err != nil || ln == nil {
			t.Fatalf("relayAt(%q) = %v, %v, want a listener", addr, ln, err)
		}
		if ip := ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
			t.Errorf("relayAt(%q) listens at %s", addr, ln.Addr())
		}
		ln.Close()
	}
	// Without host rules there is no relay to serve, whatever the address.
	e.cfg.Policy = nil
	if ln, err := e.relayAt("0.0.0.0:0", slog.New(slog.DiscardHandler)); ln != nil || err != nil {
		t.Errorf("without host rules relayAt = %v, %v", ln, err)
	}
}

package main

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// TestResourceErrorCodesStdio: over stdio, the binary answers a
// resources/read of elements by a selector that does not parse with
// -32602, invalid params, a message that starts with INVALID_SELECTOR and
// the code in its data, as the tools say it; a ref never given out is
// -32002, resource not found. mcp-go alone answers both with -32603.
func TestResourceErrorCodesStdio(t *testing.T) {
	r := startRaw(t)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_session","arguments":{}}}`)
	m := r.read()
	res, _ := m["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	id, _ := sc["sessionId"].(string)
	if id == "" {
		t.Fatalf("create_session: %v", m)
	}
	for i, c := range []struct {
		uri, code string
		rpc       float64
	}{
		{"browser:///elements/" + id + "/0/" + url.PathEscape("div[["), "INVALID_SELECTOR", -32602},
		{"browser:///element/" + id + "/0/e999", "ELEMENT_NOT_FOUND", -32002},
	} {
		r.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":%q}}`, i+2, c.uri))
		m := r.read()
		e, _ := m["error"].(map[string]any)
		data, _ := e["data"].(map[string]any)
		if m["id"] != float64(i+2) || e == nil || e["code"] != c.rpc || !strings.HasPrefix(fmt.Sprint(e["message"]), c.code+": ") || data["errorCode"] != c.code {
			t.Errorf("%s: answered %v, want %v with %s", c.uri, m, c.rpc, c.code)
		}
	}
}

package httpserve_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/internal/httpservetest"
	"github.com/seed4af8c199/browsermcp/tools"
)

// raw sends one HTTP request to /mcp as key, with an optional
// Mcp-Session-Id and MCP-Protocol-Version, and returns the status, headers
// and the JSON-RPC messages of the answer (a JSON body, or the data of
// every SSE event).
func raw(t *testing.T, url, method, key, session, version, body string, extra ...string) (int, http.Header, []map[string]any, string) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, url+"/mcp", r)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	if version != "" {
		req.Header.Set("MCP-Protocol-Version", version)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		req.Header.Set(extra[i], extra[i+1])
	}
	// Bounded: a GET /mcp that opens a stream must not hang the test.
	res, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var msgs []map[string]any
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m map[string]any
				if json.Unmarshal([]byte(d), &m) == nil {
					msgs = append(msgs, m)
				}
			}
		}
	} else if len(bytes.TrimSpace(b)) > 0 {
		var one map[string]any
		var many []map[string]any
		if json.Unmarshal(b, &one) == nil {
			msgs = append(msgs, one)
		} else if json.Unmarshal(b, &many) == nil {
			msgs = many
		}
	}
	return res.StatusCode, res.Header, msgs, string(b)
}

// initialize opens an MCP session as key at version and returns its id.
func initialize(t *testing.T, url, key, version string) string {
	t.Helper()
	status, h, _, b := raw(t, url, "POST", key, "", "",
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	id := h.Get("Mcp-Session-Id")
	if status != 200 || id == "" {
		t.Fatalf("initialize: %d %q %s", status, id, b)
	}
	if st, _, _, b := raw(t, url, "POST", key, id, version, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); st != 202 {
		t.Fatalf("initialized: %d %s", st, b)
	}
	return id
}

// TestMCPSessionsAreTracked (issue #16, item 1). Before: any made-up
// Mcp-Session-Id was served, an id kept working after DELETE, and a request
// without one got 404. After: made-up and ended ids get 404, a missing id
// 400, an id of another key 404, and a second handler with the same keys (a
// replica) accepts the first one's ids; protocol 2026-07-28, which has no
// MCP sessions, is served without one.
func TestMCPSessionsAreTracked(t *testing.T) {
	s := startServer(t, tools.Options{})
	const v = "2025-06-18"
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	id := initialize(t, s.URL, keyA, v)
	if st, _, msgs, b := raw(t, s.URL, "POST", keyA, id, v, ping); st != 200 || len(msgs) != 1 || msgs[0]["result"] == nil {
		t.Fatalf("ping in the session: %d %s", st, b)
	}
	for _, c := range []struct {
		name, key, session string
		want               int
	}{
		{"made-up id", keyA, "mcp-session-" + "0f8fad5b-d9cb-469f-a165-70867728950e", 404},
		{"forged mac", keyA, forged(id), 404},
		{"another key's id", keyB, id, 404},
		{"no id", keyA, "", 400},
	} {
		if st, _, _, b := raw(t, s.URL, "POST", c.key, c.session, v, ping); st != c.want {
			t.Errorf("%s: %d %s, want %d", c.name, st, b, c.want)
		}
	}
	if st, _, _, b := raw(t, s.URL, "GET", keyA, "", v, ""); st != 400 {
		t.Errorf("GET without an id: %d %s, want 400", st, b)
	}

	// A replica started with the same keys accepts the id.
	replica := httpservetest.Start(t, sharedEngine, tools.Options{})
	if st, _, _, b := raw(t, replica.URL, "POST", keyA, id, v, ping); st != 200 {
		t.Errorf("the id on a replica with the same keys: %d %s", st, b)
	}

	if st, _, _, b := raw(t, s.URL, "DELETE", keyB, id, v, ""); st != 404 {
		t.Errorf("DELETE by another key: %d %s, want 404", st, b)
	}
	if st, _, _, b := raw(t, s.URL, "DELETE", keyA, id, v, ""); st != 200 {
		t.Fatalf("DELETE: %d %s", st, b)
	}
	if st, _, _, b := raw(t, s.URL, "POST", keyA, id, v, ping); st != 404 {
		t.Errorf("ping after DELETE: %d %s, want 404", st, b)
	}
	if st, _, _, b := raw(t, s.URL, "DELETE", keyA, id, v, ""); st != 404 {
		t.Errorf("second DELETE: %d %s, want 404", st, b)
	}

	// 2026-07-28: no session, none needed.
	modern := `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}}}`
	if st, h, _, b := raw(t, s.URL, "POST", keyA, "", "2026-07-28", modern, "Mcp-Method", "tools/list"); st != 200 || h.Get("Mcp-Session-Id") != "" {
		t.Errorf("2026-07-28 tools/list without a session: %d %v %s", st, h, b)
	}
}

// TestAuthSaysStaticKey (issue #16, item 6). Before: a 401 with a bare
// `Bearer realm` challenge, which OAuth-minded clients (the MCP Inspector)
// took for an OAuth challenge, then found no metadata. After: the challenge
// and the body say a static key is expected, and the OAuth metadata
// addresses answer 404 saying there is no OAuth.
func TestAuthSaysStaticKey(t *testing.T) {
	s := startServer(t, tools.Options{})
	st, h, _, b := raw(t, s.URL, "POST", "", "", "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`)
	if st != 401 || !strings.Contains(h.Get("WWW-Authenticate"), `error_description="a static API key is expected: Authorization: Bearer <key>"`) ||
		!strings.Contains(b, "static API key") || !strings.Contains(b, "does not use OAuth") {
		t.Errorf("401: %d %q %s", st, h.Get("WWW-Authenticate"), b)
	}
	for _, p := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-authorization-server"} {
		res, err := http.Get(s.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		var e map[string]string
		json.NewDecoder(res.Body).Decode(&e)
		res.Body.Close()
		if res.StatusCode != 404 || e["error"] != "no_oauth" || !strings.Contains(e["message"], "does not use OAuth") {
			t.Errorf("GET %s: %d %v", p, res.StatusCode, e)
		}
	}
}

// stream POSTs body in the session and sends each JSON-RPC message of the
// SSE answer on the channel as it arrives; the channel closes with the
// answer.
func stream(t *testing.T, url, key, session, body string) <-chan map[string]any {
	t.Helper()
	req, _ := http.NewRequest("POST", url+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	res, err := (&http.Client{Timeout: 2 * time.Minute}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan map[string]any, 64)
	go func() {
		defer close(ch)
		defer res.Body.Close()
		if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
			var m map[string]any
			if json.NewDecoder(res.Body).Decode(&m) == nil {
				ch <- m
			}
			return
		}
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m map[string]any
				if json.Unmarshal([]byte(d), &m) == nil {
					ch <- m
				}
			}
		}
	}()
	return ch
}

// TestCancelAndProgressOverHTTP (issue #16, items 3 and 4) over
// Streamable HTTP: a long call with a progressToken streams rising
// notifications/progress; once cancelled it stops, its stream ends without
// an answer, and the session serves the next call.
func TestCancelAndProgressOverHTTP(t *testing.T) {
	s := startServer(t, tools.Options{})
	id := initialize(t, s.URL, keyA, "2025-06-18")
	ch := stream(t, s.URL, keyA, id, `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"wait_for_selector","arguments":{"selector":"#never","timeout":60000},"_meta":{"progressToken":"p10"}}}`)
	var last float64 = -1
	for last < 1 {
		m, ok := <-ch
		p, _ := m["params"].(map[string]any)
		if !ok || m["method"] != "notifications/progress" || p["progressToken"] != "p10" || p["progress"].(float64) <= last {
			t.Fatalf("want a rising progress of p10, got %v", m)
		}
		last = p["progress"].(float64)
	}
	if st, _, _, b := raw(t, s.URL, "POST", keyA, id, "2025-06-18", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10}}`); st != 202 {
		t.Fatalf("cancel: %d %s", st, b)
	}
	for m := range ch {
		if m["method"] == nil {
			t.Errorf("the cancelled call was answered: %v", m)
		}
	}
	// The work stopped: the session, which runs one call at a time, is free.
	next := stream(t, s.URL, keyA, id, `{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"wait_for","arguments":{"time":0.1}}}`)
	var answer map[string]any
	for m := range next {
		if m["method"] != nil {
			t.Errorf("a call without a progressToken got %v", m)
		}
		answer = m
	}
	if r, _ := answer["result"].(map[string]any); r == nil || r["isError"] == true {
		t.Errorf("the next call: %v", answer)
	}
}

// TestBatchesOverHTTP (issue #16, item 2). Before: a batch got HTTP 400
// and -32700 "request body is not valid json". After: in a 2025-03-26
// session a batch is answered with an array of the responses (none for
// the notification, initialize refused), a batch of notifications with
// 202, and in a 2025-06-18 session a batch is refused with -32600 saying
// which versions have them.
func TestBatchesOverHTTP(t *testing.T) {
	s := startServer(t, tools.Options{})
	old := initialize(t, s.URL, keyA, "2025-03-26")
	batch := `[{"jsonrpc":"2.0","id":1,"method":"ping"},` +
		`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"},` +
		`{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"wait_for","arguments":{"time":0.1}}},` +
		`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}]`
	// A 2025-03-26 client sends no MCP-Protocol-Version header.
	st, _, ms, b := raw(t, s.URL, "POST", keyA, old, "", batch)
	byID := map[any]map[string]any{}
	for _, m := range ms {
		byID[m["id"]] = m
	}
	if st != 200 || len(ms) != 3 || byID[1.0]["result"] == nil || byID["two"]["result"] == nil {
		t.Fatalf("batch: %d %s", st, b)
	}
	if r := byID["two"]["result"].(map[string]any); r["isError"] == true {
		t.Errorf("tools/call in a batch: %v", r)
	}
	if e, _ := byID[3.0]["error"].(map[string]any); e == nil || e["code"] != -32600.0 {
		t.Errorf("initialize in a batch: %v", byID[3.0])
	}
	if st, _, _, b := raw(t, s.URL, "POST", keyA, old, "", `[{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}]`); st != 202 {
		t.Errorf("a batch of notifications: %d %s", st, b)
	}
	if st, _, _, b := raw(t, s.URL, "POST", keyA, "mcp-session-forged.x", "", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`); st != 404 {
		t.Errorf("a batch in a made-up session: %d %s", st, b)
	}

	id := initialize(t, s.URL, keyA, "2025-06-18")
	st, _, ms, b = raw(t, s.URL, "POST", keyA, id, "2025-06-18", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	if st != 400 || len(ms) != 1 {
		t.Fatalf("a batch at 2025-06-18: %d %s", st, b)
	}
	if e, _ := ms[0]["error"].(map[string]any); e["code"] != -32600.0 || !strings.Contains(e["message"].(string), "not allowed in MCP protocol version 2025-06-18") {
		t.Errorf("a batch at 2025-06-18: %d %s", st, b)
	}
}

// forged is id with the last character of its MAC changed: always another
// id (replacing it with a fixed "AA" left one id in 4,096 unchanged).
func forged(id string) string {
	c := byte('A')
	if id[len(id)-1] == c {
		c = 'B'
	}
	return id[:len(id)-1] + string(c)
}

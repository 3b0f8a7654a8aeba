package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/seed4af8c199/browsermcp/internal/httpservetest"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// The tests in this file send the same raw JSON-RPC messages, good and
// bad, to the built binary over every transport (stdio, Streamable HTTP,
// legacy SSE and WebSocket) and compare the answers: one guard (package
// jsonrpc) checks them all, so a message is refused with the same error
// whichever way it came.

// rawTransport is one raw connection to the binary, initialized.
type rawTransport interface {
	// exchange sends msg and returns the answers to it: the messages
	// that are no notifications, until one with the id want (nil: an
	// answer whose id is null); with want "none", it returns whatever
	// arrives before the answer to a ping sent after msg.
	exchange(t *testing.T, msg string, want any) []map[string]any
}

// noAnswer is exchange's want for a message that gets no answer.
const noAnswer = "none"

// batchAnswer is exchange's want for a batch's answer.
const batchAnswer = "batch"

// streamMessages decodes each message of lines into ch until lines ends.
func streamMessages(lines func() (string, bool), ch chan<- map[string]any) {
	defer close(ch)
	for {
		l, ok := lines()
		if !ok {
			return
		}
		var m map[string]any
		var batch []any
		switch {
		case json.Unmarshal([]byte(l), &m) == nil:
			ch <- m
		case json.Unmarshal([]byte(l), &batch) == nil:
			// A batch's answer is one message: an array.
			ch <- map[string]any{"batch": batch}
		}
	}
}

// awaitAnswers reads ch until the answer whose id is want (see exchange),
// skipping notifications; fence, when want is noAnswer, sends the ping
// whose answer (id "fence") ends the wait.
func awaitAnswers(t *testing.T, ch <-chan map[string]any, want any, fence func()) []map[string]any {
	t.Helper()
	if want == noAnswer {
		fence()
		want = "fence"
	}
	var got []map[string]any
	deadline := time.After(time.Minute)
	for {
		select {
		case m, ok := <-ch:
			if !ok {
				t.Fatal("the connection ended")
			}
			if m["method"] != nil {
				continue // a notification of the server's
			}
			// A batch's answer is an array, or one error without an id
			// when the batch as a whole is refused. It is awaited for
			// itself, not fenced by a ping: over legacy SSE each POST is
			// answered on the stream as it finishes, so the ping's answer
			// can come first on a loaded machine.
			if want == batchAnswer && (m["batch"] != nil || (m["id"] == nil && m["error"] != nil)) {
				return append(got, m)
			}
			if fmt.Sprint(m["id"]) == fmt.Sprint(want) {
				if want == "fence" {
					return got
				}
				return append(got, m)
			}
			got = append(got, m)
		case <-deadline:
			t.Fatalf("no answer with id %v within a minute (got %v)", want, got)
		}
	}
}

const fencePing = `{"jsonrpc":"2.0","id":"fence","method":"ping"}`

func initializeAt(v string) string {
	return `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"` + v + `","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
}

const initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

// stdioRaw is the binary over stdio.
type stdioRaw struct {
	r  *rawStdio
	ch chan map[string]any
}

func newStdioRaw(t *testing.T, v string, args ...string) *stdioRaw {
	r := startRawAt(t, v, args...)
	s := &stdioRaw{r: r, ch: make(chan map[string]any, 16)}
	go streamMessages(func() (string, bool) { l, ok := <-r.lines; return l, ok }, s.ch)
	return s
}

func (s *stdioRaw) exchange(t *testing.T, msg string, want any) []map[string]any {
	s.r.t = t
	s.r.send(msg)
	return awaitAnswers(t, s.ch, want, func() { s.r.send(fencePing) })
}

// wsRaw is the binary over a WebSocket, one message a frame.
type wsRaw struct {
	conn *websocket.Conn
	ch   chan map[string]any
}

func newWSRaw(t *testing.T, url, key, v string) *wsRaw {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + key}}})
	if err != nil {
		t.Fatal(err)
	}
	conn.SetReadLimit(64 << 20)
	t.Cleanup(func() { conn.CloseNow() })
	w := &wsRaw{conn: conn, ch: make(chan map[string]any, 16)}
	go streamMessages(func() (string, bool) {
		_, b, err := conn.Read(context.Background())
		return string(b), err == nil
	}, w.ch)
	w.exchange(t, initializeAt(v), "init")
	w.send(t, initialized)
	return w
}

func (w *wsRaw) send(t *testing.T, msg string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := w.conn.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
		t.Fatal(err)
	}
}

func (w *wsRaw) exchange(t *testing.T, msg string, want any) []map[string]any {
	w.send(t, msg)
	return awaitAnswers(t, w.ch, want, func() { w.send(t, fencePing) })
}

// rawPost posts body to url as key with the extra headers, and returns
// the status and the JSON-RPC messages of the answer (a JSON body, or the
// data of every event of a stream).
func rawPost(t *testing.T, url, key, body string, header ...string) (int, []map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+key)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var msgs []map[string]any
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		for l := range strings.SplitSeq(string(b), "\n") {
			if d, ok := strings.CutPrefix(l, "data: "); ok {
				var m map[string]any
				if json.Unmarshal([]byte(d), &m) == nil {
					msgs = append(msgs, m)
				}
			}
		}
	} else if t := bytes.TrimSpace(b); len(t) > 0 {
		var one map[string]any
		var many []any
		if json.Unmarshal(t, &one) == nil {
			msgs = append(msgs, one)
		} else if json.Unmarshal(t, &many) == nil {
			// A batch's answer is one message: an array.
			msgs = append(msgs, map[string]any{"batch": many})
		}
	}
	return res.StatusCode, msgs
}

// httpRaw is the binary over Streamable HTTP: each message is a POST to
// /mcp in one MCP session, with the negotiated version's header.
type httpRaw struct {
	url, key, session, version string
}

func newHTTPRaw(t *testing.T, base, key, v string) *httpRaw {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/mcp", strings.NewReader(initializeAt(v)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	h := &httpRaw{url: base + "/mcp", key: key, session: res.Header.Get("Mcp-Session-Id"), version: v}
	if res.StatusCode != 200 || h.session == "" {
		t.Fatalf("initialize over HTTP: %d, session %q", res.StatusCode, h.session)
	}
	if st, _ := h.post(t, initialized); st != 202 {
		t.Fatalf("initialized over HTTP: %d", st)
	}
	return h
}

func (h *httpRaw) post(t *testing.T, msg string) (int, []map[string]any) {
	return rawPost(t, h.url, h.key, msg, "Mcp-Session-Id", h.session, "MCP-Protocol-Version", h.version)
}

func (h *httpRaw) exchange(t *testing.T, msg string, want any) []map[string]any {
	_, msgs := h.post(t, msg)
	var got []map[string]any
	for _, m := range msgs {
		if m["method"] == nil {
			got = append(got, m)
		}
	}
	return got
}

// sseRaw is the binary over the legacy SSE transport: a stream from GET
// /sse carries every answer, and each message is a POST to the endpoint
// the stream names, without MCP-Protocol-Version (clients of 2024-11-05
// send none).
type sseRaw struct {
	base, key, endpoint string
	ch                  chan map[string]any
	// posted are the answers that came in a POST's response instead of
	// on the stream, where SSE clients do not look for them.
	posted []map[string]any
}

func newSSERaw(t *testing.T, base, key, v string) *sseRaw {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/sse", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); res.Body.Close() })
	if res.StatusCode != 200 {
		t.Fatalf("GET /sse: %d", res.StatusCode)
	}
	s := &sseRaw{base: base, key: key, ch: make(chan map[string]any, 16)}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 64<<20)
	endpoint := make(chan string, 1)
	go streamMessages(func() (string, bool) {
		event := ""
		for sc.Scan() {
			l := sc.Text()
			if e, ok := strings.CutPrefix(l, "event: "); ok {
				event = e
			}
			if d, ok := strings.CutPrefix(l, "data: "); ok {
				if event == "endpoint" {
					endpoint <- d
					continue
				}
				return d, true
			}
		}
		return "", false
	}, s.ch)
	select {
	case s.endpoint = <-endpoint:
	case <-time.After(time.Minute):
		t.Fatal("the SSE stream named no endpoint within a minute")
	}
	s.exchange(t, initializeAt(v), "init")
	s.send(t, initialized)
	return s
}

func (s *sseRaw) send(t *testing.T, msg string) {
	t.Helper()
	st, msgs := rawPost(t, s.base+s.endpoint, s.key, msg)
	if st != http.StatusAccepted || len(msgs) > 0 {
		t.Errorf("POST %.60s to the SSE endpoint: %d %v, want 202 and the answer on the stream", msg, st, msgs)
	}
	s.posted = append(s.posted, msgs...)
}

func (s *sseRaw) exchange(t *testing.T, msg string, want any) []map[string]any {
	s.posted = nil
	s.send(t, msg)
	if len(s.posted) > 0 {
		return s.posted
	}
	return awaitAnswers(t, s.ch, want, func() { s.send(t, fencePing) })
}

// errorOf is an answer's error as code and message, or its result's
// kind, for comparing answers across transports.
func errorOf(m map[string]any) string {
	if b, ok := m["batch"].([]any); ok {
		var parts []string
		for _, e := range b {
			if em, ok := e.(map[string]any); ok {
				parts = append(parts, errorOf(em))
			}
		}
		slices.Sort(parts) // a batch's answers come in any order
		return "batch[" + strings.Join(parts, "; ") + "]"
	}
	if e, ok := m["error"].(map[string]any); ok {
		return fmt.Sprintf("id %v: error %v %v", m["id"], e["code"], e["message"])
	}
	if m["result"] != nil {
		return fmt.Sprintf("id %v: result", m["id"])
	}
	return fmt.Sprint(m)
}

// TestSameJSONRPCChecksOnEveryTransport (issue #23). Before: the legacy
// SSE transport answered some bad messages otherwise than stdio, /mcp
// and /ws did. After: every transport gives each of them the same error
// (code, message and id), and SSE gives it on its stream, where its
// client waits for it.
func TestSameJSONRPCChecksOnEveryTransport(t *testing.T) {
	const limit = "--max-message-size=1048576"
	httpBin := startHTTPBinary(t, limit)
	wsBin := startHTTPBinary(t, limit, "--transport", "websocket")
	huge := `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"type","arguments":{"text":"` + strings.Repeat("x", 2<<20) + `"}}}`
	for _, phase := range []struct {
		version string
		cases   []struct {
			msg  string
			want any // the id answered, or noAnswer
			code float64
		}
	}{
		{"2025-06-18", []struct {
			msg  string
			want any
			code float64
		}{
			{`{"jsonrpc":"2.0","id":1,"method":`, nil, -32700},
			{`{"jsonrpc":"2.0","id":2,"method":"ping"} {"x":1}`, nil, -32700},
			{`"a string"`, nil, -32600},
			{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, nil, -32600},
			{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, nil, -32600},
			{`{"jsonrpc":"2.0","id":5,"method":7}`, 5, -32600},
			{`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":[1]}`, 6, -32602},
			{`[{"jsonrpc":"2.0","id":7,"method":"ping"}]`, nil, -32600},
			{`{"jsonrpc":"1.0","id":8,"method":"ping"}`, 8, -32600},
			{`{"jsonrpc":"2.0","id":9,"method":"no/such/method"}`, 9, -32601},
			{`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`, 10, -32601},
			{`{"jsonrpc":"2.0","id":11,"method":"resources/read","params":{"uri":"browser:///session/someone-elses"}}`, 11, -32002},
			{huge, 12, -32600},
			{`{"jsonrpc":"2.0","method":"notifications/initialized","params":[1]}`, noAnswer, 0},
			{`{"jsonrpc":"2.0","id":13,"method":"ping"}`, 13, 0},
		}},
		{"2025-03-26", []struct {
			msg  string
			want any
			code float64
		}{
			{`[]`, nil, -32600},
			{`[{"jsonrpc":"2.0","id":21,"method":"ping"},{"jsonrpc":"2.0","id":22,"method":"tools/call","params":[1]}]`, nil, 0},
			{`[[{"jsonrpc":"2.0","id":23,"method":"ping"}]]`, nil, 0},
			{`[{"jsonrpc":"2.0","id":24,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}]`, nil, 0},
		}},
	} {
		transports := []struct {
			name string
			tr   rawTransport
		}{
			{"stdio", newStdioRaw(t, phase.version, limit)},
			{"http", newHTTPRaw(t, httpBin.url, httpservetest.KeyA, phase.version)},
			{"sse", newSSERaw(t, httpBin.url, httpservetest.KeyA, phase.version)},
			{"websocket", newWSRaw(t, httpservetest.WSURL(wsBin.url), httpservetest.KeyA, phase.version)},
		}
		for _, c := range phase.cases {
			want := c.want
			if n, ok := want.(int); ok {
				want = float64(n)
			}
			if strings.HasPrefix(c.msg, "[") && want == nil {
				want = batchAnswer
			}
			var ref string
			for i, tr := range transports {
				got := tr.tr.exchange(t, c.msg, want)
				var parts []string
				for _, m := range got {
					parts = append(parts, errorOf(m))
				}
				answer := strings.Join(parts, " | ")
				if i == 0 {
					ref = answer
					if c.code != 0 && !strings.Contains(answer, fmt.Sprintf("error %v ", c.code)) {
						t.Errorf("%s %s over %s: %s, want code %v", phase.version, clipMsg(c.msg), tr.name, answer, c.code)
					}
					continue
				}
				if answer != ref {
					t.Errorf("%s %s:\n  over %s: %s\n  over stdio: %s", phase.version, clipMsg(c.msg), tr.name, answer, ref)
				}
			}
		}
	}
}

func clipMsg(s string) string {
	if len(s) > 90 {
		return s[:90] + "…"
	}
	return s
}

// TestElementsResourceBadSelectorOnEveryTransport (issue #23): a
// resources/read of elements by a selector that does not parse is
// answered -32602 with INVALID_SELECTOR (the code the tools give a bad
// selector) in its message and data, over every transport of the binary,
// never a generic -32603.
func TestElementsResourceBadSelectorOnEveryTransport(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	httpBin := startHTTPBinary(t, "--headless")
	wsBin := startHTTPBinary(t, "--headless", "--transport", "websocket")
	for _, tr := range []struct {
		name string
		tr   rawTransport
	}{
		{"stdio", newStdioRaw(t, "2025-06-18")},
		{"http", newHTTPRaw(t, httpBin.url, httpservetest.KeyA, "2025-06-18")},
		{"sse", newSSERaw(t, httpBin.url, httpservetest.KeyA, "2025-06-18")},
		{"websocket", newWSRaw(t, httpservetest.WSURL(wsBin.url), httpservetest.KeyA, "2025-06-18")},
	} {
		got := tr.tr.exchange(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_session","arguments":{}}}`, 1.0)
		res, _ := got[len(got)-1]["result"].(map[string]any)
		sc, _ := res["structuredContent"].(map[string]any)
		id, _ := sc["sessionId"].(string)
		if id == "" {
			t.Fatalf("create_session over %s: %v", tr.name, got)
		}
		nav := fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"navigate","arguments":{"sessionId":%q,"url":%q}}}`, id, site.URL+"/form.html")
		if got := tr.tr.exchange(t, nav, 2.0); got[len(got)-1]["result"] == nil {
			t.Fatalf("navigate over %s: %v", tr.name, got)
		}
		// Each selector percent-encoded, as the template asks; then as a
		// client may send it, not encoded, which the template cannot match.
		var uris []string
		for _, sel := range []string{"div[[", "##", "a:no-such-pseudo", ":has(", "div >", "//div[@", "xpath=//*[", "%zz["} {
			uris = append(uris, "browser:///elements/"+id+"/0/"+url.PathEscape(sel))
		}
		for _, sel := range []string{"a b [", "div>>", "%zz", `\`, "svg|a", "a:has(>b)"} {
			uris = append(uris, "browser:///elements/"+id+"/0/"+sel, "playwright:///elements/"+id+"/0/"+sel)
		}
		for i, uri := range uris {
			sel := uri
			n := 10 + i
			got := tr.tr.exchange(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":%q}}`, n, uri), float64(n))
			m := got[len(got)-1]
			e, _ := m["error"].(map[string]any)
			data, _ := e["data"].(map[string]any)
			if e == nil || e["code"] != -32602.0 || !strings.HasPrefix(fmt.Sprint(e["message"]), "INVALID_SELECTOR: ") || data["errorCode"] != "INVALID_SELECTOR" {
				t.Errorf("elements of %q over %s: %v, want -32602 with INVALID_SELECTOR", sel, tr.name, m)
			}
		}
	}
}

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/seed4af8c199/browsermcp/internal/httpservetest"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// The tests in this file send calls on one session without waiting for
// the answers, as a pipelining client or an agent's parallel tool calls
// do, over every transport of the built binary (issue 23, item 3).

// wire sends raw JSON-RPC messages to the binary and reads what it
// answers, one message at a time.
type wire interface {
	// send sends msgs in order, each arrived before the next is sent,
	// without waiting for their answers.
	send(msgs ...string)
	// read returns the next message from the server.
	read() map[string]any
}

// call is a tools/call message.
func call(id int, tool string, args map[string]any) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	return string(b)
}

// answers reads until every one of ids is answered, and returns the
// answers it read by id, those to other requests too.
func answers(t *testing.T, w wire, ids ...int) map[int]map[string]any {
	t.Helper()
	got := map[int]map[string]any{}
	left := len(ids)
	for left > 0 {
		m := w.read()
		id, ok := m["id"].(float64)
		if !ok || m["method"] != nil {
			continue
		}
		got[int(id)] = m
		for _, want := range ids {
			if int(id) == want {
				left--
			}
		}
	}
	return got
}

// toolResult reads a tools/call answer: its structured content on
// success, or the errorCode of the error JSON in its text on failure.
func toolResult(t *testing.T, m map[string]any) (out map[string]any, errCode string) {
	t.Helper()
	res, _ := m["result"].(map[string]any)
	if res == nil {
		t.Fatalf("not a tool result: %v", m)
	}
	if res["isError"] == true {
		content, _ := res["content"].([]any)
		text := ""
		if len(content) > 0 {
			text, _ = content[0].(map[string]any)["text"].(string)
		}
		var e struct {
			ErrorCode string `json:"errorCode"`
		}
		json.Unmarshal([]byte(text), &e)
		return nil, e.ErrorCode + ": " + text
	}
	out, _ = res["structuredContent"].(map[string]any)
	return out, ""
}

// createSession creates a session over w and returns its id.
func createSession(t *testing.T, w wire, id int) string {
	t.Helper()
	w.send(call(id, "create_session", nil))
	out, errCode := toolResult(t, answers(t, w, id)[id])
	if errCode != "" {
		t.Fatalf("create_session: %s", errCode)
	}
	return out["sessionId"].(string)
}

// pipeline sends navigate, click and snapshot on one session without
// waiting, reps times: each must run in that order. The click's button
// exists only on the page navigated to, and the snapshot must show the
// page of this repetition after the click. Before: the click ran first
// and answered ELEMENT_NOT_FOUND, the snapshot showed the page before.
// session "" uses the default context.
func pipeline(t *testing.T, w wire, site, session string, reps int) {
	t.Helper()
	for rep := range reps {
		base := 1000 + 10*rep
		args := func(a map[string]any) map[string]any {
			if session != "" {
				a["sessionId"] = session
			}
			return a
		}
		url := fmt.Sprintf("%s/form.html?rep=%d", site, rep)
		w.send(call(base, "navigate", args(map[string]any{"url": url})),
			call(base+1, "click", args(map[string]any{"selector": "#count"})),
			call(base+2, "snapshot", args(map[string]any{})))
		got := answers(t, w, base, base+1, base+2)
		if _, errCode := toolResult(t, got[base]); errCode != "" {
			t.Fatalf("rep %d: navigate failed: %s", rep, errCode)
		}
		if _, errCode := toolResult(t, got[base+1]); errCode != "" {
			t.Fatalf("rep %d: click failed (it ran before the navigate?): %s", rep, errCode)
		}
		snap, errCode := toolResult(t, got[base+2])
		if errCode != "" {
			t.Fatalf("rep %d: snapshot failed: %s", rep, errCode)
		}
		if snap["url"] != url || snap["title"] != "clicked 1" {
			t.Fatalf("rep %d: the snapshot shows %v titled %v, want %s after one click (titled \"clicked 1\")", rep, snap["url"], snap["title"], url)
		}
	}
}

// stdioWire is the binary over stdio: it reads the lines in order.
type stdioWire struct{ r *rawStdio }

func (w stdioWire) send(msgs ...string) {
	for _, m := range msgs {
		w.r.send(m)
	}
}

func (w stdioWire) read() map[string]any { return w.r.read() }

// TestPipelinedCallsRunInOrderOverStdio (issue 23, item 3).
func TestPipelinedCallsRunInOrderOverStdio(t *testing.T) {
	testenv.Chromium(t)
	site := testsite.Start()
	defer site.Close()
	w := stdioWire{startRaw(t)}
	pipeline(t, w, site.URL, createSession(t, w, 1), 20)
	// Without a sessionId: the default context, created by the first
	// navigate while the click and the snapshot wait behind it.
	pipeline(t, w, site.URL, "", 3)
}

// wsWire is a WebSocket connection: one message per frame, read in order.
type wsWire struct {
	t    *testing.T
	conn *websocket.Conn
}

func dialWS(t *testing.T, url string) wsWire {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + httpservetest.KeyA}}})
	if err != nil {
		t.Fatal(err)
	}
	conn.SetReadLimit(64 << 20)
	t.Cleanup(func() { conn.CloseNow() })
	w := wsWire{t, conn}
	w.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	answers(t, w, 0)
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return w
}

func (w wsWire) send(msgs ...string) {
	w.t.Helper()
	for _, m := range msgs {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := w.conn.Write(ctx, websocket.MessageText, []byte(m))
		cancel()
		if err != nil {
			w.t.Fatal(err)
		}
	}
}

func (w wsWire) read() map[string]any {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, b, err := w.conn.Read(ctx)
	if err != nil {
		w.t.Fatalf("reading a frame: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		w.t.Fatalf("%q: %v", b, err)
	}
	return m
}

// TestPipelinedCallsRunInOrderOverWebSocket (issue 23, item 3).
func TestPipelinedCallsRunInOrderOverWebSocket(t *testing.T) {
	testenv.Chromium(t)
	site := testsite.Start()
	defer site.Close()
	s := startHTTPBinary(t, "--transport", "websocket", "--headless")
	w := dialWS(t, "ws"+strings.TrimPrefix(s.url, "http")+"/ws")
	pipeline(t, w, site.URL, createSession(t, w, 1), 20)
}

// post sends body to url with the key and headers, and returns the
// response.
func post(t *testing.T, url, body string, header map[string]string) *http.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+httpservetest.KeyA)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// batchWire is Streamable HTTP at protocol 2025-03-26, which has JSON-RPC
// batches: the messages of one send go as one batch, which the server
// runs at the same time, and the answers come back as one array.
type batchWire struct {
	t       *testing.T
	url     string
	session string
	queue   []map[string]any
}

func (w *batchWire) send(msgs ...string) {
	w.t.Helper()
	res := post(w.t, w.url, "["+strings.Join(msgs, ",")+"]", map[string]string{"Mcp-Session-Id": w.session, "MCP-Protocol-Version": "2025-03-26"})
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode == http.StatusAccepted {
		return
	}
	var ms []map[string]any
	if err := json.Unmarshal(b, &ms); err != nil {
		w.t.Fatalf("batch answered %d %q: %v", res.StatusCode, b, err)
	}
	w.queue = append(w.queue, ms...)
}

func (w *batchWire) read() map[string]any {
	w.t.Helper()
	if len(w.queue) == 0 {
		w.t.Fatal("no answer left")
	}
	m := w.queue[0]
	w.queue = w.queue[1:]
	return m
}

// TestPipelinedCallsRunInOrderOverHTTP (issue 23, item 3): a batch over
// Streamable HTTP, whose calls the server runs at the same time, and
// messages posted one after another to the legacy SSE transport, each
// accepted (202) before the next is sent, answered on the stream.
func TestPipelinedCallsRunInOrderOverHTTP(t *testing.T) {
	testenv.Chromium(t)
	site := testsite.Start()
	defer site.Close()
	s := startHTTPBinary(t, "--headless")

	res := post(t, s.url+"/mcp", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, nil)
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	bw := &batchWire{t: t, url: s.url + "/mcp", session: res.Header.Get("Mcp-Session-Id")}
	if res.StatusCode != http.StatusOK || bw.session == "" {
		t.Fatalf("initialize: %d, session %q", res.StatusCode, bw.session)
	}
	bw.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	pipeline(t, bw, site.URL, createSession(t, bw, 1), 20)

	sw := dialSSE(t, s.url)
	pipeline(t, sw, site.URL, createSession(t, sw, 1), 20)
}

// sseWire is the legacy SSE transport: messages are posted to the
// stream's endpoint, each accepted (202) before the next is sent, and
// answered on the stream.
type sseWire struct {
	t        *testing.T
	base     string
	endpoint string
	events   chan map[string]any
}

func dialSSE(t *testing.T, base string) *sseWire {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/sse", nil)
	req.Header.Set("Authorization", "Bearer "+httpservetest.KeyA)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	w := &sseWire{t: t, base: base, events: make(chan map[string]any, 64)}
	endpoint := make(chan string, 1)
	go func() {
		defer res.Body.Close()
		defer close(w.events)
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, 16<<20)
		event := ""
		for sc.Scan() {
			line := sc.Text()
			if e, ok := strings.CutPrefix(line, "event: "); ok {
				event = e
				continue
			}
			data, ok := strings.CutPrefix(line, "data: ")
			switch {
			case !ok:
			case event == "endpoint":
				endpoint <- strings.TrimSpace(data)
			default:
				var m map[string]any
				if json.Unmarshal([]byte(data), &m) == nil {
					w.events <- m
				}
			}
		}
	}()
	select {
	case w.endpoint = <-endpoint:
	case <-time.After(time.Minute):
		t.Fatal("no endpoint event")
	}
	w.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	answers(t, w, 0)
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return w
}

func (w *sseWire) send(msgs ...string) {
	w.t.Helper()
	for _, m := range msgs {
		res := post(w.t, w.base+w.endpoint, m, nil)
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusAccepted {
			w.t.Fatalf("posting %.60s: %d %s", m, res.StatusCode, bytes.TrimSpace(b))
		}
	}
}

func (w *sseWire) read() map[string]any {
	w.t.Helper()
	select {
	case m, ok := <-w.events:
		if !ok {
			w.t.Fatal("the SSE stream ended")
		}
		return m
	case <-time.After(time.Minute):
		w.t.Fatal("no answer within a minute")
	}
	return nil
}

// TestSessionsRunInParallelAndCancelledCallsLeaveTheLine (issue 23, item
// 3): a long call on session A does not hold up a call on session B, and
// a call cancelled while it waits for its turn leaves the line at once:
// it never runs, and the call behind it runs as soon as the session is
// free.
func TestSessionsRunInParallelAndCancelledCallsLeaveTheLine(t *testing.T) {
	testenv.Chromium(t)
	site := testsite.Start()
	defer site.Close()
	w := stdioWire{startRaw(t)}
	a, b := createSession(t, w, 1), createSession(t, w, 2)
	w.send(call(3, "navigate", map[string]any{"sessionId": a, "url": site.URL + "/form.html?before"}))
	answers(t, w, 3)

	// A waits two minutes; B's navigate and snapshot answer meanwhile.
	w.send(call(10, "wait_for_selector", map[string]any{"sessionId": a, "selector": "#never", "timeout": 120000}),
		call(11, "navigate", map[string]any{"sessionId": b, "url": site.URL + "/welcome.html"}),
		call(12, "snapshot", map[string]any{"sessionId": b}))
	got := answers(t, w, 11, 12)
	if snap, errCode := toolResult(t, got[12]); errCode != "" || !strings.HasSuffix(snap["url"].(string), "/welcome.html") {
		t.Fatalf("session B's snapshot while A waits: %v %s", snap, errCode)
	}

	// Behind A's wait: a navigate, cancelled while it waits, and a
	// snapshot. Then A's wait is cancelled: the snapshot runs and shows
	// the page from before, as the cancelled navigate never ran.
	w.send(call(13, "navigate", map[string]any{"sessionId": a, "url": site.URL + "/form.html?cancelled"}),
		call(14, "snapshot", map[string]any{"sessionId": a}),
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":13,"reason":"test"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10,"reason":"test"}}`)
	for id, m := range answers(t, w, 14) {
		got[id] = m
	}
	if snap, errCode := toolResult(t, got[14]); errCode != "" || !strings.HasSuffix(snap["url"].(string), "/form.html?before") {
		t.Fatalf("behind the cancelled navigate, session A shows %v %s, want the page from before", snap, errCode)
	}
	// A ping answered after the next call proves that no answer of the
	// cancelled calls is still to come.
	w.send(call(15, "snapshot", map[string]any{"sessionId": a}), `{"jsonrpc":"2.0","id":16,"method":"ping"}`)
	for id, m := range answers(t, w, 15, 16) {
		got[id] = m
	}
	for _, id := range []int{10, 13} {
		if m, ok := got[id]; ok {
			t.Fatalf("the cancelled call %d was answered: %v", id, m)
		}
	}
	if snap, errCode := toolResult(t, got[15]); errCode != "" || !strings.HasSuffix(snap["url"].(string), "/form.html?before") {
		t.Fatalf("session A after the cancelled calls shows %v %s, want the page from before", snap, errCode)
	}
}

// streamable posts one message to a Streamable HTTP session and returns
// the messages of its answer, a JSON body or an event stream, as they
// come: each on the channel, which closes when the answer ends.
func streamable(ctx context.Context, t *testing.T, url, session, body string) <-chan map[string]any {
	req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+httpservetest.KeyA)
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	out := make(chan map[string]any, 16)
	go func() {
		defer close(out)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return
		}
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			line := strings.TrimPrefix(sc.Text(), "data: ")
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) == nil {
				out <- m
			}
		}
	}()
	return out
}

// next returns the next message of an answer.
func next(t *testing.T, ms <-chan map[string]any) map[string]any {
	t.Helper()
	select {
	case m, ok := <-ms:
		if !ok {
			t.Fatal("the answer ended")
		}
		return m
	case <-time.After(time.Minute):
		t.Fatal("no message within a minute")
	}
	return nil
}

// TestCallWhosePOSTGoesAwayLeavesTheLine (issue 23, item 3): over
// Streamable HTTP a call waiting for its turn whose request goes away (the
// client closed it) leaves the line: it never runs, and the call behind it
// runs once the session is free.
func TestCallWhosePOSTGoesAwayLeavesTheLine(t *testing.T) {
	testenv.Chromium(t)
	site := testsite.Start()
	defer site.Close()
	s := startHTTPBinary(t, "--headless", "--log-level", "debug")
	url := s.url + "/mcp"
	res := post(t, url, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, nil)
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	session := res.Header.Get("Mcp-Session-Id")
	ctx := t.Context()
	for range streamable(ctx, t, url, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`) {
	}
	out, errCode := toolResult(t, next(t, streamable(ctx, t, url, session, call(1, "create_session", nil))))
	if errCode != "" {
		t.Fatal(errCode)
	}
	id := out["sessionId"].(string)
	if _, errCode := toolResult(t, next(t, streamable(ctx, t, url, session, call(2, "navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html?before"})))); errCode != "" {
		t.Fatal(errCode)
	}

	// A waits two minutes; B, behind it, reports progress as it arrives,
	// and then its client goes away.
	withProgress := func(id int, tool string, args map[string]any) string {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
			"params": map[string]any{"name": tool, "arguments": args, "_meta": map[string]any{"progressToken": tool}}})
		return string(b)
	}
	if m := next(t, streamable(ctx, t, url, session, withProgress(10, "wait_for_selector", map[string]any{"sessionId": id, "selector": "#never", "timeout": 120000}))); m["method"] != "notifications/progress" {
		t.Fatalf("want wait_for's first progress, got %v", m)
	}
	bctx, goAway := context.WithCancel(ctx)
	if m := next(t, streamable(bctx, t, url, session, withProgress(11, "navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html?gone"}))); m["method"] != "notifications/progress" {
		t.Fatalf("want navigate's first progress, got %v", m)
	}
	goAway()
	testenv.Eventually(t, "the server to drop the navigate whose request went away", func() (bool, error) {
		stderrMu.Lock()
		defer stderrMu.Unlock()
		for l := range strings.Lines(s.log.String()) {
			if strings.Contains(l, "tool failed") && strings.Contains(l, "navigate") {
				return true, nil
			}
		}
		return false, nil
	})
	snap := streamable(ctx, t, url, session, call(12, "snapshot", map[string]any{"sessionId": id}))
	for m := range streamable(ctx, t, url, session, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10,"reason":"test"}}`) {
		t.Errorf("the cancellation was answered: %v", m)
	}
	got, errCode := toolResult(t, next(t, snap))
	if errCode != "" || !strings.HasSuffix(got["url"].(string), "/form.html?before") {
		t.Fatalf("behind the navigate whose request went away, the session shows %v %s, want the page from before", got, errCode)
	}
}

// TestPipelinedSwitchAndCloseOverStdio (issue 23, item 3): a call without
// sessionId sent right after browser_context_switch runs on the context
// switched to, even while an earlier call holds the context it was sent
// from, and a call that names that context sent after it sees what it
// did; close_session and browser_context_close run after the calls queued
// on the session they close. Before, the switches took no turn and ran at
// once (the navigate, queued on a, landed on a after the switch back), and
// the closes jumped ahead of the calls queued on their session, which
// failed.
func TestPipelinedSwitchAndCloseOverStdio(t *testing.T) {
	testenv.Chromium(t)
	site := testsite.Start()
	defer site.Close()
	w := stdioWire{startRaw(t)}
	ok := func(got map[int]map[string]any, id int, what string) map[string]any {
		t.Helper()
		out, errCode := toolResult(t, got[id])
		if errCode != "" {
			t.Fatalf("%s: %s", what, errCode)
		}
		return out
	}
	for i, c := range []string{
		call(1, "browser_context_create", map[string]any{"name": "a"}),
		call(2, "browser_context_create", map[string]any{"name": "b"}),
		call(3, "browser_context_switch", map[string]any{"name": "a"}),
	} {
		w.send(c)
		ok(answers(t, w, i+1), i+1, c)
	}

	slow := site.URL + "/slow?ms=1500"
	form := site.URL + "/form.html?on=b"
	w.send(call(10, "navigate", map[string]any{"sessionId": "a", "url": slow}),
		call(11, "browser_context_switch", map[string]any{"name": "b"}),
		call(12, "navigate", map[string]any{"url": form}),
		call(13, "snapshot", map[string]any{"sessionId": "b"}),
		call(14, "browser_context_switch", map[string]any{"name": "a"}))
	got := answers(t, w, 10, 11, 12, 13, 14)
	for id := 10; id <= 14; id++ {
		ok(got, id, fmt.Sprintf("call %d", id))
	}
	if snap := ok(got, 13, "snapshot of b"); snap["url"] != form {
		t.Fatalf("b shows %v after the navigate sent after the switch to b, want %s", snap["url"], form)
	}
	w.send(call(15, "snapshot", map[string]any{"sessionId": "a"}))
	if snap := ok(answers(t, w, 15), 15, "snapshot of a"); snap["url"] != slow {
		t.Fatalf("a shows %v, want %s: the navigate meant for b landed on a", snap["url"], slow)
	}

	// close_session after calls queued on its session: they run first.
	w.send(call(20, "navigate", map[string]any{"sessionId": "b", "url": site.URL + "/slow?ms=1000"}),
		call(21, "snapshot", map[string]any{"sessionId": "b"}),
		call(22, "close_session", map[string]any{"sessionId": "b"}),
		call(23, "snapshot", map[string]any{"sessionId": "b"}))
	got = answers(t, w, 20, 21, 22, 23)
	ok(got, 20, "navigate queued before close_session")
	if snap := ok(got, 21, "snapshot queued before close_session"); snap["title"] != "slow" {
		t.Fatalf("the snapshot before close_session shows %v, want the slow page", snap["title"])
	}
	ok(got, 22, "close_session")
	if _, errCode := toolResult(t, got[23]); !strings.HasPrefix(errCode, "SESSION_NOT_FOUND") {
		t.Fatalf("a snapshot sent after close_session: %q, want SESSION_NOT_FOUND", errCode)
	}

	// browser_context_close likewise.
	w.send(call(30, "navigate", map[string]any{"sessionId": "a", "url": site.URL + "/slow?ms=1000"}),
		call(31, "browser_context_close", map[string]any{"name": "a"}))
	got = answers(t, w, 30, 31)
	ok(got, 30, "navigate queued before browser_context_close")
	ok(got, 31, "browser_context_close")
}

// TestPipelinedCallsRunInOrderThroughTheTypeScriptSDK (issue 23, item 3):
// the official TypeScript SDK sends each request over HTTP with a fetch
// of its own, on several connections, so calls sent at once reach the
// server in any order: 10 of 30 navigate, click, snapshot groups ran out
// of order over Streamable HTTP before the server put them back in the
// order of their ids (jsonrpc.Order).
func TestPipelinedCallsRunInOrderThroughTheTypeScriptSDK(t *testing.T) {
	testenv.Chromium(t)
	node, dir := testenv.TSClient(t)
	site := testsite.Start()
	defer site.Close()
	s := startHTTPBinary(t, "--headless")
	const reps = 30
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "pipeline.mjs", s.url, httpservetest.KeyA, site.URL, strconv.Itoa(reps))
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node pipeline.mjs: %v\n%s\n%s", err, out, stderr.String())
	}
	var got map[string]struct {
		Reps  int              `json:"reps"`
		Wrong []map[string]any `json:"wrong"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("pipeline.mjs printed %s: %v", out, err)
	}
	for _, transport := range []string{"streamable", "sse"} {
		r := got[transport]
		if r.Reps != reps {
			t.Errorf("%s: %d repetitions ran, want %d", transport, r.Reps, reps)
		}
		for _, w := range r.Wrong {
			t.Errorf("%s: repetition %v ran out of order: navigate %v, click %v, snapshot %v", transport, w["rep"], w["navigate"], w["click"], w["snapshot"])
		}
	}
}

package jsonrpc

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// Turns orders the calls on each session by their arrival: a client may
// send navigate, click and snapshot without waiting for the answers, and
// they must run in that order. The transports read messages in order but
// run each request on a goroutine of its own, so the order is taken where
// they read: each tools/call takes a turn (Take) before any goroutine
// starts, its token travels in the request's params._meta[TurnMeta] to the
// handler, which waits for the turns before it, and the transport ends
// the turn (Leave) when the request is answered or cancelled, or its POST
// ends. A token the client put there itself is removed.
type Turns interface {
	// Take returns the token of the turn of a request as it arrives, or
	// "" when it waits for none (a call that touches no session).
	Take(ctx context.Context, method string, params json.RawMessage) string
	// Leave ends a turn; ending one twice does nothing.
	Leave(token string)
}

// TurnMeta is the member of params._meta that carries a call's turn.
const TurnMeta = "browsermcp/turn"

// turn takes the turn of a tools/call request and stamps its token in the
// message, which it returns with its id; any other message is returned as
// it is.
func (g Guard) turn(ctx context.Context, msg []byte) (out []byte, token string, id any) {
	if g.Turns == nil {
		return msg, "", nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return msg, "", nil
	}
	var method string
	if json.Unmarshal(m["method"], &method) != nil || method != string(mcp.MethodToolsCall) || json.Unmarshal(m["id"], &id) != nil || id == nil {
		return msg, "", nil
	}
	var params, meta map[string]json.RawMessage
	if json.Unmarshal(m["params"], &params) != nil || params == nil {
		return msg, "", nil // mcp-go refuses it
	}
	if raw, ok := params["_meta"]; ok && json.Unmarshal(raw, &meta) != nil {
		return msg, "", nil // mcp-go refuses it
	}
	_, forged := meta[TurnMeta]
	token = g.Turns.Take(ctx, method, m["params"])
	if token == "" && !forged {
		return msg, "", nil
	}
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	delete(meta, TurnMeta)
	if token != "" {
		meta[TurnMeta], _ = json.Marshal(token)
	}
	params["_meta"], _ = json.Marshal(meta)
	m["params"], _ = json.Marshal(params)
	b, err := json.Marshal(m)
	if err != nil {
		g.Turns.Leave(token)
		return msg, "", nil
	}
	return b, token, id
}

// TurnOf is the token the transport stamped in a tools/call (Turns).
func TurnOf(meta *mcp.Meta) string {
	if meta == nil {
		return ""
	}
	t, _ := meta.AdditionalFields[TurnMeta].(string)
	return t
}

// inTurn knows the turns of the requests in flight on one stdio or
// WebSocket connection, by request id, to end each when its answer is
// written, whatever wrote it (the handler, or mcp-go refusing the call
// before any handler ran), or the client cancels it, or the stream ends
// (EndTurns). It holds every turn: Turns bounds how many are taken.
type inTurn struct {
	mu    sync.Mutex
	leave func(string)
	byID  map[string]string
}

func (t *inTurn) start(id, token string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byID == nil {
		t.byID = map[string]string{}
	}
	if old, ok := t.byID[id]; ok {
		// A client reused the id of a request in flight.
		defer t.leave(old)
	}
	t.byID[id] = token
}

func (t *inTurn) any() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.byID) > 0
}

// endAll ends every turn still in flight.
func (t *inTurn) endAll() {
	t.mu.Lock()
	byID := t.byID
	t.byID = nil
	t.mu.Unlock()
	for _, token := range byID {
		t.leave(token)
	}
}

func (t *inTurn) end(id string) {
	t.mu.Lock()
	token, ok := t.byID[id]
	delete(t.byID, id)
	t.mu.Unlock()
	if ok {
		t.leave(token)
	}
}

// turnWriter notes the status of a POST's answer: a request answered with
// 202 Accepted runs on after its POST, and its handler ends its turn (the
// legacy SSE transport no longer comes this way: its stream takes turns
// as /ws does, in Reader).
type turnWriter struct {
	http.ResponseWriter
	status int
}

func (w *turnWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *turnWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

func (w *turnWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

type turnFlusher struct{ *turnWriter }

func (w turnFlusher) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

// afterPOST returns w wrapped to note its status, and the func that ends
// token's turn when the POST is over, unless the request runs on.
func (g Guard) afterPOST(w http.ResponseWriter, token string) (http.ResponseWriter, func()) {
	if token == "" {
		return w, func() {}
	}
	tw := &turnWriter{ResponseWriter: w}
	end := func() {
		if tw.status != http.StatusAccepted {
			g.Turns.Leave(token)
		}
	}
	if _, ok := w.(http.Flusher); ok {
		return turnFlusher{tw}, end
	}
	return tw, end
}

package httpserve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/jsonrpc"
)

// The legacy SSE transport (protocol 2024-11-05): GET /sse opens an event
// stream whose first event names the endpoint to post messages to,
// /message?sessionId=<id>; every answer and notification travels on the
// stream, and a POST is answered 202. The stream is the MCP session, and
// it is served as a WebSocket connection is (streamServer): the posted
// messages are the lines its guard reads, so a message is checked,
// refused and answered on SSE exactly as on stdio, /ws and /mcp, and the
// version the stream negotiated decides whether it takes batches. A
// stream takes messages only from the key that opened it.

// sseStream is one open SSE stream.
type sseStream struct {
	owner string
	// mu makes each posted message one whole line of in.
	mu sync.Mutex
	in *io.PipeWriter
}

// sseStreams are the open SSE streams, ended by CloseSessions.
type sseStreams struct {
	mu      sync.Mutex
	streams map[string]*sseStream
	closed  bool // closeAll has run: no more streams
	cancels map[string]context.CancelFunc
	wg      sync.WaitGroup
}

func (c *sseStreams) add(id string, s *sseStream, cancel context.CancelFunc) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	if c.streams == nil {
		c.streams, c.cancels = map[string]*sseStream{}, map[string]context.CancelFunc{}
	}
	c.streams[id], c.cancels[id] = s, cancel
	c.wg.Add(1)
	return true
}

func (c *sseStreams) remove(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.streams, id)
	delete(c.cancels, id)
	c.wg.Done()
}

func (c *sseStreams) get(id string) *sseStream {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.streams[id]
}

// closeAll ends every stream and waits until each is served out.
func (c *sseStreams) closeAll() {
	c.mu.Lock()
	c.closed = true
	for _, cancel := range c.cancels {
		cancel()
	}
	c.mu.Unlock()
	c.wg.Wait()
}

// serveSSE opens an event stream and serves the MCP session on it until
// the client goes or the server shuts down.
func (h *Handler) serveSSE(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		httpError(w, http.StatusMethodNotAllowed, "method_not_allowed", "open the SSE stream with GET /sse")
		return
	}
	if _, ok := w.(http.Flusher); !ok {
		httpError(w, http.StatusInternalServerError, "no_streaming", "this connection cannot stream events")
		return
	}
	id := uuid.NewString()
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	pr, pw := io.Pipe()
	st := &sseStream{owner: engine.OwnerOf(r.Context()), in: pw}
	if !h.sse.add(id, st, cancel) {
		httpError(w, http.StatusServiceUnavailable, "shutting_down", "the server is shutting down")
		return
	}
	defer h.sse.remove(id)

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Connection", "keep-alive")
	w.WriteHeader(http.StatusOK)
	ev := &eventWriter{w: w, rc: http.NewResponseController(w)}
	if err := ev.event("endpoint", []byte("/message?sessionId="+id)); err != nil {
		return
	}
	// The stream's end (the client gone, or shutdown) ends the lines.
	stop := context.AfterFunc(ctx, func() { pw.CloseWithError(errSSEEnded) })
	defer stop()
	s := &streamServer{srv: h.srv, guard: h.guard, log: h.log, out: jsonrpc.NewLockedWriter(ev)}
	if err := s.serve(ctx, "sse-"+id, pr); err != nil {
		h.log.Warn("serving an SSE stream", "err", err)
	}
	pr.CloseWithError(errSSEEnded) // posts to it fail from now on
}

// errSSEEnded is why the lines of a stream that ended stop.
var errSSEEnded = errors.New("the SSE stream has ended")

// postMessage takes a message posted to the endpoint of a stream: it goes
// to the stream's guard as one line (its newlines, whitespace in valid
// JSON, become spaces), and every answer to it travels on the stream.
func (h *Handler) postMessage(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		httpError(w, http.StatusMethodNotAllowed, "method_not_allowed", "post messages to the endpoint the SSE stream named")
		return
	}
	id := r.URL.Query().Get("sessionId")
	st := h.sse.get(id)
	switch {
	case id == "":
		httpError(w, http.StatusBadRequest, "missing_session", "post to the endpoint the SSE stream named: /message?sessionId=<id>")
		return
	case st == nil:
		httpError(w, http.StatusNotFound, "session_not_found", "no such SSE stream: open a new one with GET /sse")
		return
	case st.owner != engine.OwnerOf(r.Context()):
		httpError(w, http.StatusForbidden, "forbidden", "this SSE stream belongs to another API key")
		return
	}
	// One byte past the limit is enough for the guard to refuse the
	// message as too large; the rest is not read.
	// A request waits for the ones its client posted before it (the
	// TypeScript SDK posts each with its own fetch), then takes its place
	// on the stream.
	limit := h.guard.Max() + 1
	msg, err := io.ReadAll(io.LimitReader(r.Body, limit))
	if err == nil {
		entered := func() {}
		if m, ok := jsonrpc.Parse(msg); ok && m.Method != "" && m.HasID {
			entered = h.guard.Order.Enter(r.Context(), "sse-"+id, m.ID)
		}
		st.mu.Lock()
		err = copyLine(st.in, bytes.NewReader(msg), make([]byte, 32<<10))
		st.mu.Unlock()
		entered()
	}
	switch {
	case errors.Is(err, errSSEEnded) || errors.Is(err, io.ErrClosedPipe):
		httpError(w, http.StatusNotFound, "session_not_found", "the SSE stream has ended: open a new one with GET /sse")
	case err != nil:
		httpError(w, http.StatusBadRequest, "bad_request", "reading the message: "+err.Error())
	default:
		w.WriteHeader(http.StatusAccepted)
	}
}

// copyLine writes what r holds to w as one line, reading through buf: a
// newline inside the message (whitespace, in valid JSON) becomes a space,
// so one POST body or WebSocket frame is one message however it is
// formatted.
func copyLine(w io.Writer, r io.Reader, buf []byte) error {
	for {
		n, err := r.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			for i, c := range chunk {
				if c == '\n' {
					chunk[i] = ' '
				}
			}
			if _, werr := w.Write(chunk); werr != nil {
				return werr
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			// The message is cut short: end its line all the same, so
			// that the next message is a line of its own.
			w.Write([]byte{'\n'})
			return err
		}
	}
	_, err := w.Write([]byte{'\n'})
	return err
}

// eventWriter sends each line written to it as one event of the stream,
// a message event, and flushes it; a client that stops reading loses
// its stream rather than hold answers forever.
type eventWriter struct {
	mu sync.Mutex
	w  http.ResponseWriter
	rc *http.ResponseController
}

func (e *eventWriter) Write(p []byte) (int, error) {
	written := len(p)
	for len(p) > 0 {
		line := p
		n := len(p)
		for i, c := range p {
			if c == '\n' {
				line, n = p[:i], i+1
				break
			}
		}
		p = p[n:]
		if len(line) == 0 {
			continue
		}
		if err := e.event("message", line); err != nil {
			return 0, err
		}
	}
	return written, nil
}

func (e *eventWriter) event(name string, data []byte) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	_ = e.rc.SetWriteDeadline(time.Now().Add(wsWriteTimeout))
	if _, err := fmt.Fprintf(e.w, "event: %s\ndata: %s\n\n", name, data); err != nil {
		return err
	}
	return e.rc.Flush()
}

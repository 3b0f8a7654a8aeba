package httpserve

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/server"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/jsonrpc"
)

// inflight drops the answer of a request its client cancelled
// (notifications/cancelled): MCP says no response is sent for it. mcp-go
// stops the work but would still answer. A request is known by its key's
// owner, its MCP session (none in protocol 2026-07-28) and its id, while
// its POST is open.
type inflight struct {
	mu   sync.Mutex
	reqs map[string]*cancelWriter
}

func requestKey(r *http.Request, id any) string {
	return engine.OwnerOf(r.Context()) + "\x00" + r.Header.Get(server.HeaderKeySessionID) + "\x00" + jsonrpc.IDKey(id)
}

func (f *inflight) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		m, ok := jsonrpc.Parse(body)
		switch {
		case !ok:
		case m.CancelledID != nil:
			f.mu.Lock()
			if cw := f.reqs[requestKey(r, m.CancelledID)]; cw != nil {
				cw.cancel()
			}
			f.mu.Unlock()
		case m.Method != "" && m.HasID:
			key := requestKey(r, m.ID)
			cw := &cancelWriter{ResponseWriter: w, id: jsonrpc.IDKey(m.ID)}
			f.mu.Lock()
			f.reqs[key] = cw
			f.mu.Unlock()
			defer func() {
				f.mu.Lock()
				if f.reqs[key] == cw {
					delete(f.reqs, key)
				}
				f.mu.Unlock()
				cw.finish()
			}()
			w = cw
		}
		next.ServeHTTP(w, r)
	})
}

// cancelWriter passes a request's answer on unless the request was
// cancelled: then a JSON answer becomes an empty 202, and on an SSE stream
// the response event is left out (notifications still pass).
type cancelWriter struct {
	http.ResponseWriter
	id string

	mu        sync.Mutex
	cancelled bool
	status    int  // held until the first Write
	wrote     bool // the header went out
	dropping  bool // the JSON body is being dropped
}

func (c *cancelWriter) cancel() {
	c.mu.Lock()
	c.cancelled = true
	c.mu.Unlock()
}

func (c *cancelWriter) WriteHeader(status int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.wrote && c.status == 0 {
		c.status = status
	}
}

func (c *cancelWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sse := strings.HasPrefix(c.Header().Get("Content-Type"), "text/event-stream")
	if !c.wrote {
		if c.cancelled && !sse {
			c.dropping = true
			c.ResponseWriter.WriteHeader(http.StatusAccepted)
		} else if c.status != 0 {
			c.ResponseWriter.WriteHeader(c.status)
		}
		c.wrote = true
	}
	if c.dropping {
		return len(p), nil
	}
	if sse && c.cancelled {
		if data, ok := bytes.CutPrefix(p, []byte("event: message\ndata: ")); ok {
			if id, ok := jsonrpc.ResponseID(data); ok && jsonrpc.IDKey(id) == c.id {
				return len(p), nil
			}
		}
	}
	return c.ResponseWriter.Write(p)
}

func (c *cancelWriter) Flush() {
	c.mu.Lock()
	if !c.wrote && c.status != 0 {
		c.ResponseWriter.WriteHeader(c.status)
		c.wrote = true
	}
	c.mu.Unlock()
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// finish sends a header that was held and never followed by a body.
func (c *cancelWriter) finish() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.wrote && c.status != 0 {
		c.ResponseWriter.WriteHeader(c.status)
		c.wrote = true
	}
}

func (c *cancelWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

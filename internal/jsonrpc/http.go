package jsonrpc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// Handler checks the JSON-RPC message of every POST to next: a body over
// g.MaxMessage is refused with 413, a message Inspect refuses is answered
// with its error (HTTP 400 for a malformed message, as mcp-go answers a
// parse error; 200 for a request refused by Check), and the rest reaches
// next with the body it read.
func Handler(g Guard, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, g.max()))
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				write(w, http.StatusRequestEntityTooLarge, g.TooLarge(body))
				return
			}
			http.Error(w, "reading the request: "+err.Error(), http.StatusBadRequest)
			return
		}
		if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '[' && json.Valid(t) {
			serveBatch(g, next, w, r, t)
			return
		}
		m, _ := Parse(body)
		sid := r.Header.Get(HeaderSession)
		if resp, code := g.Inspect(r.Context(), body); code != 0 {
			if m.Method != "" && m.HasID {
				// Refused, it has gone on all the same.
				g.Order.Note(sid, m.ID)
			}
			if resp == nil {
				w.WriteHeader(http.StatusAccepted) // a notification
				return
			}
			status := http.StatusBadRequest // a malformed message
			if code > InvalidRequest {
				// A valid request, answered with an error (-32002).
				status = http.StatusOK
			}
			write(w, status, resp)
			return
		}
		// A request waits for the ones its client sent before it, then
		// takes its turn.
		entered := func() {}
		if m.Method != "" && m.HasID {
			entered = g.Order.Enter(r.Context(), sid, m.ID)
		}
		body, token, _ := g.turn(r.Context(), body)
		entered()
		w, end := g.afterPOST(w, token)
		defer end()
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(g.Writer(w), r)
		if m.Method == "initialize" && sid == "" && g.Order != nil {
			// The client's next request follows its initialize's id.
			if n, ok := intID(m.ID); ok {
				g.Order.Base(w.Header().Get(HeaderSession), n+1)
			}
		}
	})
}

// HeaderSession is Streamable HTTP's header of the client's MCP session.
const HeaderSession = "Mcp-Session-Id"

func write(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

// serveBatch answers a batch over HTTP: each of its messages goes to next
// as a POST of its own, with the batch's headers, at the same time, and
// the answers come back as one array (202 when there is none). The
// version is the MCP-Protocol-Version header, 2025-03-26 without one, as
// the specification says. A message refused at the HTTP level (an unknown
// or missing MCP session) answers the whole batch so.
func serveBatch(g Guard, next http.Handler, w http.ResponseWriter, r *http.Request, msg []byte) {
	v := r.Header.Get(mcp.HeaderProtocolVersion)
	if v == "" {
		v = mcp.ProtocolVersion20250326
	}
	if !BatchesAllowed(v) {
		write(w, http.StatusBadRequest, batchRefusal(v))
		return
	}
	elems, bad := splitBatch(msg)
	if bad != nil {
		write(w, http.StatusBadRequest, bad)
		return
	}
	answers := make([][]byte, len(elems))
	var failed *recorder
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i, e := range elems {
		m, _ := Parse(e)
		noted := func() {
			// A batch's order is its own: its requests wait for none.
			if m.Method != "" && m.HasID {
				g.Order.Note(r.Header.Get(HeaderSession), m.ID)
			}
		}
		if resp, code := g.inBatch(r.Context(), e); code != 0 {
			answers[i] = resp
			noted()
			continue
		}
		// The turns are taken here, in the batch's order, before its
		// requests run at the same time.
		e, token, _ := g.turn(r.Context(), e)
		noted()
		wg.Go(func() {
			rec := &recorder{header: http.Header{}}
			w, end := g.afterPOST(rec, token)
			defer end()
			sub := r.Clone(r.Context())
			sub.Body = io.NopCloser(bytes.NewReader(e))
			sub.ContentLength = int64(len(e))
			next.ServeHTTP(g.Writer(w), sub)
			answer, ok := rec.answer()
			mu.Lock()
			defer mu.Unlock()
			switch {
			case ok:
				answers[i] = answer
			case rec.status >= 400 && failed == nil:
				failed = rec
			}
		})
	}
	wg.Wait()
	if failed != nil {
		for k, vs := range failed.header {
			w.Header()[k] = vs
		}
		w.WriteHeader(failed.status)
		w.Write(failed.body.Bytes())
		return
	}
	var out []json.RawMessage
	for _, a := range answers {
		if a != nil {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	b, _ := json.Marshal(out)
	write(w, http.StatusOK, b)
}

// recorder takes one message's answer. It cannot flush, so mcp-go
// answers in JSON rather than open an event stream.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (c *recorder) Header() http.Header { return c.header }

func (c *recorder) WriteHeader(status int) {
	if c.status == 0 {
		c.status = status
	}
}

func (c *recorder) Write(p []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	return c.body.Write(p)
}

// answer is the JSON-RPC response recorded, from a JSON body or the
// events of a stream.
func (c *recorder) answer() ([]byte, bool) {
	b := bytes.TrimSpace(c.body.Bytes())
	if len(b) > 0 && b[0] == '{' {
		if _, ok := ResponseID(b); ok || isError(b) {
			return b, true
		}
		return nil, false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, len(b)+1)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			if _, ok := ResponseID([]byte(d)); ok {
				return []byte(d), true
			}
		}
	}
	return nil, false
}

// isError reports whether b is a JSON-RPC error response without an id
// (as a parse error is).
func isError(b []byte) bool {
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		Error   json.RawMessage `json:"error"`
	}
	return json.Unmarshal(b, &m) == nil && m.JSONRPC == "2.0" && len(m.Error) > 0
}

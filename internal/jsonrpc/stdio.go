package jsonrpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
)

// Reader returns what mcp-go's stdio server should read from in: the
// messages of in, one a line, that g lets pass. A refused message is
// answered on out at once and never reaches mcp-go; a line longer than
// g.MaxMessage is skipped as it streams in, without being held in memory.
// out must be the writer mcp-go answers on, wrapped by LockedWriter so
// that answers never interleave.
func Reader(ctx context.Context, g Guard, in io.Reader, out *LockedWriter) io.Reader {
	if g.Recode != nil {
		out.answer = g.Answer
	}
	if g.Turns != nil {
		out.turns.leave = g.Turns.Leave
	}
	return &reader{ctx: ctx, g: g, in: bufio.NewReaderSize(in, 64<<10), out: out}
}

type reader struct {
	ctx  context.Context
	g    Guard
	in   *bufio.Reader
	out  *LockedWriter
	line []byte // the accepted line being handed out
	err  error
}

func (r *reader) Read(p []byte) (int, error) {
	for len(r.line) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		line, err := r.next()
		if err != nil {
			r.err = err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue // a blank line is no message (mcp-go would answer it with a parse error)
		}
		if v, ok := versionOf(line); ok {
			r.out.setVersion(v)
		}
		if t := bytes.TrimSpace(line); t[0] == '[' && json.Valid(t) {
			lines, answer := r.batch(t)
			if answer != nil {
				if _, err := r.out.Write(append(answer, '\n')); err != nil {
					return 0, err
				}
			}
			if len(lines) == 0 {
				continue
			}
			var stamped []byte
			for _, l := range bytes.SplitAfter(lines, []byte("\n")) {
				if len(l) == 0 {
					continue
				}
				l = r.stamp(l)
				r.track(l)
				stamped = append(stamped, l...)
			}
			r.line = stamped
			break
		}
		if resp, code := r.g.Inspect(r.ctx, line); code != 0 {
			if resp != nil {
				if _, err := r.out.Write(append(resp, '\n')); err != nil {
					return 0, err
				}
			}
			continue
		}
		line = r.stamp(line)
		r.track(line)
		r.line = r.toBatch(line)
		r.leaveCancelled(r.line)
	}
	n := copy(p, r.line)
	r.line = r.line[n:]
	if len(r.line) == 0 {
		r.line = nil // let the line's memory go
	}
	return n, nil
}

// batch splits a batch into the lines mcp-go reads, or answers it at once
// when no request of it reaches mcp-go.
func (r *reader) batch(msg []byte) (lines, answer []byte) {
	v := r.out.getVersion()
	if !BatchesAllowed(v) {
		return nil, batchRefusal(v)
	}
	elems, bad := splitBatch(msg)
	if bad != nil {
		return nil, bad
	}
	var refused [][]byte
	var pass []json.RawMessage
	for _, e := range elems {
		if resp, code := r.g.inBatch(r.ctx, e); code != 0 {
			if resp != nil {
				refused = append(refused, resp)
			}
			continue
		}
		pass = append(pass, e)
	}
	return r.out.batches.start(refused, pass)
}

// toBatch points a cancellation of a request of a batch at the id it
// reached mcp-go with.
func (r *reader) toBatch(line []byte) []byte {
	if !bytes.Contains(line, []byte("notifications/cancelled")) || !r.out.batches.pending() {
		return line
	}
	var m map[string]json.RawMessage
	var p map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil || json.Unmarshal(m["params"], &p) != nil {
		return line
	}
	var client any
	if json.Unmarshal(p["requestId"], &client) != nil {
		return line
	}
	ourID, ok := r.out.batches.cancel(IDKey(client))
	if !ok {
		return line
	}
	p["requestId"], _ = json.Marshal(ourID)
	m["params"], _ = json.Marshal(p)
	b, _ := json.Marshal(m)
	return append(b, '\n')
}

// stamp takes the turn of a tools/call as the reader hands it on, in
// order (Turns), and remembers it by the request's id, under which its
// answer comes back.
func (r *reader) stamp(line []byte) []byte {
	out, token, id := r.g.turn(r.ctx, line)
	if token != "" {
		r.out.turns.start(IDKey(id), token)
	}
	if bytes.HasSuffix(line, []byte("\n")) && !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n') // a stamped line ends as the line did
	}
	return out
}

// leaveCancelled ends the turn of the request a cancellation names (by
// the id it reached mcp-go with): the calls behind it need not wait for
// it, even before its handler has seen the cancellation.
func (r *reader) leaveCancelled(line []byte) {
	if !r.out.turns.any() || !bytes.Contains(line, []byte("notifications/cancelled")) {
		return
	}
	if m, ok := Parse(line); ok && m.CancelledID != nil {
		r.out.turns.end(IDKey(m.CancelledID))
	}
}

// track tells out of cancellations, so that it drops the answers of the
// requests they name, and of requests that reuse a cancelled id, whose
// answers it must send.
func (r *reader) track(line []byte) {
	hasToken := bytes.Contains(line, []byte(`"progressToken"`))
	if !hasToken && !bytes.Contains(line, []byte("notifications/cancelled")) && !r.out.cancelled.any() {
		return
	}
	m, ok := Parse(line)
	if ok && hasToken && m.Method != "" && m.HasID && m.ProgressToken != nil {
		r.out.progress.start(IDKey(m.ID), IDKey(m.ProgressToken))
	}
	switch {
	case !ok:
	case m.CancelledID != nil:
		r.out.cancelled.Cancel(IDKey(m.CancelledID))
	case m.Method != "" && m.HasID:
		r.out.cancelled.Forget(IDKey(m.ID))
	}
}

// next reads one line, with its newline; a line over the limit is
// answered with TooLarge and skipped, and next returns nothing for it.
func (r *reader) next() ([]byte, error) {
	var buf []byte
	max := r.g.max()
	for {
		chunk, err := r.in.ReadSlice('\n')
		if int64(len(buf)+len(chunk)) > max {
			head := append(buf, chunk...)[:min(len(buf)+len(chunk), 4096)]
			resp := r.g.TooLarge(head)
			buf = nil
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.in.ReadSlice('\n')
			}
			if _, werr := r.out.Write(append(resp, '\n')); werr != nil {
				return nil, werr
			}
			return nil, err
		}
		buf = append(buf, chunk...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err != nil:
			return buf, err
		}
		return buf, nil
	}
}

// LockedWriter serialises writes: mcp-go writes each answer with one Write,
// and Reader's answers must not land in the middle of one. It drops the
// answer of a request the client cancelled (MCP: no response is sent).
type LockedWriter struct {
	mu        sync.Mutex
	w         io.Writer
	cancelled Cancelled
	progress  progress
	batches   batches
	turns     inTurn
	// answer recodes a handler's error (Guard.Answer); Reader sets it.
	answer func([]byte) []byte
}

func (l *LockedWriter) setVersion(v string) {
	l.batches.mu.Lock()
	l.batches.version = v
	l.batches.mu.Unlock()
}

func (l *LockedWriter) getVersion() string {
	l.batches.mu.Lock()
	defer l.batches.mu.Unlock()
	return l.batches.version
}

// EndTurns ends the turn of every request read through Reader that is
// still unanswered: the stream is over, and no answer will end them (a
// request read but never handled would hold its session's line).
func (l *LockedWriter) EndTurns() { l.turns.endAll() }

// NewLockedWriter wraps w.
func NewLockedWriter(w io.Writer) *LockedWriter { return &LockedWriter{w: w} }

func (l *LockedWriter) Write(p []byte) (int, error) {
	if l.answer != nil {
		n := len(p)
		p = l.answer(p)
		if _, err := l.write(p); err != nil {
			return 0, err
		}
		return n, nil
	}
	return l.write(p)
}

func (l *LockedWriter) write(p []byte) (int, error) {
	if l.cancelled.any() || l.progress.any() || l.batches.pending() || l.turns.any() {
		if id, ok := ResponseID(p); ok {
			l.turns.end(IDKey(id))
			if mine, all := l.batches.answer(id, p); mine {
				l.progress.end(IDKey(id))
				if all == nil {
					return len(p), nil
				}
				l.mu.Lock()
				defer l.mu.Unlock()
				if _, err := l.w.Write(append(all, '\n')); err != nil {
					return 0, err
				}
				return len(p), nil
			}
			// mcp-go queues notifications and writes answers at once:
			// progress queued before the answer must not follow it.
			l.progress.end(IDKey(id))
			if l.cancelled.Take(IDKey(id)) {
				return len(p), nil
			}
		} else if l.progress.ended(p) {
			return len(p), nil
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// progress knows the progress tokens of the requests in flight, and drops
// a notifications/progress of a request already answered.
type progress struct {
	mu     sync.Mutex
	tokens map[string]string // request id -> token
	ends   map[string]bool   // tokens of answered requests
}

func (p *progress) start(id, token string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tokens == nil {
		p.tokens, p.ends = map[string]string{}, map[string]bool{}
	}
	if len(p.tokens) >= maxCancelled {
		clear(p.tokens)
	}
	p.tokens[id] = token
	delete(p.ends, token)
}

func (p *progress) any() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.tokens) > 0 || len(p.ends) > 0
}

func (p *progress) end(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t, ok := p.tokens[id]; ok {
		delete(p.tokens, id)
		if len(p.ends) >= maxCancelled {
			clear(p.ends)
		}
		p.ends[t] = true
	}
}

// ended reports whether msg is a progress notification of an answered
// request.
func (p *progress) ended(msg []byte) bool {
	if !bytes.Contains(msg[:min(len(msg), 64)], []byte("notifications/progress")) {
		return false
	}
	var m struct {
		Params struct {
			Token any `json:"progressToken"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil || m.Params.Token == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ends[IDKey(m.Params.Token)]
}

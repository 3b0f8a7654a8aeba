package jsonrpc

import (
	"bufio"
	"bytes"
	"context"
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
		if resp, code := r.g.Inspect(r.ctx, line); code != 0 {
			if resp != nil {
				if _, err := r.out.Write(append(resp, '\n')); err != nil {
					return 0, err
				}
			}
			continue
		}
		r.line = line
	}
	n := copy(p, r.line)
	r.line = r.line[n:]
	if len(r.line) == 0 {
		r.line = nil // let the line's memory go
	}
	return n, nil
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
// and Reader's answers must not land in the middle of one.
type LockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// NewLockedWriter wraps w.
func NewLockedWriter(w io.Writer) *LockedWriter { return &LockedWriter{w: w} }

func (l *LockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

package jsonrpc

import (
	"bytes"
	"encoding/json"
	"net/http"
)

// InternalError is the code mcp-go answers every error of a resource or
// prompt handler with, whatever the error was.
const InternalError = -32603

// Recode gives the error a handler returned its true JSON-RPC code, from
// the error's message: mcp-go cannot carry a handler's code, so an
// unparsable selector in a resources/read would reach the client as
// -32603, an internal error, which it is not. It returns code 0 to leave
// the error as it is, and data for the error's data member.
type Recode func(message string) (code int, data any)

// sseData frames one message of an event stream, as mcp-go writes it.
var sseData = []byte("event: message\ndata: ")

// Answer returns the answer p, one JSON-RPC message (a line of JSON, or an
// event of a stream, as mcp-go writes each in one Write), with an internal
// error recoded by g.Recode; anything else is returned as it is.
func (g Guard) Answer(p []byte) []byte {
	if g.Recode == nil || !bytes.Contains(p, []byte(`"code":-32603`)) {
		return p
	}
	head, body := []byte(nil), p
	if rest, ok := bytes.CutPrefix(p, sseData); ok {
		head, body = sseData, rest
	}
	trimmed := bytes.TrimRight(body, "\r\n")
	tail := body[len(trimmed):]
	var m map[string]json.RawMessage
	if json.Unmarshal(trimmed, &m) != nil || m["error"] == nil || m["method"] != nil {
		return p
	}
	var e Error
	if json.Unmarshal(m["error"], &e) != nil || e.Code != InternalError {
		return p
	}
	code, data := g.Recode(e.Message)
	if code == 0 {
		return p
	}
	e.Code = code
	if e.Data == nil {
		e.Data = data
	}
	m["error"], _ = json.Marshal(e)
	out, err := json.Marshal(m)
	if err != nil {
		return p
	}
	return append(append(append([]byte(nil), head...), out...), tail...)
}

// Writer returns w with every answer written through it recoded by
// g.Answer; it flushes when w does (mcp-go opens an event stream only on
// a writer that can flush).
func (g Guard) Writer(w http.ResponseWriter) http.ResponseWriter {
	if g.Recode == nil {
		return w
	}
	aw := answerWriter{ResponseWriter: w, g: g}
	if _, ok := w.(http.Flusher); ok {
		return answerFlusher{aw}
	}
	return aw
}

type answerWriter struct {
	http.ResponseWriter
	g Guard
}

// Write recodes p, but reports p's length: the caller wrote all of it.
func (a answerWriter) Write(p []byte) (int, error) {
	if _, err := a.ResponseWriter.Write(a.g.Answer(p)); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (a answerWriter) Unwrap() http.ResponseWriter { return a.ResponseWriter }

type answerFlusher struct{ answerWriter }

func (a answerFlusher) Flush() { a.ResponseWriter.(http.Flusher).Flush() }

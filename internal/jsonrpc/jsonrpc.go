// Package jsonrpc checks JSON-RPC messages before mcp-go reads them, in one
// place for both transports: stdio (Reader) and HTTP (Handler). It refuses
// what mcp-go would misread or answer with the wrong code: a message that
// is not valid JSON, a message over the size limit, a batch in a protocol version without batches, a method or id of the wrong type, params that
// are not an object, and what a Check refuses (a resource of a session the
// caller cannot see). Everything else passes through unchanged.
package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/seed4af8c199/browsermcp/engine"
)

// The JSON-RPC error codes this package answers with.
const (
	ParseError       = -32700
	InvalidRequest   = -32600
	MethodNotFound   = -32601
	InvalidParams    = -32602
	ResourceNotFound = -32002
)

// DefaultMaxMessage is the default size limit of one message: a 1 MiB text
// to type, escaped, with room to spare.
const DefaultMaxMessage = 4 << 20

// Error is a JSON-RPC error object.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// Checks runs each check in turn; the first to refuse a request answers.
func Checks(cs ...Check) Check {
	return func(ctx context.Context, method string, params json.RawMessage) *Error {
		for _, c := range cs {
			if e := c(ctx, method, params); e != nil {
				return e
			}
		}
		return nil
	}
}

// Check may refuse a request before it runs; it returns nil to let it pass.
// ctx carries the caller's identity (engine.WithOwner over HTTP).
type Check func(ctx context.Context, method string, params json.RawMessage) *Error

// Guard holds the rules.
type Guard struct {
	// MaxMessage is the most bytes of one message; 0 is DefaultMaxMessage.
	MaxMessage int64
	// Check, when set, is consulted for every request that passed the
	// protocol checks.
	Check Check
	// Recode, when set, gives a handler's error its true code in the
	// answer (Answer).
	Recode Recode
	// Turns, when set, orders the calls on each session by arrival.
	Turns Turns
	// Order, when set, puts back in order the requests a client posts at
	// once over HTTP before they arrive (order.go).
	Order *Order
}

// Max is the most bytes of one message under g.
func (g Guard) Max() int64 { return g.max() }

func (g Guard) max() int64 {
	if g.MaxMessage <= 0 {
		return DefaultMaxMessage
	}
	return g.MaxMessage
}

// Inspect checks one message. It returns code 0 when the message may go on
// to mcp-go; otherwise code is the JSON-RPC error code it is refused with
// and resp the error response to send in its place (nil for a
// notification, which gets no answer).
func (g Guard) Inspect(ctx context.Context, msg []byte) (resp []byte, code int) {
	msg = bytes.TrimSpace(msg)
	if len(msg) == 0 {
		return nil, 0
	}
	if !json.Valid(msg) {
		return parseError(msg)
	}
	if msg[0] == '[' {
		// The transports answer batches themselves (batch.go), in the
		// versions that have them.
		return refusal(nil, &Error{Code: InvalidRequest,
			Message: "JSON-RPC batches are allowed only in MCP protocol versions 2024-11-05 and 2025-03-26 (2025-06-18 removed them): send each message on its own"})
	}
	return g.inspect(ctx, msg)
}

// inspect checks one message that is not a batch.
func (g Guard) inspect(ctx context.Context, msg []byte) (resp []byte, code int) {
	msg = bytes.TrimSpace(msg)
	if len(msg) == 0 {
		return nil, 0
	}
	if !json.Valid(msg) {
		return parseError(msg)
	}
	switch msg[0] {
	case '{':
	default:
		return refusal(nil, &Error{Code: InvalidRequest, Message: "a JSON-RPC message must be an object"})
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(msg, &m); err != nil {
		return parseError(msg)
	}
	rawID, hasID := m["id"]
	rawMethod, hasMethod := m["method"]
	var id any
	if hasID {
		switch k := kind(rawID); {
		case k == 's' || k == 'n':
			_ = json.Unmarshal(rawID, &id)
		case k == 'z' && !hasMethod:
			// A client's error response to a message it could not read.
		default:
			return refusal(nil, &Error{Code: InvalidRequest, Message: "the id must be a string or a number, not " + kindName(rawID)})
		}
	}
	if !hasMethod {
		return nil, 0 // a response to a request of ours, or mcp-go's to refuse
	}
	refuse := func(e *Error) ([]byte, int) {
		if !hasID {
			return nil, e.Code // a notification gets no answer
		}
		return response(id, e), e.Code
	}
	if kind(rawMethod) != 's' {
		// A bad method cannot say whether the message was a notification:
		// it is answered, with its id when it has a valid one.
		return refusal(id, &Error{Code: InvalidRequest, Message: "the method must be a string, not " + kindName(rawMethod)})
	}
	var method string
	_ = json.Unmarshal(rawMethod, &method)
	params, hasParams := m["params"]
	if hasParams && kind(params) != 'o' && kind(params) != 'z' {
		return refuse(&Error{Code: InvalidParams, Message: fmt.Sprintf("the params of %s must be an object (MCP passes parameters by name), not %s", clip(method), kindName(params))})
	}
	if g.Check != nil && hasID {
		if e := g.Check(ctx, method, params); e != nil {
			return refuse(e)
		}
	}
	return nil, 0
}

// parseError answers a message that is not valid JSON. The guard answers
// it rather than mcp-go, whose transports word it each their own way (and
// whose SSE transport read the first value of a body and ran it, ignoring
// what followed): every transport gives the same answer.
func parseError(msg []byte) ([]byte, int) {
	var v any
	err := json.Unmarshal(msg, &v)
	detail := "invalid JSON"
	if err != nil {
		detail = err.Error()
	}
	return refusal(nil, &Error{Code: ParseError, Message: "the message is not valid JSON: " + clip(detail)})
}

// TooLarge is the response to a message over the size limit; prefix is
// what was read of it, from which the id is recovered when it comes early.
func (g Guard) TooLarge(prefix []byte) []byte {
	return response(idFrom(prefix), &Error{Code: InvalidRequest,
		Message: fmt.Sprintf("the message is larger than the server's limit of %d bytes (--max-message-size)", g.max()),
		Data:    map[string]any{"maxMessageBytes": g.max()}})
}

// idFrom finds the id among the first members of a truncated message: an
// id that comes before the params (as clients send it) is recovered.
func idFrom(prefix []byte) any {
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for range 8 {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		key, ok := t.(string)
		if !ok {
			return nil
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		if key == "id" {
			if k := kind(v); k == 's' || k == 'n' {
				var id any
				_ = json.Unmarshal(v, &id)
				return id
			}
			return nil
		}
	}
	return nil
}

// refusal is a refused message's answer and code.
func refusal(id any, e *Error) ([]byte, int) { return response(id, e), e.Code }

// response encodes a JSON-RPC error response.
func response(id any, e *Error) []byte {
	b, _ := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   *Error `json:"error"`
	}{"2.0", id, e})
	return b
}

// kind is the JSON type of a valid value: o(bject), a(rray), s(tring),
// n(umber), b(oolean) or z (null).
func kind(v json.RawMessage) byte {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return 'z'
	}
	switch v[0] {
	case '{':
		return 'o'
	case '[':
		return 'a'
	case '"':
		return 's'
	case 't', 'f':
		return 'b'
	case 'n':
		return 'z'
	}
	return 'n'
}

func kindName(v json.RawMessage) string {
	return map[byte]string{'o': "an object", 'a': "an array", 's': "a string", 'n': "a number", 'b': "a boolean", 'z': "null"}[kind(v)]
}

// clip shortens what an error quotes of a message.
func clip(s string) string { return engine.Clip(s, maxQuote) }

// maxQuote is the most bytes of a message an error quotes.
const maxQuote = 64

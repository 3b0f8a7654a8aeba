package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
)

// MCP says a request the client cancelled (notifications/cancelled) gets
// no response. mcp-go stops the work, by cancelling the request's
// context, but still sends what the handler returned; the transports drop
// it with Cancelled.

// maxCancelled bounds the ids remembered: a cancellation of a request
// that had already been answered is never matched by an answer.
const maxCancelled = 1024

// Cancelled remembers the requests the client cancelled whose answers
// have not been dropped yet, by a key of the caller's choosing (IDKey of
// the request id, scoped by the transport).
type Cancelled struct {
	mu  sync.Mutex
	ids map[string]struct{}
}

// Cancel marks key as cancelled.
func (c *Cancelled) Cancel(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ids == nil {
		c.ids = map[string]struct{}{}
	}
	if len(c.ids) >= maxCancelled {
		clear(c.ids)
	}
	c.ids[key] = struct{}{}
}

// Forget unmarks key: a new request reuses its id.
func (c *Cancelled) Forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.ids, key)
}

// Take reports whether key was cancelled, and unmarks it.
func (c *Cancelled) Take(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.ids[key]
	delete(c.ids, key)
	return ok
}

// any reports whether some request is marked.
func (c *Cancelled) any() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.ids) > 0
}

// IDKey is a JSON-RPC id as a map key: the string "7" and the number 7
// differ.
func IDKey(id any) string { return fmt.Sprintf("%T:%v", id, id) }

// Message is what the transports need to know of one message.
type Message struct {
	Method string
	ID     any  // nil for a notification
	HasID  bool // a request or a response
	// CancelledID is the requestId of a notifications/cancelled.
	CancelledID any
	// ProgressToken is the request's _meta.progressToken.
	ProgressToken any
}

// Parse reads the method, the id, and the id a cancellation names.
func Parse(msg []byte) (Message, bool) {
	var m struct {
		ID     any    `json:"id"`
		Method string `json:"method"`
		Params struct {
			RequestID any `json:"requestId"`
			Meta      struct {
				ProgressToken any `json:"progressToken"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return Message{}, false
	}
	out := Message{Method: m.Method, ID: m.ID, HasID: m.ID != nil, ProgressToken: m.Params.Meta.ProgressToken}
	if m.Method == "notifications/cancelled" {
		out.CancelledID = m.Params.RequestID
	}
	return out, true
}

// ResponseID returns the id of a response (a message with a result or an
// error and no method), reading no further than its id when the id comes
// first, as mcp-go writes it: a large result is not decoded.
func ResponseID(msg []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(msg))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var id any
	seen, answer := false, false
	for range 8 {
		t, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, _ := t.(string)
		switch key {
		case "method":
			return nil, false
		case "result", "error":
			if seen {
				return id, id != nil
			}
			answer = true
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		if key == "id" {
			seen = true
			_ = json.Unmarshal(v, &id)
			if answer {
				return id, id != nil
			}
		}
	}
	return nil, false
}

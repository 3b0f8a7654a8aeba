package httpservetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/coder/websocket"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// WSTransport is an MCP client transport over a WebSocket (the server's
// --transport websocket): one JSON-RPC message per text frame. mcp-go has
// no WebSocket client, so tests wrap this in client.NewClient.
type WSTransport struct {
	url  string
	opts websocket.DialOptions

	conn *websocket.Conn
	// Response is the server's answer to the handshake: its status when
	// Start fails, the subprotocol it chose when it succeeds.
	Response *http.Response

	mu      sync.Mutex
	pending map[string]chan *transport.JSONRPCResponse
	notify  func(mcp.JSONRPCNotification)
	done    chan struct{}
	err     error // why the connection ended
}

// NewWSTransport dials url (ws://host:port/ws) with the given headers
// and subprotocols when started.
func NewWSTransport(url string, header http.Header, subprotocols ...string) *WSTransport {
	return &WSTransport{url: url, opts: websocket.DialOptions{HTTPHeader: header, Subprotocols: subprotocols},
		pending: map[string]chan *transport.JSONRPCResponse{}, done: make(chan struct{})}
}

// Start performs the handshake and starts reading.
func (t *WSTransport) Start(ctx context.Context) error {
	conn, resp, err := websocket.Dial(ctx, t.url, &t.opts)
	t.Response = resp
	if err != nil {
		return err
	}
	conn.SetReadLimit(64 << 20)
	t.conn = conn
	go t.read()
	return nil
}

// Conn is the connection, for tests that send raw frames.
func (t *WSTransport) Conn() *websocket.Conn { return t.conn }

func (t *WSTransport) read() {
	defer close(t.done)
	for {
		_, b, err := t.conn.Read(context.Background())
		if err != nil {
			t.mu.Lock()
			t.err = err
			t.mu.Unlock()
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(b, &m) != nil {
			continue
		}
		switch {
		case m.Method != "" && m.ID == nil:
			var n mcp.JSONRPCNotification
			if json.Unmarshal(b, &n) == nil {
				t.mu.Lock()
				f := t.notify
				t.mu.Unlock()
				if f != nil {
					f(n)
				}
			}
		case m.Method == "":
			// A response; an error about a message whose id could not be
			// read has the id null.
			var r transport.JSONRPCResponse
			if json.Unmarshal(b, &r) != nil {
				continue
			}
			key := idKey(m.ID)
			t.mu.Lock()
			ch := t.pending[key]
			delete(t.pending, key)
			t.mu.Unlock()
			if ch != nil {
				ch <- &r
			}
		}
	}
}

// idKey is a JSON id as a map key: its compact JSON, "null" for none.
func idKey(raw json.RawMessage) string {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil || v == nil {
		return "null"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// SendRequest sends a request and waits for its answer.
func (t *WSTransport) SendRequest(ctx context.Context, req transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	id, _ := json.Marshal(req.ID)
	return t.Exchange(ctx, id, b)
}

// Exchange sends frame as it is and waits for the response whose id is
// the JSON id (null: a response with no id).
func (t *WSTransport) Exchange(ctx context.Context, id json.RawMessage, frame []byte) (*transport.JSONRPCResponse, error) {
	ch := make(chan *transport.JSONRPCResponse, 1)
	key := idKey(id)
	t.mu.Lock()
	t.pending[key] = ch
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		delete(t.pending, key)
		t.mu.Unlock()
	}()
	if err := t.conn.Write(ctx, websocket.MessageText, frame); err != nil {
		return nil, err
	}
	select {
	case r := <-ch:
		return r, nil
	case <-t.done:
		return nil, fmt.Errorf("the WebSocket closed: %w", t.Err())
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// SendNotification sends a notification.
func (t *WSTransport) SendNotification(ctx context.Context, n mcp.JSONRPCNotification) error {
	b, err := json.Marshal(n)
	if err != nil {
		return err
	}
	return t.conn.Write(ctx, websocket.MessageText, b)
}

// SetNotificationHandler sets the handler of the server's notifications.
func (t *WSTransport) SetNotificationHandler(f func(mcp.JSONRPCNotification)) {
	t.mu.Lock()
	t.notify = f
	t.mu.Unlock()
}

// Close closes the connection normally.
func (t *WSTransport) Close() error {
	if t.conn == nil {
		return nil
	}
	err := t.conn.Close(websocket.StatusNormalClosure, "")
	<-t.done
	return err
}

// Done is closed when the connection has ended.
func (t *WSTransport) Done() <-chan struct{} { return t.done }

// Err is why the connection ended (a websocket.CloseError when the
// server closed it), nil while it is open.
func (t *WSTransport) Err() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// GetSessionId is empty: the connection is the MCP session.
func (t *WSTransport) GetSessionId() string { return "" }

// CloseStatus is the status code the server closed the connection with,
// or -1.
func CloseStatus(err error) websocket.StatusCode {
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		return ce.Code
	}
	return -1
}

var _ transport.Interface = (*WSTransport)(nil)

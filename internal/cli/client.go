package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// protocolVersion is the MCP version the command line speaks: 2026-07-28,
// whose requests carry their version, client info and capabilities in
// _meta, with no initialize handshake and no MCP session. A command is
// then one HTTP request per tool call, with no round trip to open or end a
// session, and the daemon holds no state for it.
const protocolVersion = "2026-07-28"

// client speaks MCP to the daemon: Streamable HTTP over its Unix socket,
// one connection kept alive for every request of the process.
type client struct {
	http   *http.Client
	key    string
	nextID int
}

// newClient returns a client of the daemon listening on socket.
func newClient(socket, key string) *client {
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		},
		MaxIdleConns:        1,
		MaxIdleConnsPerHost: 1,
		DisableCompression:  true,
	}
	return &client{http: &http.Client{Transport: tr}, key: key}
}

// rpcError is a JSON-RPC error answer.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// toolResult is a tools/call result as the command line reads it.
type toolResult struct {
	Content           []content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

// content is one content block: text, image, or an embedded resource.
type content struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
	Resource *struct {
		URI      string `json:"uri"`
		MimeType string `json:"mimeType,omitempty"`
		Text     string `json:"text,omitempty"`
		Blob     string `json:"blob,omitempty"`
	} `json:"resource,omitempty"`
}

// meta is what every request of the stateless protocol carries.
var meta = map[string]any{
	"io.modelcontextprotocol/protocolVersion":    protocolVersion,
	"io.modelcontextprotocol/clientCapabilities": map[string]any{},
	"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "browsermcp-cli", "version": "1"},
}

// call runs one tool.
func (c *client) call(ctx context.Context, name string, args map[string]any) (*toolResult, error) {
	raw, err := c.request(ctx, "tools/call", name, map[string]any{"name": name, "arguments": args, "_meta": meta})
	if err != nil {
		return nil, err
	}
	var r toolResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("reading the result of %s: %w", name, err)
	}
	return &r, nil
}

// close lets the connection go.
func (c *client) close() { c.http.CloseIdleConnections() }

// request sends one request and returns its result, read from a JSON
// answer or from the event stream the server may answer with. name is
// the tool a tools/call names, which the protocol repeats in a header.
func (c *client) request(ctx context.Context, method, name string, params any) (json.RawMessage, error) {
	c.nextID++
	id := c.nextID
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://localhost/mcp", bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", protocolVersion)
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return nil, fmt.Errorf("%s: HTTP %s: %s", method, resp.Status, strings.TrimSpace(string(b)))
	}
	type answer struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	pick := func(b []byte) (json.RawMessage, bool, error) {
		var a answer
		if json.Unmarshal(b, &a) != nil || string(a.ID) != fmt.Sprint(id) {
			return nil, false, nil // a notification, or not ours
		}
		if a.Error != nil {
			return nil, true, a.Error
		}
		return a.Result, true, nil
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, err
		}
		if r, ok, err := pick(b); ok {
			return r, err
		}
		return nil, fmt.Errorf("%s: no answer in %.200q", method, b)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 256<<20)
	var data []byte
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "data:"):
			data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")...)
		case line == "" && len(data) > 0:
			if r, ok, err := pick(data); ok {
				return r, err
			}
			data = nil
		}
	}
	if len(data) > 0 {
		if r, ok, err := pick(data); ok {
			return r, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%s: the stream ended without an answer", method)
}

// daemon asks the daemon's own endpoint at path (under /daemon/).
func (c *client) daemon(ctx context.Context, method, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, "http://localhost/daemon/"+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err == nil && resp.StatusCode/100 != 2 {
		err = fmt.Errorf("daemon %s: HTTP %s", path, resp.Status)
	}
	return b, err
}

// dialable reports whether a daemon answers on socket.
func dialable(socket string) bool {
	conn, err := net.DialTimeout("unix", socket, time.Second)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

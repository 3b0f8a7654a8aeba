package httpserve

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/jsonrpc"
)

// The WebSocket transport (--transport websocket) serves MCP at /ws: one
// JSON-RPC message per text frame, both ways, for as long as the
// connection lasts; the connection is the MCP session. It is guarded as
// the HTTP routes are (Host and Origin, then the API key), and a
// connection runs as its key's owner. Browsers cannot set headers on a
// WebSocket, so the key may also come as a subprotocol, bearer.<KEY>,
// offered beside mcp; the server answers mcp and never echoes the key.
//
// Every message passes the same guard as stdio's (jsonrpc.Reader): the
// frames are fed to it as lines, so the size limit, the protocol checks,
// batches, cancellations and progress behave as they do on stdio. A frame
// over --max-message-size is answered with a JSON-RPC error and skipped
// as it streams in; the connection stays open.

const (
	// wsSubprotocol is the subprotocol the server answers with.
	wsSubprotocol = "mcp"
	// wsBearerPrefix marks the subprotocol that carries the API key.
	wsBearerPrefix = "bearer."
	// wsWriteTimeout bounds the sending of one frame: a client that stops
	// reading loses its connection rather than holding answers forever.
	wsWriteTimeout = 30 * time.Second
	// wsMaxInflight bounds the requests of one connection served at once;
	// past it the connection is not read until one ends.
	wsMaxInflight = 64
)

// errBinaryFrame ends a connection that sent a binary frame.
var errBinaryFrame = errors.New("a binary frame: JSON-RPC messages travel in text frames")

// wsConns are the open WebSocket connections, closed by CloseSessions.
type wsConns struct {
	mu     sync.Mutex
	conns  map[*websocket.Conn]struct{}
	closed bool // closeAll has run: no more connections
	wg     sync.WaitGroup
}

// add tracks conn; it reports false once the server is shutting down.
func (c *wsConns) add(conn *websocket.Conn) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	if c.conns == nil {
		c.conns = map[*websocket.Conn]struct{}{}
	}
	c.conns[conn] = struct{}{}
	c.wg.Add(1)
	return true
}

func (c *wsConns) remove(conn *websocket.Conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.conns, conn)
	c.wg.Done()
}

// closeAll tells every client the server is going away and waits until
// their connections are served out.
func (c *wsConns) closeAll() {
	c.mu.Lock()
	c.closed = true
	for conn := range c.conns {
		go conn.Close(websocket.StatusGoingAway, "the server is shutting down")
	}
	c.mu.Unlock()
	c.wg.Wait()
}

// offeredProtocols lists the subprotocols of the handshake.
func offeredProtocols(r *http.Request) []string {
	var ps []string
	for _, v := range r.Header.Values("Sec-WebSocket-Protocol") {
		for p := range strings.SplitSeq(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				ps = append(ps, p)
			}
		}
	}
	return ps
}

// serveWebSocket checks a handshake to /ws, accepts it and serves MCP on
// the connection until either side closes it.
func (h *Handler) serveWebSocket(w http.ResponseWriter, r *http.Request) {
	if !h.checkHost(w, r) {
		return
	}
	offered := offeredProtocols(r)
	key, given := bearerHeader(r)
	if !given {
		for _, p := range offered {
			if k, found := strings.CutPrefix(p, wsBearerPrefix); found {
				key, given = k, true
				break
			}
		}
	}
	id, ok := h.authenticate(w, r, key, given, staticKey+", or the subprotocols mcp, bearer.<key>", "transport", "websocket")
	if !ok {
		return
	}
	// A client that offers subprotocols must get one of them back, and
	// bearer.<key> is never echoed: mcp must be among them.
	if len(offered) > 0 && !containsFold(offered, wsSubprotocol) {
		httpError(w, http.StatusBadRequest, "bad_subprotocol", "offer the subprotocol mcp (beside bearer.<key>): Sec-WebSocket-Protocol: mcp, bearer.<key>")
		return
	}
	// Host and Origin were checked above, against --allowed-hosts; the
	// library's own same-origin check would refuse allowed origins.
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{wsSubprotocol}, InsecureSkipVerify: true})
	if err != nil {
		h.log.Info("WebSocket handshake failed", "remote", r.RemoteAddr, "err", err)
		return
	}
	if !h.ws.add(conn) {
		conn.Close(websocket.StatusGoingAway, "the server is shutting down")
		return
	}
	defer h.ws.remove(conn)
	ctx := engine.WithOwner(context.WithoutCancel(r.Context()), id)
	h.log.Info("WebSocket client connected", "remote", r.RemoteAddr, "owner", id)
	err = h.serveWS(ctx, conn)
	h.log.Info("WebSocket client disconnected", "remote", r.RemoteAddr, "owner", id, "reason", err)
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}

// serveWS serves MCP on one connection until either side closes it, and
// returns why it ended: its frames are the lines of a streamServer.
func (h *Handler) serveWS(ctx context.Context, conn *websocket.Conn) error {
	// The library's own limit would close the connection; the guard
	// answers an oversized message instead, skipping it as it streams.
	conn.SetReadLimit(-1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	read := make(chan error, 1)
	go func() {
		err := readFrames(ctx, conn, pw)
		pw.CloseWithError(err)
		read <- err
	}()
	s := &streamServer{srv: h.srv, guard: h.guard, log: h.log, out: jsonrpc.NewLockedWriter(&frameWriter{ctx: ctx, conn: conn})}
	if err := s.serve(ctx, "ws-"+uuid.NewString(), pr); err != nil {
		cancel()
		pr.Close()
		<-read
		return err
	}
	pr.Close()
	err := <-read
	conn.Close(websocket.StatusNormalClosure, "")
	return err
}

// readFrames feeds each text frame to w as one line: a newline inside a
// frame (whitespace, in valid JSON) becomes a space, so one frame is one
// message however it is formatted.
func readFrames(ctx context.Context, conn *websocket.Conn, w io.Writer) error {
	buf := make([]byte, 32<<10)
	for {
		typ, r, err := conn.Reader(ctx)
		if err != nil {
			return err
		}
		if typ != websocket.MessageText {
			conn.Close(websocket.StatusUnsupportedData, "send JSON-RPC messages as text frames")
			return errBinaryFrame
		}
		if err := copyLine(w, r, buf); err != nil {
			return err
		}
	}
}

// frameWriter sends each line written to it as one text frame.
type frameWriter struct {
	ctx  context.Context
	conn *websocket.Conn
}

func (f *frameWriter) Write(p []byte) (int, error) {
	for line := range bytes.SplitSeq(p, []byte{'\n'}) {
		if len(line) == 0 {
			continue
		}
		ctx, cancel := context.WithTimeout(f.ctx, wsWriteTimeout)
		err := f.conn.Write(ctx, websocket.MessageText, line)
		cancel()
		if err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

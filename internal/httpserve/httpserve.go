// Package httpserve serves MCP over HTTP: Streamable HTTP at /mcp, the
// legacy SSE transport at /sse (messages at /message) and GET /healthz; or,
// with Options.WebSocket, MCP over a WebSocket at /ws (websocket.go). Every
// MCP route checks the Host and Origin headers (against DNS rebinding) and a
// bearer API key. A request runs as the key's owner (engine.WithOwner), so
// every browser session it creates or uses belongs to that key, and an SSE
// stream takes messages only from the key that opened it.
package httpserve

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/jsonrpc"
)

// Options say where to listen and whom to let in.
type Options struct {
	Host string
	Port int // 0: any free port
	// APIKeys are the bearer keys; Serve generates one when there is none.
	APIKeys []string
	// AllowedHosts are accepted in Host and Origin headers besides Host and
	// the loopback names; "*" accepts any.
	AllowedHosts []string
	// MaxMessage is the most bytes of one JSON-RPC message (0: the
	// default of package jsonrpc); a larger body is refused with 413.
	MaxMessage int64
	// Check may refuse a request before mcp-go runs it (see jsonrpc.Check).
	Check jsonrpc.Check
	// Recode gives the errors of resource and prompt handlers their true
	// JSON-RPC codes in the answers (see jsonrpc.Recode).
	Recode jsonrpc.Recode
	// Turns orders the calls on each session by arrival (see
	// jsonrpc.Turns).
	Turns jsonrpc.Turns
	// WebSocket serves MCP over a WebSocket at /ws instead of Streamable
	// HTTP and SSE (--transport websocket).
	WebSocket bool
}

// Serve serves srv on our own http.Server until ctx ends, then shuts down
// gracefully. It prints the address, and a key it generated, on stderr.
func Serve(ctx context.Context, o Options, srv *server.MCPServer, log *slog.Logger, stderr io.Writer) error {
	if len(o.APIKeys) == 0 {
		k, err := newAPIKey()
		if err != nil {
			return err
		}
		o.APIKeys = []string{k}
		fmt.Fprintf(stderr, "browsermcp: no --api-key given; generated one for this run:\nAPI key: %s\n", k)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(o.Host, strconv.Itoa(o.Port)))
	if err != nil {
		return err
	}
	h := NewHandler(srv, o, log)
	// Cancelling baseCtx ends the long-lived streams (SSE, GET /mcp), which
	// http.Server.Shutdown would otherwise wait for.
	baseCtx, cancelBase := context.WithCancel(context.Background())
	defer cancelBase()
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return baseCtx },
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	port := ln.Addr().(*net.TCPAddr).Port
	if o.WebSocket {
		fmt.Fprintf(stderr, "Listening on ws://%s/ws\n", net.JoinHostPort(o.Host, strconv.Itoa(port)))
		log.Info("serving MCP over WebSocket", "addr", ln.Addr().String(), "keys", len(o.APIKeys))
	} else {
		fmt.Fprintf(stderr, "Listening on http://%s/mcp\n", net.JoinHostPort(o.Host, strconv.Itoa(port)))
		log.Info("serving MCP over HTTP", "addr", ln.Addr().String(), "keys", len(o.APIKeys))
	}

	select {
	case <-ctx.Done():
	case err := <-served:
		return err
	}
	log.Info("shutting down the HTTP server")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h.CloseSessions()
	cancelBase()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// newAPIKey returns 32 random bytes, URL-safe.
func newAPIKey() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// allowedHosts are the names accepted in Host and Origin headers: the bound
// host, the loopback names and --allowed-hosts.
func allowedHosts(o Options) []string {
	hs := []string{strings.ToLower(strings.Trim(o.Host, "[]")), "localhost", "127.0.0.1", "::1"}
	for _, h := range o.AllowedHosts {
		hs = append(hs, strings.ToLower(strings.Trim(h, "[]")))
	}
	return hs
}

// KeyIdentity names an API key without revealing it: sessions are owned by
// it and logs show it.
func KeyIdentity(key string) string {
	h := sha256.Sum256([]byte(key))
	return "key-" + hex.EncodeToString(h[:8])
}

const (
	staticKey = "a static API key is expected: Authorization: Bearer <key>"
	noOAuth   = "this server does not use OAuth (no authorization server, no metadata): configure your client with the API key given to --api-key, as a header"
)

// Handler routes and guards the HTTP transport.
type Handler struct {
	mux   *http.ServeMux
	srv   *server.MCPServer
	keys  [][32]byte // SHA-256 of each key, compared in constant time
	ids   []string   // identity of each key
	hosts []string
	log   *slog.Logger

	// guard checks every JSON-RPC message, on every route.
	guard jsonrpc.Guard
	// The open SSE streams and WebSocket connections.
	sse sseStreams
	ws  wsConns
}

// NewHandler serves srv to the holders of o.APIKeys, on the hosts o allows.
func NewHandler(srv *server.MCPServer, o Options, log *slog.Logger) *Handler {
	h := &Handler{mux: http.NewServeMux(), srv: srv, hosts: allowedHosts(o), log: log,
		guard: jsonrpc.Guard{MaxMessage: o.MaxMessage, Check: o.Check, Recode: o.Recode, Turns: o.Turns, Order: &jsonrpc.Order{}}}
	for _, k := range o.APIKeys {
		h.keys = append(h.keys, sha256.Sum256([]byte(k)))
		h.ids = append(h.ids, KeyIdentity(k))
	}
	// We take static API keys, not OAuth: a client that looks for OAuth
	// metadata learns so at once, instead of failing to find an
	// authorization server.
	h.mux.HandleFunc("/.well-known/", func(w http.ResponseWriter, r *http.Request) {
		if !h.checkHost(w, r) {
			return
		}
		httpError(w, http.StatusNotFound, "no_oauth", noOAuth)
	})
	h.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		if !h.checkHost(w, r) {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"ok"}` + "\n"))
	})
	if o.WebSocket {
		h.mux.HandleFunc("/ws", h.serveWebSocket)
		return h
	}
	ids := newSessionIDs(o.APIKeys)
	streamable := server.NewStreamableHTTPServer(srv,
		server.WithEndpointPath("/mcp"),
		server.WithSessionIdManagerResolver(ids),
		// Our own Host/Origin check below replaces mcp-go's loopback-only one.
		server.WithDisableLocalhostProtection(true),
		server.WithStreamableHTTPLogger(log),
	)
	// Every message is checked before mcp-go reads it (package jsonrpc),
	// with the same guard on /mcp as on the SSE stream (sse.go), /ws and
	// stdio.
	h.mux.Handle("/mcp", h.guardRoute(jsonrpc.Handler(h.guard, ids.requireSession((&inflight{reqs: map[string]*cancelWriter{}}).wrap(streamable)))))
	h.mux.Handle("/sse", h.guardRoute(http.HandlerFunc(h.serveSSE)))
	h.mux.Handle("/message", h.guardRoute(http.HandlerFunc(h.postMessage)))
	return h
}

// ServeHTTP makes a Handler an http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// CloseSessions ends every SSE stream and closes every WebSocket
// connection (going away), which http.Server.Shutdown would otherwise
// wait for, waiting until each is served out.
func (h *Handler) CloseSessions() {
	h.sse.closeAll()
	h.ws.closeAll()
}

// guardRoute rejects requests from disallowed hosts or origins (DNS rebinding)
// and without a valid bearer key; it runs next as the key's owner, so every
// browser session the request creates or uses belongs to that key.
func (h *Handler) guardRoute(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !h.checkHost(w, r) {
			return
		}
		key, given := bearerHeader(r)
		id, ok := h.authenticate(w, r, key, given, staticKey)
		if !ok {
			return
		}
		next.ServeHTTP(w, r.WithContext(engine.WithOwner(r.Context(), id)))
	})
}

// authenticate returns the identity of a request's API key, or answers
// the request: 401 when it gave no key (ways says how to give one), 403
// when the key is not valid (logged with logArgs).
func (h *Handler) authenticate(w http.ResponseWriter, r *http.Request, key string, given bool, ways string, logArgs ...any) (string, bool) {
	if !given {
		w.Header().Set("WWW-Authenticate", `Bearer realm="browsermcp", error="invalid_token", error_description="`+staticKey+`"`)
		httpError(w, http.StatusUnauthorized, "unauthorized", ways+"; "+noOAuth)
		return "", false
	}
	id, ok := h.identify(key)
	if !ok {
		h.log.Warn("rejected an invalid API key", append([]any{"remote", r.RemoteAddr}, logArgs...)...)
		httpError(w, http.StatusForbidden, "forbidden", "the API key is not valid")
		return "", false
	}
	return id, true
}

// bearerHeader is the key of an Authorization: Bearer header.
func bearerHeader(r *http.Request) (string, bool) {
	auth := r.Header.Get("Authorization")
	scheme, key, _ := strings.Cut(auth, " ")
	if auth == "" || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(key), true
}

// identify finds the key's identity, comparing digests in constant time and
// always against every key.
func (h *Handler) identify(key string) (string, bool) {
	sum := sha256.Sum256([]byte(key))
	found := -1
	for i := range h.keys {
		if subtle.ConstantTimeCompare(sum[:], h.keys[i][:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return "", false
	}
	return h.ids[found], true
}

func (h *Handler) checkHost(w http.ResponseWriter, r *http.Request) bool {
	if !h.hostAllowed(r.Host) {
		httpError(w, http.StatusForbidden, "forbidden_host", fmt.Sprintf("Host %q is not allowed; add it with --allowed-hosts", r.Host))
		return false
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		if err != nil || u.Host == "" || !h.hostAllowed(u.Host) {
			httpError(w, http.StatusForbidden, "forbidden_origin", fmt.Sprintf("Origin %q is not allowed; add its host with --allowed-hosts", o))
			return false
		}
	}
	return true
}

func (h *Handler) hostAllowed(hostport string) bool {
	host := hostport
	if hh, _, err := net.SplitHostPort(hostport); err == nil {
		host = hh
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	return slices.Contains(h.hosts, host) || slices.Contains(h.hosts, "*")
}

// httpError answers with a small JSON body.
func httpError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": code, "message": msg})
}

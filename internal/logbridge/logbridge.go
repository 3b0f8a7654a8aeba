// Package logbridge owns the server's logger. Records go to stderr, a log
// file or, over HTTP only, stdout: in stdio mode stdout carries the protocol. A record
// logged with the context of an MCP request also goes to that request's
// client, as notifications/message, at the level the client chose with
// logging/setLevel: a client only ever sees records of its own requests.
package logbridge

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Options choose where records go and which ones.
type Options struct {
	Level  string // debug, info, warn or error
	Format string // text or json
	File   string // "": stderr, or stdout with Stdout
	// Stdout sends records to stdout instead of stderr; never set it in
	// stdio mode.
	Stdout bool
}

// Bridge is the server's logger and its link to the MCP clients.
type Bridge struct {
	// Logger writes to the log output and to the client of the request
	// whose context a record was logged with.
	Logger *slog.Logger
	h      *mcpHandler
	file   *os.File
}

// New opens the log output: the file o names, stdout, or stderr.
func New(o Options, stdout, stderr io.Writer) (*Bridge, error) {
	b := &Bridge{}
	var out io.Writer = stderr
	if o.Stdout {
		out = stdout
	}
	if o.File != "" {
		if err := os.MkdirAll(filepath.Dir(o.File), 0o700); err != nil {
			return nil, fmt.Errorf("opening the log file: %w", err)
		}
		f, err := os.OpenFile(o.File, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, fmt.Errorf("opening the log file: %w", err)
		}
		b.file, out = f, f
	}
	opts := &slog.HandlerOptions{Level: slogLevel[o.Level]}
	var inner slog.Handler = slog.NewTextHandler(out, opts)
	if o.Format == "json" {
		inner = slog.NewJSONHandler(out, opts)
	}
	b.h = &mcpHandler{inner: inner, srv: new(atomic.Pointer[server.MCPServer])}
	b.Logger = slog.New(b.h)
	return b, nil
}

// Attach starts forwarding records to the clients of srv.
func (b *Bridge) Attach(srv *server.MCPServer) { b.h.srv.Store(srv) }

// Close closes the log file, if any.
func (b *Bridge) Close() {
	if b.file != nil {
		b.file.Close()
	}
}

var slogLevel = map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}

// mcpHandler tees records to the MCP client of the request they belong to.
type mcpHandler struct {
	inner slog.Handler
	srv   *atomic.Pointer[server.MCPServer]
	attrs []slog.Attr
}

func (h *mcpHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l) || clientWants(ctx, l)
}

func (h *mcpHandler) Handle(ctx context.Context, r slog.Record) error {
	var err error
	if h.inner.Enabled(ctx, r.Level) {
		err = h.inner.Handle(ctx, r)
	}
	if srv := h.srv.Load(); srv != nil && clientWants(ctx, r.Level) {
		data := map[string]any{"message": r.Message}
		for _, a := range h.attrs {
			data[a.Key] = a.Value.Resolve().Any()
		}
		r.Attrs(func(a slog.Attr) bool {
			v := a.Value.Resolve().Any()
			if e, ok := v.(error); ok {
				v = e.Error()
			}
			data[a.Key] = v
			return true
		})
		_ = srv.SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(mcpLevel(r.Level), "browsermcp", data))
	}
	return err
}

func (h *mcpHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &mcpHandler{inner: h.inner.WithAttrs(as), srv: h.srv, attrs: append(append([]slog.Attr{}, h.attrs...), as...)}
}

func (h *mcpHandler) WithGroup(name string) slog.Handler {
	return &mcpHandler{inner: h.inner.WithGroup(name), srv: h.srv, attrs: h.attrs}
}

// clientWants reports whether the client of the request in ctx asked for
// records of level l.
func clientWants(ctx context.Context, l slog.Level) bool {
	sess := server.ClientSessionFromContext(ctx)
	if sess == nil {
		return false
	}
	var want mcp.LoggingLevel
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		want = info.LogLevel
	} else if sl, ok := sess.(server.SessionWithLogging); ok {
		want = sl.GetLogLevel()
	}
	return want != "" && mcpLevel(l).ShouldSendTo(want)
}

func mcpLevel(l slog.Level) mcp.LoggingLevel {
	switch {
	case l >= slog.LevelError:
		return mcp.LoggingLevelError
	case l >= slog.LevelWarn:
		return mcp.LoggingLevelWarning
	case l >= slog.LevelInfo:
		return mcp.LoggingLevelInfo
	}
	return mcp.LoggingLevelDebug
}

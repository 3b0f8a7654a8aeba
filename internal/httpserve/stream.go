package httpserve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/seed4af8c199/browsermcp/internal/jsonrpc"
)

// A streamServer serves one MCP session whose messages arrive as lines of
// a stream and whose answers leave by a writer: a WebSocket connection
// (its frames) and a legacy SSE stream (the messages posted to it) are
// both served so. Every line passes the guard of stdio (jsonrpc.Reader),
// so the size limit, the protocol checks, the negotiated version's rule
// on batches, cancellations and progress behave on them as on stdio.
type streamServer struct {
	srv   *server.MCPServer
	guard jsonrpc.Guard
	log   *slog.Logger
	// out carries every answer and notification, one JSON message a line.
	out *jsonrpc.LockedWriter
}

// serve registers the MCP session id and serves the lines of in until in
// ends; it returns an error only when the session could not be
// registered. Requests run at once, each on its own goroutine (at most
// wsMaxInflight); notifications run in order. Every request has ended,
// and nothing more is written to s.out, when serve returns.
func (s *streamServer) serve(ctx context.Context, id string, in io.Reader) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lines := bufio.NewReader(jsonrpc.Reader(ctx, s.guard, in, s.out))
	sess := &streamSession{id: id, notifications: make(chan mcp.JSONRPCNotification, 100)}
	if err := s.srv.RegisterSession(ctx, sess); err != nil {
		return err
	}
	defer s.srv.UnregisterSession(ctx, sess.id)
	mctx := s.srv.WithContext(ctx, sess)

	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case n := <-sess.notifications:
				s.write(n)
			case <-ctx.Done():
				return
			}
		}
	})
	slots := make(chan struct{}, wsMaxInflight)
	for {
		line, err := lines.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			s.dispatch(mctx, &wg, slots, line)
		}
		if err != nil {
			break
		}
	}
	cancel()
	wg.Wait()
	// A request read as the stream ended may never have been handled
	// (dispatch): its turn must not hold its session's line.
	s.out.EndTurns()
	return nil
}

// dispatch runs one message: a request on a goroutine of its own, a
// notification at once. A response from the client is dropped: this
// server sends no requests.
func (s *streamServer) dispatch(ctx context.Context, wg *sync.WaitGroup, slots chan struct{}, line []byte) {
	m, ok := jsonrpc.Parse(line)
	switch {
	case ok && m.Method == "" && m.HasID:
		return
	case ok && m.Method != "" && m.HasID:
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		wg.Go(func() {
			defer func() { <-slots }()
			s.handle(ctx, m.ID, line)
		})
	default:
		s.handle(ctx, m.ID, line)
	}
}

// handle runs one message through mcp-go and sends its answer, if any.
func (s *streamServer) handle(ctx context.Context, id any, msg []byte) {
	var resp mcp.JSONRPCMessage
	func() {
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("panic serving an MCP message", "panic", r)
				if id != nil {
					resp = mcp.JSONRPCError{JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id),
						Error: mcp.NewJSONRPCErrorDetails(mcp.INTERNAL_ERROR, fmt.Sprintf("internal panic: %v", r), nil)}
				}
			}
		}()
		resp = s.srv.HandleMessage(ctx, msg)
	}()
	if resp != nil {
		s.write(resp)
	}
}

func (s *streamServer) write(msg any) {
	b, err := json.Marshal(msg)
	if err != nil {
		s.log.Error("encoding an MCP message", "err", err)
		return
	}
	// A failed write ends the stream, which ends serve.
	_, _ = s.out.Write(append(b, '\n'))
}

// streamSession is the MCP session of a streamServer.
type streamSession struct {
	id            string
	notifications chan mcp.JSONRPCNotification
	initialized   atomic.Bool
	level         atomic.Value // mcp.LoggingLevel
	info          atomic.Value // mcp.Implementation
	caps          atomic.Value // mcp.ClientCapabilities
}

var (
	_ server.SessionWithLogging    = (*streamSession)(nil)
	_ server.SessionWithClientInfo = (*streamSession)(nil)
)

func (s *streamSession) SessionID() string { return s.id }

func (s *streamSession) NotificationChannel() chan<- mcp.JSONRPCNotification { return s.notifications }

func (s *streamSession) Initialize() {
	s.level.CompareAndSwap(nil, mcp.LoggingLevelError)
	s.initialized.Store(true)
}

func (s *streamSession) Initialized() bool { return s.initialized.Load() }

func (s *streamSession) SetLogLevel(level mcp.LoggingLevel) { s.level.Store(level) }

func (s *streamSession) GetLogLevel() mcp.LoggingLevel {
	if l, ok := s.level.Load().(mcp.LoggingLevel); ok {
		return l
	}
	return mcp.LoggingLevelError
}

func (s *streamSession) GetClientInfo() mcp.Implementation {
	v, _ := s.info.Load().(mcp.Implementation)
	return v
}

func (s *streamSession) SetClientInfo(v mcp.Implementation) { s.info.Store(v) }

func (s *streamSession) GetClientCapabilities() mcp.ClientCapabilities {
	v, _ := s.caps.Load().(mcp.ClientCapabilities)
	return v
}

func (s *streamSession) SetClientCapabilities(v mcp.ClientCapabilities) { s.caps.Store(v) }

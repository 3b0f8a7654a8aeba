package tools_test

import (
	"context"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/internal/testenv/mcpcheck"
	"github.com/seed4af8c199/browsermcp/tools"
)

// panicEngine is a test-only engine with a bug: NewSession panics when
// asked for the user agent "panic", and its sessions panic on every page
// call (the nil Session they embed), but not on Info and Close.
type panicEngine struct{}

func (panicEngine) Name() string { return "test/panics" }
func (panicEngine) Start()       {}
func (panicEngine) Close() error { return nil }
func (panicEngine) NewSession(_ context.Context, o engine.SessionOptions) (engine.Session, error) {
	if o.UserAgent == "panic" {
		panic("test engine: NewSession blew up")
	}
	return panicSession{}, nil
}

type panicSession struct{ engine.Session }

func (panicSession) Navigate(context.Context, engine.NavigateRequest) (engine.NavigateResult, error) {
	panic("test engine: Navigate blew up")
}
func (panicSession) Info(context.Context) engine.PageInfo { return engine.PageInfo{URL: "about:blank"} }
func (panicSession) Close(context.Context) error          { return nil }

// The parts of the contract the runtime calls outside the tool's call
// itself (engine.NothingToReport's answers): the session's bug is in its
// page calls alone.
func (panicSession) Gone() <-chan struct{}                    { return nil }
func (panicSession) EndedElsewhere(context.Context) bool      { return false }
func (panicSession) BlockedRequests() []engine.BlockedRequest { return nil }

// TestPanicIsOneInternalError checks that a panic in the engine under a
// tool call, on a session or while creating one, fails that call alone with
// INTERNAL_ERROR: the session is released for the next call (which would
// otherwise wait for it and time out as busy), the session slot is not
// leaked, and the server goes on answering.
func TestPanicIsOneInternalError(t *testing.T) {
	mgr := sessions.New(panicEngine{}, sessions.Config{MaxSessions: 1, Timeout: time.Minute})
	t.Cleanup(func() { mgr.Shutdown(context.Background()) })
	c, err := client.NewInProcessClient(tools.NewServer(mgr, tools.Options{Version: "test"}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	e := &env{t: t, c: mcpcheck.Wrap(t, c), mgr: mgr}

	// MaxSessions is 1: a leaked pending slot would make the next create
	// MAX_SESSIONS_REACHED.
	for range 2 {
		out := e.fail(engine.InternalError, "create_session", map[string]any{"userAgent": "panic"})
		if out["retryable"] != false {
			t.Fatalf("INTERNAL_ERROR must not invite a blind retry: %v", out)
		}
	}
	id := e.session()
	for range 2 {
		out := e.fail(engine.InternalError, "navigate", map[string]any{"sessionId": id, "url": "http://127.0.0.1:1/"})
		if out["sessionId"] != id {
			t.Fatalf("the error names session %v, want %s", out["sessionId"], id)
		}
	}
	// A panic on an unexpected path (the nil Session's Click) is caught too.
	e.fail(engine.InternalError, "click", map[string]any{"sessionId": id, "selector": "button"})
	sessions := e.ok("list_sessions", nil)["sessions"].([]any)
	if len(sessions) != 1 || sessions[0].(map[string]any)["sessionId"] != id {
		t.Fatalf("list_sessions after the panics = %v, want only %s", sessions, id)
	}
	e.ok("close_session", map[string]any{"sessionId": id})
}

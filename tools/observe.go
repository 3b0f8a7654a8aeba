package tools

import (
	"context"
	"log/slog"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Call is one tool call as an Observer sees it.
type Call struct {
	// Tool is the tool's name.
	Tool string
	// Args is the tool's input (its In type) as the caller's arguments
	// bound to it, with refs as given: a secret placeholder stays a
	// placeholder (the typing tools get the secret; observers never do).
	// Nil when the arguments did not bind.
	Args any
	// SessionID is the session a session tool runs on, once it is
	// found; empty for server tools (create_session, list_sessions, ...).
	SessionID string
	// Session is that session, held by this call: no other call runs on
	// it until After returns, so an observer can read the page as the
	// call left it. Nil for server tools and for a call that failed
	// before it reached its session. Observers must not keep it.
	Session engine.Session
}

// Observer sees every tool call, session tools and server tools alike:
// the subscriptions use it to tell subscribers about navigations. Calls
// run concurrently, so an Observer must be safe for concurrent use. It is
// given to NewServer (Options.Observers) and fixed from then on.
type Observer interface {
	// Before runs when the call starts its work: its arguments bound and,
	// for a session tool, its session held.
	Before(ctx context.Context, c Call)
	// After runs once for every call that reached the tool (Before ran
	// unless the call failed before its work started): res is the result
	// as the client gets it, its secrets redacted, and err the failure
	// (res is then the error result) or nil. For a session tool After
	// runs while the session is still held, before the call slides the
	// session's expiry, so res's expiresAt is the one from before the
	// call. Observers must not modify res.
	After(ctx context.Context, c Call, res *mcp.CallToolResult, err error)
}

// observers are the server's Observers, in the order they were given:
// Before and After call them in that order. A panicking observer is
// logged and does not fail the call.
type observers struct {
	list []Observer
	log  *slog.Logger
	// secrets redact results before observers see them; nil without.
	secrets *secrets
}

func (o *observers) active() bool { return o != nil && len(o.list) > 0 }

func (o *observers) before(ctx context.Context, c Call) {
	if !o.active() {
		return
	}
	for _, ob := range o.list {
		o.safely(ctx, c.Tool, func() { ob.Before(ctx, c) })
	}
}

// after tells the observers how the call ended; res builds its result,
// only when someone observes.
func (o *observers) after(ctx context.Context, c Call, res func() *mcp.CallToolResult, err error) {
	if !o.active() {
		return
	}
	r := o.secrets.redacted(ctx, res())
	for _, ob := range o.list {
		o.safely(ctx, c.Tool, func() { ob.After(ctx, c, r, err) })
	}
}

func (o *observers) safely(ctx context.Context, tool string, f func()) {
	defer func() {
		if p := recover(); p != nil {
			log := o.log
			if log == nil {
				log = slog.New(slog.DiscardHandler)
			}
			log.ErrorContext(ctx, "tool observer panicked", "tool", tool, "panic", p)
		}
	}()
	f()
}

// callerArgs is req with the arguments its caller sent, before the secrets
// middleware put secret values in place of their placeholders.
func callerArgs(ctx context.Context, req mcp.CallToolRequest) mcp.CallToolRequest {
	if args, ok := ctx.Value(callerArgsKey{}).(map[string]any); ok {
		req.Params.Arguments = args
	}
	return req
}

type callerArgsKey struct{}

// observedArgs binds the caller's own arguments for the observers: a
// fresh value, untouched by what the call does to its input, with secret
// placeholders where the call got the secrets.
func observedArgs[In any](ctx context.Context, o *observers, req mcp.CallToolRequest, shape argShape) any {
	if !o.active() {
		return nil
	}
	in, err := bind[In](callerArgs(ctx, req), shape)
	if err != nil {
		return nil
	}
	return in
}

// failed tells the observers of a call that failed before its work
// started, and returns its error result.
func (o *observers) failed(ctx context.Context, c Call, err error) *mcp.CallToolResult {
	res := errorResult(err)
	o.after(ctx, c, func() *mcp.CallToolResult { return res }, err)
	return res
}

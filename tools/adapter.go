package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"runtime/debug"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/codegen"
	"github.com/seed4af8c199/browsermcp/internal/jsonrpc"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
)

// Deps is what tool constructors need.
type Deps struct {
	Sessions *sessions.Manager
	Log      *slog.Logger
	// MaxScreenshotBytes caps images returned to the agent (default 2 MiB).
	MaxScreenshotBytes int
	// OutputDir is where the server writes files for the agent.
	OutputDir string
	// OmitImages answers screenshots with the file they were saved to
	// instead of image content (--image-responses omit).
	OmitImages bool
	// SnapshotMaxText caps each string of a snapshot (engine.SnapshotRequest's
	// MaxText: 0 the default, negative none).
	SnapshotMaxText int
	// files confines the tool arguments that name server files.
	files fileAccess
	// noScript is set when script evaluation is disabled: then a click
	// that would follow a javascript: URL is refused too.
	noScript bool
	// observe holds the server's Observers (observe.go), fixed when the
	// server is built; nil in a Deps made only to list the tools.
	observe *observers
	// secrets are redacted from resources as from tool results; nil
	// without prompts.
	secrets *secrets
	// refs are those of each session's last snapshot, for completions.
	refs lastRefs
	// shots are the screenshots kept for the screenshot resources.
	shots shotLog
	// actionResult is what an action's result carries of the page
	// (--action-result: changes, none or full), changesCap how many
	// o200k tokens its changes may take (changes.go).
	actionResult string
	changesCap   int
	// codegen is the language of the code an action's result carries
	// (--codegen); record keeps each session's steps for export_test
	// (--caps testing), in stepLog (codegen.go).
	codegen codegen.Language
	record  bool
	// requestLog is set when get_request_log is listed: get_request's
	// errors name it only then.
	requestLog bool
	stepLog    *stepLog
	// recs are the sessions' recordings (recordings.go).
	recs *recordings
	// version is the server's, which the files it writes name (a HAR's
	// creator).
	version string
}

// Tool is one MCP tool: its definition, its handler and the capability group
// that enables it.
type Tool struct {
	Def     mcp.Tool
	Handler server.ToolHandlerFunc
	Group   Group
	// Progress is set for calls that can take long (navigations, waits,
	// PDFs, screenshots): a caller that sends _meta.progressToken gets
	// notifications/progress while they run (withProgress).
	Progress bool
	// in is the type its arguments bind to, whose tags bound them.
	in reflect.Type
	// session is set for a tool that runs on one session (onSession):
	// its calls take turns on it (turns.go).
	session bool
	// turn, set for a tool that changes which session calls run on (turnOn),
	// is the session a call with these arguments takes its turn on.
	turn func(args json.RawMessage) string
}

// Limit is the bound of one argument of a tool: a numeric range, or the
// most bytes of a string.
type Limit struct {
	Field    string
	Number   bool
	Min, Max float64
	MaxBytes int
}

// Limits lists the bound of every argument of t, as the adapter checks
// them and the README's table of limits shows them.
func (t Tool) Limits() []Limit {
	var ls []Limit
	for _, b := range boundsOf(t.in) {
		ls = append(ls, Limit{Field: b.name(), Number: b.number, Min: b.min, Max: b.max, MaxBytes: b.size})
	}
	return ls
}

// Group is a capability group selectable with --caps.
type Group string

// The capability groups; Core is always on.
const (
	Core Group = "core"
)

// SessionArg is embedded in the input of every session tool.
type SessionArg struct {
	SessionID string `json:"sessionId,omitempty"`
}

func (a SessionArg) sessionRef() string { return a.SessionID }

// PageIn is the input of tools that take only the session.
type PageIn struct {
	SessionArg
}

type sessionRefer interface{ sessionRef() string }

// SessionMeta is embedded in the output of every session tool: which session
// answered and its new expiry.
type SessionMeta struct {
	SessionID string `json:"sessionId" jsonschema:"Session that ran the call"`
	ExpiresAt int64  `json:"expiresAt" jsonschema:"Unix ms when the session expires unless used again"`
	// Notices say what happened on the session outside the call: a
	// recording that stopped at its bound (recordings.go).
	Notices []string `json:"notices,omitempty" jsonschema:"What happened on the session outside this call, e.g. a recording stopped at its bound"`
}

func (m *SessionMeta) setMeta(i engine.SessionInfo) {
	m.SessionID, m.ExpiresAt = i.ID, i.ExpiresAt.UnixMilli()
}

type metaSetter interface{ setMeta(engine.SessionInfo) }

// sessionTool builds a tool that runs on one session. The adapter binds and
// validates the arguments, finds the session (SESSION_NOT_FOUND /
// SESSION_EXPIRED), runs fn while no other call uses that session, slides
// its expiry, and turns the result or error into an MCP result. fn holds
// only the browser work.
func sessionTool[In sessionRefer, Out any](d *Deps, name, desc string, h hints,
	fn func(ctx context.Context, s engine.Session, in In) (Out, error)) Tool {
	def := define[In, Out](name, desc, h)
	return Tool{Def: def, Group: Core, in: reflect.TypeFor[In](), session: true, Handler: onSession(d, name, def, fn, func(out Out, info engine.SessionInfo) *mcp.CallToolResult {
		if m, ok := any(&out).(metaSetter); ok {
			m.setMeta(info)
		}
		if c, ok := any(&out).(changeCarrier); ok {
			if slot := c.changesSlot(); slot != nil && *slot != nil {
				return changesResult(&out, slot)
			}
		}
		return result(out)
	})}
}

// onSession is the handler behind every session tool; render turns fn's
// value and the session's new state into the MCP result.
func onSession[In sessionRefer, R any](d *Deps, name string, def mcp.Tool,
	fn func(ctx context.Context, s engine.Session, in In) (R, error),
	render func(R, engine.SessionInfo) *mcp.CallToolResult) server.ToolHandlerFunc {
	shape := shapeOf[In](def)
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// The call's turn on its session (turns.go): Run waits for the
		// calls that arrived before it, and a call that fails before
		// Run lets the next one go.
		turn := jsonrpc.TurnOf(req.Params.Meta)
		defer d.Sessions.Leave(turn)
		ctx = sessions.WithTurn(ctx, turn)
		call := Call{Tool: name}
		in, err := bind[In](req, shape)
		if err != nil {
			return d.observe.failed(ctx, call, withSessionID(err, req)), nil
		}
		call.Args = observedArgs[In](ctx, d.observe, req, shape)
		// A context-prefixed ref names the session too (ctxrefs.go).
		sc, err := scopeRefs(ctx, d.Sessions, in.sessionRef(), &in)
		if err != nil {
			return d.observe.failed(ctx, call, withSessionID(err, req)), nil
		}
		var out R
		// code is the Playwright code of the call (codegen.go), added to
		// its result.
		var code string
		rendered := func(out R, info engine.SessionInfo) *mcp.CallToolResult {
			res := render(out, info)
			withCode(res, code)
			return res
		}
		reached := false
		info, err := d.Sessions.Run(sessions.WithOp(ctx, name), sc.session, func(ctx context.Context, s engine.Session) (err error) {
			reached = true
			call := call
			call.SessionID, call.Session = engine.SessionIDFrom(ctx), s
			// The observers see the end of the call while it still holds
			// the session, after a panic is recovered.
			defer func() {
				err = sc.restore(err)
				d.observe.after(ctx, call, func() *mcp.CallToolResult {
					if err != nil {
						// As Run will say it.
						e := engine.AsError(err)
						e.SessionID = call.SessionID
						return errorResult(e)
					}
					// Run slides the expiry once the call has ended.
					now, _ := d.Sessions.Find(ctx, call.SessionID)
					return rendered(out, now)
				}, err)
			}()
			// Recovered here, inside Run, so that the session is released
			// and serves the next call.
			defer recoverCall(ctx, d.Log, name, &err)
			d.observe.before(ctx, call)
			var step *pendingStep
			if d.codegenOn(name) {
				step = d.prepareStep(ctx, s, name, call.SessionID, in, callerArgs(ctx, req).GetArguments())
			}
			markChapter(ctx, def, s, req) // on a running video (video.go)
			if out, err = fn(ctx, s, in); err == nil {
				sc.restoreMessage(&out)
				d.addChanges(ctx, name, s, &out)
				if n, ok := any(&out).(noticer); ok && d.recs != nil {
					n.setNotices(d.recs.drain(engine.SessionIDFrom(ctx)))
				}
				code = d.finishStep(call.SessionID, step, out)
			}
			return err
		})
		if err != nil {
			d.Log.DebugContext(ctx, "tool failed", "tool", name, "err", err)
			if !reached {
				return d.observe.failed(ctx, call, sc.restore(err)), nil
			}
			// fn's errors are restored inside.
			return errorResult(err), nil
		}
		return rendered(out, info), nil
	}
}

// withSessionID gives an error of the arguments the sessionId the call
// named, when it named one that is a string of sensible size: the
// arguments did not bind, so no session was looked up to set it.
func withSessionID(err error, req mcp.CallToolRequest) error {
	e := engine.AsError(err)
	if id, ok := req.GetArguments()["sessionId"].(string); ok && e.SessionID == "" && id != "" && len(id) <= maxQuotedID {
		e.SessionID = id
	}
	return e
}

// maxQuotedID is the longest sessionId an error repeats back.
const maxQuotedID = 128

// recoverCall turns a panic of the call into an INTERNAL_ERROR in *err and
// logs it with its stack: one bad call fails alone, and the server lives on.
func recoverCall(ctx context.Context, log *slog.Logger, tool string, err *error) {
	if e := engine.Recovered(recover()); e != nil {
		log.ErrorContext(ctx, "tool panicked", "tool", tool, "panic", e.Message, "stack", string(debug.Stack()))
		*err = e
	}
}

// recovering wraps a tool's handler so that a panic anywhere in it, even
// outside a session, is one INTERNAL_ERROR result. mcp-go's own recovery
// would make it a JSON-RPC error, which carries no errorCode.
func recovering(log *slog.Logger, tool string, h server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		defer func() {
			var perr error
			recoverCall(ctx, log, tool, &perr)
			if perr != nil {
				res, err = errorResult(perr), nil
			}
		}()
		return h(ctx, req)
	}
}

// serverTool builds a tool that does not run on one session.
func serverTool[In, Out any](d *Deps, name, desc string, h hints, fn func(ctx context.Context, in In) (Out, error)) Tool {
	def := define[In, Out](name, desc, h)
	shape := shapeOf[In](def)
	return Tool{Def: def, Group: Core, in: reflect.TypeFor[In](), Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		call := Call{Tool: name}
		in, err := bind[In](req, shape)
		if err != nil {
			return d.observe.failed(ctx, call, withSessionID(err, req)), nil
		}
		call.Args = observedArgs[In](ctx, d.observe, req, shape)
		d.observe.before(ctx, call)
		out, err := func() (out Out, err error) {
			// Recovered here so that the observers see the failure.
			defer recoverCall(ctx, d.Log, name, &err)
			return fn(ctx, in)
		}()
		var res *mcp.CallToolResult
		if err != nil {
			res = errorResult(err)
		} else {
			res = result(out)
		}
		d.observe.after(ctx, call, func() *mcp.CallToolResult { return res }, err)
		return res, nil
	}}
}

// turnOn makes t take a turn (turns.go) as a session tool does: on the
// session its argument arg names (close_session, browser_context_close),
// or, when arg is "", on the active context (browser_context_switch and
// browser_context_create, which change it). Its handler waits for the
// calls before it, and the calls after it wait for it: a close no longer
// jumps ahead of the calls queued on its session, and a call without
// sessionId sent after a switch runs on the context switched to.
func turnOn(d *Deps, arg string, t Tool) Tool {
	t.turn = func(args json.RawMessage) string {
		if arg == "" {
			return ""
		}
		var m map[string]json.RawMessage
		var ref string
		_ = json.Unmarshal(args, &m)
		_ = json.Unmarshal(m[arg], &ref)
		return ref
	}
	h, name := t.Handler, t.Def.Name
	t.Handler = func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		turn := jsonrpc.TurnOf(req.Params.Meta)
		defer d.Sessions.Leave(turn)
		ctx = sessions.WithTurn(ctx, turn)
		if err := d.Sessions.WaitTurn(ctx); err != nil {
			// The observers see this failure too, though the call's
			// arguments were never bound.
			return d.observe.failed(ctx, Call{Tool: name}, withSessionID(err, req)), nil
		}
		return h(ctx, req)
	}
	return t
}

// long marks t as a call that can take long (Tool.Progress).
func long(t Tool) Tool {
	t.Progress = true
	return t
}

// progressEvery is how often a long call reports progress.
const progressEvery = time.Second

// withProgress sends notifications/progress for a call that carries
// _meta.progressToken: one as it starts, then one every progressEvery
// until it ends, each saying how long it has run. The last one goes out
// before the result: none follows it.
func withProgress(tool string, h server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		srv := server.ServerFromContext(ctx)
		if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil || srv == nil {
			return h(ctx, req)
		}
		token := req.Params.Meta.ProgressToken
		start := time.Now()
		report := func(n int, msg string) {
			// A client that went away is no reason to fail the call.
			_ = srv.SendNotificationToClient(ctx, string(mcp.MethodNotificationProgress), map[string]any{
				"progressToken": token, "progress": n, "message": msg,
			})
		}
		report(0, tool+" started")
		stop, stopped := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(stopped)
			t := time.NewTicker(progressEvery)
			defer t.Stop()
			for n := 1; ; n++ {
				select {
				case <-stop:
					return
				case <-ctx.Done():
					return
				case <-t.C:
					report(n, fmt.Sprintf("%s running for %s", tool, time.Since(start).Round(100*time.Millisecond)))
				}
			}
		}()
		defer func() { close(stop); <-stopped }()
		return h(ctx, req)
	}
}

package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Deps is what tool constructors need.
type Deps struct {
	Sessions *engine.Manager
	Log      *slog.Logger
	// MaxScreenshotBytes caps images returned to the agent (default 2 MiB).
	MaxScreenshotBytes int
	// subs tells resource subscribers about navigations; nil without
	// resources.
	subs *subscriptions
}

// Tool is one MCP tool: its definition, its handler and the capability group
// that enables it.
type Tool struct {
	Def     mcp.Tool
	Handler server.ToolHandlerFunc
	Group   Group
}

// Group is a capability group selectable with --caps.
type Group string

// The capability groups; Core is always on.
const (
	Core Group = "core"
)

// hints are the four MCP annotation hints. Every tool declares all four:
// nothing is left to mcp-go, which would call an unset hint destructive and
// open-world. On the wire a tool carries only the hints that tell a client
// something (see annotations).
type hints struct{ readOnly, destructive, idempotent, openWorld bool }

var (
	// readOnly tools only observe the page. They are open-world all the
	// same: what they return comes from whatever site the page shows, and a
	// client should treat it as untrusted.
	readOnly = hints{readOnly: true, idempotent: true, openWorld: true}
	// pageAction tools act on the page, and through it on the web.
	pageAction = hints{openWorld: true}
	// local tools change server state only.
	local = hints{}
)

// annotations encodes h as the MCP annotations a client reads, leaving out
// what the MCP specification makes implicit: a hint equal to its default
// (readOnlyHint false, destructiveHint true, idempotentHint false,
// openWorldHint true), and destructiveHint and idempotentHint on read-only
// tools, which the specification calls meaningful only when readOnlyHint is
// false. A client applying the specification's defaults reads exactly h;
// tools/list pays about 20 o200k tokens less per tool (decision record
// docs/decisions/2026-11-22-annotations-without-defaults.md).
func annotations(h hints) mcp.ToolAnnotation {
	var a mcp.ToolAnnotation
	if h.readOnly {
		a.ReadOnlyHint = new(true)
	} else {
		if !h.destructive {
			a.DestructiveHint = new(false)
		}
		if h.idempotent {
			a.IdempotentHint = new(true)
		}
	}
	if !h.openWorld {
		a.OpenWorldHint = new(false)
	}
	return a
}

// declared reports whether a is what annotations makes of some hints: a
// tool built without define carries mcp-go's defaults, which are not.
func declared(a mcp.ToolAnnotation) bool {
	isTrue := func(p *bool) bool { return p != nil && *p }
	h := hints{
		readOnly:    isTrue(a.ReadOnlyHint),
		destructive: a.DestructiveHint == nil || *a.DestructiveHint,
		idempotent:  isTrue(a.IdempotentHint),
		openWorld:   a.OpenWorldHint == nil || *a.OpenWorldHint,
	}
	if h.readOnly {
		h.destructive, h.idempotent = false, true
	}
	return reflect.DeepEqual(a, annotations(h))
}

func define[In, Out any](name, desc string, h hints) mcp.Tool {
	t := mcp.NewTool(name,
		mcp.WithDescription(desc),
		mcp.WithInputSchema[In](),
		mcp.WithOutputSchema[Out](),
		mcp.WithToolAnnotation(annotations(h)),
	)
	t.RawInputSchema = leanSchema(t.RawInputSchema, false)
	t.RawOutputSchema = leanSchema(mustJSON(t.OutputSchema), true)
	t.OutputSchema = mcp.ToolOutputSchema{}
	return t
}

// leanSchema trims what agents pay for on every tools/list and never use:
// boolean additionalProperties (false is not enforced: bind ignores unknown
// arguments; true is the default) and items:true everywhere, and in output
// schemas the
// descriptions, required lists and the envelope every successful result
// carries (success:true, sessionId, expiresAt; README documents it). The
// schemas stay open, so the envelope still validates.
func leanSchema(raw json.RawMessage, output bool) json.RawMessage {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return raw
	}
	// depth counts object levels: top-level parameters are at depth 1 and
	// keep their descriptions in input schemas; nested fields never do.
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		switch v := v.(type) {
		case map[string]any:
			if _, ok := v["additionalProperties"].(bool); ok {
				delete(v, "additionalProperties")
			}
			if it, ok := v["items"].(bool); ok && it {
				delete(v, "items")
			}
			if output || depth > 1 {
				delete(v, "description")
			}
			if output {
				delete(v, "required")
				// Results are self-describing JSON: one level of property
				// types tells the agent what comes back.
				if depth >= 1 {
					delete(v, "items")
					delete(v, "properties")
					delete(v, "additionalProperties")
				}
			}
			// A nullable slice or pointer is just its type to an agent.
			if ts, ok := v["type"].([]any); ok && len(ts) == 2 && ts[0] == "null" {
				v["type"] = ts[1]
			}
			for k, c := range v {
				// A properties map names fields, not keywords: a field
				// called "description" or "items" is a schema to walk.
				if props, ok := c.(map[string]any); ok && k == "properties" {
					for _, p := range props {
						walk(p, depth+1)
					}
					continue
				}
				walk(c, depth)
			}
		case []any:
			for _, c := range v {
				walk(c, depth)
			}
		}
	}
	walk(m, 0)
	if props, ok := m["properties"].(map[string]any); ok && output {
		delete(props, "sessionId")
		delete(props, "expiresAt")
		delete(props, "success")
	}
	return mustJSON(m)
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

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
}

func (m *SessionMeta) setMeta(i engine.Info) {
	m.SessionID, m.ExpiresAt = i.ID, i.ExpiresAt.UnixMilli()
}

type metaSetter interface{ setMeta(engine.Info) }

// validator is implemented by inputs with rules beyond their schema.
type validator interface{ validate() error }

// sessionTool builds a tool that runs on one session. The adapter binds and
// validates the arguments, finds the session (SESSION_NOT_FOUND /
// SESSION_EXPIRED), runs fn while no other call uses that session, slides
// its expiry, and turns the result or error into an MCP result. fn holds
// only the browser work.
func sessionTool[In sessionRefer, Out any](d *Deps, name, desc string, h hints,
	fn func(ctx context.Context, s engine.Session, in In) (Out, error)) Tool {
	def := define[In, Out](name, desc, h)
	return Tool{Def: def, Group: Core, Handler: onSession(d, name, def, fn, func(out Out, info engine.Info) *mcp.CallToolResult {
		if m, ok := any(&out).(metaSetter); ok {
			m.setMeta(info)
		}
		return result(out)
	})}
}

// onSession is the handler behind every session tool; render turns fn's
// value and the session's new state into the MCP result.
func onSession[In sessionRefer, R any](d *Deps, name string, def mcp.Tool,
	fn func(ctx context.Context, s engine.Session, in In) (R, error),
	render func(R, engine.Info) *mcp.CallToolResult) server.ToolHandlerFunc {
	required := requiredOf(def)
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		in, err := bind[In](req, required)
		if err != nil {
			return errorResult(err), nil
		}
		var out R
		info, err := d.Sessions.Use(ctx, in.sessionRef(), func(ctx context.Context, s engine.Session) error {
			var err error
			if out, err = fn(ctx, s, in); err == nil {
				d.subs.afterCall(ctx, engine.SessionIDFrom(ctx), s)
			}
			return err
		})
		if err != nil {
			d.Log.DebugContext(ctx, "tool failed", "tool", name, "err", err)
			return errorResult(err), nil
		}
		return render(out, info), nil
	}
}

// serverTool builds a tool that does not run on one session.
func serverTool[In, Out any](name, desc string, h hints, fn func(ctx context.Context, in In) (Out, error)) Tool {
	def := define[In, Out](name, desc, h)
	required := requiredOf(def)
	return Tool{Def: def, Group: Core, Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		in, err := bind[In](req, required)
		if err != nil {
			return errorResult(err), nil
		}
		out, err := fn(ctx, in)
		if err != nil {
			return errorResult(err), nil
		}
		return result(out), nil
	}}
}

// requiredOf lists the required properties of a tool's input schema.
func requiredOf(t mcp.Tool) []string {
	var s struct {
		Required []string `json:"required"`
	}
	_ = json.Unmarshal(t.RawInputSchema, &s)
	return s.Required
}

// bind decodes and validates the arguments into In. Every failure is an
// INVALID_PARAMETERS error naming the field.
func bind[In any](req mcp.CallToolRequest, required []string) (In, error) {
	var in In
	args, _ := req.Params.Arguments.(map[string]any)
	if req.Params.Arguments != nil && args == nil {
		return in, engine.Errorf(engine.InvalidParameters, "arguments must be a JSON object")
	}
	for _, f := range required {
		if v, ok := args[f]; !ok || v == nil {
			return in, engine.Errorf(engine.InvalidParameters, "missing required parameter %q", f).With("field", f)
		}
	}
	raw, _ := json.Marshal(args)
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if err := dec.Decode(&in); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return in, engine.Errorf(engine.InvalidParameters, "parameter %q must be %s, not %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value).
				With("field", te.Field)
		}
		return in, engine.Wrap(engine.InvalidParameters, err, "invalid arguments: "+err.Error())
	}
	if v, ok := any(in).(validator); ok {
		if err := v.validate(); err != nil {
			return in, err
		}
	}
	return in, nil
}

func jsonKind(goKind string) string {
	switch {
	case strings.HasPrefix(goKind, "int"), strings.HasPrefix(goKind, "uint"), strings.HasPrefix(goKind, "float"):
		return "a number"
	case goKind == "bool":
		return "a boolean"
	case goKind == "string":
		return "a string"
	case goKind == "slice":
		return "an array"
	}
	return "an object"
}

// invalid is a shorthand for an INVALID_PARAMETERS error on one field.
func invalid(field, format string, args ...any) error {
	return engine.Errorf(engine.InvalidParameters, format, args...).With("field", field)
}

// oneOf checks that v is one of allowed (empty allowed when optional).
func oneOf(field, v string, allowed ...string) error {
	if v == "" || slices.Contains(allowed, v) {
		return nil
	}
	return invalid(field, "%s must be one of %s, not %q", field, strings.Join(allowed, ", "), v)
}

// nonNegative checks a numeric parameter.
func nonNegative(field string, v int) error {
	if v < 0 {
		return invalid(field, "%s must not be negative, got %d", field, v)
	}
	return nil
}

// texter is implemented by results whose text for the model is not their
// JSON, such as a snapshot: escaping an outline into a JSON string would
// cost tokens and hide its lines.
type texter interface{ text() string }

// result renders a success: structuredContent plus the same JSON as text,
// or the result's own text when it has one.
func result(out any) *mcp.CallToolResult {
	b, err := json.Marshal(out)
	if err != nil {
		return errorResult(fmt.Errorf("encoding the result: %w", err))
	}
	text := string(b)
	if t, ok := out.(texter); ok {
		text = t.text()
	}
	return mcp.NewToolResultStructured(json.RawMessage(b), text)
}

// ErrorBody is the JSON an agent gets for every failure.
type ErrorBody struct {
	ErrorCode  engine.Code    `json:"errorCode"`
	Message    string         `json:"message"`
	SessionID  string         `json:"sessionId,omitempty"`
	Details    map[string]any `json:"details,omitempty"`
	Retryable  bool           `json:"retryable"`
	Suggestion string         `json:"suggestion,omitempty"`
}

// errorResult renders a failure as an isError result.
func errorResult(err error) *mcp.CallToolResult {
	e := engine.AsError(err)
	body := ErrorBody{ErrorCode: e.Code, Message: e.Message, SessionID: e.SessionID, Details: e.Details, Retryable: e.Retryable, Suggestion: e.Suggestion}
	b, _ := json.Marshal(body)
	r := mcp.NewToolResultStructured(json.RawMessage(b), string(b))
	r.IsError = true
	return r
}

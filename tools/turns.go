package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/seed4af8c199/browsermcp/internal/jsonrpc"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
)

// Turns orders the calls on each session by their arrival (see
// jsonrpc.Turns and sessions.Manager.Arrive). A call of a session tool takes
// a turn on the session it will run on: the one its sessionId names, else
// the context its context-prefixed refs name (ctxrefs.go), else the
// active context. close_session and browser_context_close take one on the
// session they close, browser_context_switch and browser_context_create
// on the active context (turnOn). The other tools (create_session,
// list_sessions, browser_context_list) take no turn and wait for none, as
// does a tool s does not serve (left out by --caps or --disabled-tools):
// it is refused before any handler could end its turn. s may be nil in
// tests: then every tool of the registry counts.
func Turns(m *sessions.Manager, s *server.MCPServer) jsonrpc.Turns { return turns{m, s} }

type turns struct {
	m *sessions.Manager
	s *server.MCPServer
}

func (t turns) Take(ctx context.Context, method string, params json.RawMessage) string {
	if method != string(mcp.MethodToolsCall) {
		return ""
	}
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	ref, ok := turnTakers()[p.Name]
	if !ok || t.s != nil && t.s.GetTool(p.Name) == nil {
		return ""
	}
	return t.m.Arrive(ctx, ref(p.Arguments))
}

func (t turns) Leave(token string) { t.m.Leave(token) }

// turnTakers maps each tool that takes a turn to the session a call with
// given arguments takes it on ("" for the active context).
var turnTakers = sync.OnceValue(func() map[string]func(json.RawMessage) string {
	refs := map[string]func(json.RawMessage) string{}
	for _, t := range registry(&Deps{}) {
		switch {
		case t.session:
			refs[t.Def.Name] = func(args json.RawMessage) string { return sessionOf(t.in, args) }
		case t.turn != nil:
			refs[t.Def.Name] = t.turn
		}
	}
	return refs
})

// sessionOf is the session a call with args will run on, as scopeRefs
// finds it: its sessionId, else the context its first prefixed ref
// names, else "" (the active context). Arguments that do not bind are the
// handler's to refuse; what binds of them is enough here.
func sessionOf(in reflect.Type, args json.RawMessage) string {
	v := reflect.New(in)
	_ = json.Unmarshal(args, v.Interface())
	if id := v.Elem().Interface().(sessionRefer).sessionRef(); id != "" {
		return id
	}
	for _, a := range refArgs(v.Interface()) {
		if name, _, ok := splitRef(*a.val); ok {
			return name
		}
	}
	return ""
}

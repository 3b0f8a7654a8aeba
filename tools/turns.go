package tools

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/jsonrpc"
)

// Turns orders the calls on each session by their arrival (see
// jsonrpc.Turns and engine.Manager.Arrive). A call of a session tool takes
// a turn on the session it will run on: the one its sessionId names, else
// the context its context-prefixed refs name (ctxrefs.go), else the
// active context. Other tools (create_session, list_sessions,
// close_session, the browser_context_* tools) take no turn and wait for
// none.
func Turns(m *engine.Manager) jsonrpc.Turns { return turns{m} }

type turns struct{ m *engine.Manager }

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
	in, ok := sessionInputs()[p.Name]
	if !ok {
		return ""
	}
	return t.m.Arrive(ctx, sessionOf(in, p.Arguments))
}

func (t turns) Leave(token string) { t.m.Leave(token) }

// sessionInputs maps each session tool to the type of its arguments.
var sessionInputs = sync.OnceValue(func() map[string]reflect.Type {
	ins := map[string]reflect.Type{}
	for _, t := range registry(&Deps{}) {
		if t.session {
			ins[t.Def.Name] = t.in
		}
	}
	return ins
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

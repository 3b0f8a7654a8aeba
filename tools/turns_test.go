package tools

import (
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/seed4af8c199/browsermcp/internal/sessions"
)

// TestTurnsFindTheCallsSession: a call takes its turn on the session its
// sessionId names, else on the context its prefixed refs name (a ref of
// drag_and_drop's source or target too), else on the active context; the
// tools that close a session take one on it, those that change the
// active context on the active context, the others and the tools the
// server does not serve take none.
func TestTurnsFindTheCallsSession(t *testing.T) {
	ins := turnTakers()
	for _, c := range []struct {
		tool, args, want string
	}{
		{"click", `{"sessionId":"s1","ref":"uk:e5"}`, "s1"},
		{"click", `{"ref":"uk:e5"}`, "uk"},
		{"click", `{"selector":"#go"}`, ""},
		{"click", `{"ref":"e5"}`, ""},
		{"drag_and_drop", `{"source":"#a","target":"fr:f1e2"}`, "fr"},
		{"navigate", `{"url":"https://example.com","sessionId":"s2"}`, "s2"},
		{"navigate", `{"url":7,"sessionId":"s3"}`, "s3"},
		{"close_session", `{"sessionId":"s1"}`, "s1"},
		{"browser_context_close", `{"name":"uk"}`, "uk"},
		{"browser_context_switch", `{"name":"uk"}`, ""},
		{"browser_context_create", `{"name":"fr"}`, ""},
	} {
		ref, ok := ins[c.tool]
		if !ok {
			t.Fatalf("%s takes no turn", c.tool)
		}
		if got := ref(json.RawMessage(c.args)); got != c.want {
			t.Errorf("%s %s: session %q, want %q", c.tool, c.args, got, c.want)
		}
	}
	// The server serves snapshot and close_session: a tool it does not
	// serve (--caps, --disabled-tools) takes no turn, which no handler
	// would end.
	srv := server.NewMCPServer("t", "1")
	for _, tool := range registry(&Deps{}) {
		if tool.Def.Name == "snapshot" || tool.Def.Name == "close_session" {
			srv.AddTool(tool.Def, tool.Handler)
		}
	}
	tr := Turns(sessions.New(nil, sessions.Config{}), srv)
	for _, c := range []struct{ method, params string }{
		{"tools/call", `{"name":"create_session","arguments":{"name":"x"}}`},
		{"tools/call", `{"name":"list_sessions","arguments":{}}`},
		{"tools/call", `{"name":"click","arguments":{"selector":"#go"}}`},
		{"tools/call", `{"name":"no_such_tool"}`},
		{"resources/read", `{"uri":"browser:///session/s1"}`},
	} {
		if tok := tr.Take(t.Context(), c.method, json.RawMessage(c.params)); tok != "" {
			t.Errorf("%s %s took turn %q", c.method, c.params, tok)
		}
	}
	for _, params := range []string{`{"name":"snapshot","arguments":{}}`, `{"name":"close_session","arguments":{"sessionId":"s1"}}`} {
		tok := tr.Take(t.Context(), "tools/call", json.RawMessage(params))
		if tok == "" {
			t.Fatalf("%s took no turn", params)
		}
		tr.Leave(tok)
	}
}

package tools

import (
	"encoding/json"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
)

// TestTurnsFindTheCallsSession: a call takes its turn on the session its
// sessionId names, else on the context its prefixed refs name (a ref of
// drag_and_drop's source or target too), else on the active context; the
// tools that touch no one session take no turn.
func TestTurnsFindTheCallsSession(t *testing.T) {
	ins := sessionInputs()
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
	} {
		in, ok := ins[c.tool]
		if !ok {
			t.Fatalf("%s is no session tool", c.tool)
		}
		if got := sessionOf(in, json.RawMessage(c.args)); got != c.want {
			t.Errorf("%s %s: session %q, want %q", c.tool, c.args, got, c.want)
		}
	}
	tr := Turns(engine.NewManager(nil, engine.ManagerConfig{}))
	for _, c := range []struct{ method, params string }{
		{"tools/call", `{"name":"create_session","arguments":{"name":"x"}}`},
		{"tools/call", `{"name":"close_session","arguments":{"sessionId":"s1"}}`},
		{"tools/call", `{"name":"browser_context_switch","arguments":{"name":"x"}}`},
		{"tools/call", `{"name":"no_such_tool"}`},
		{"resources/read", `{"uri":"browser:///session/s1"}`},
	} {
		if tok := tr.Take(t.Context(), c.method, json.RawMessage(c.params)); tok != "" {
			t.Errorf("%s %s took turn %q", c.method, c.params, tok)
		}
	}
	tok := tr.Take(t.Context(), "tools/call", json.RawMessage(`{"name":"snapshot","arguments":{}}`))
	if tok == "" {
		t.Fatal("snapshot took no turn")
	}
	tr.Leave(tok)
}

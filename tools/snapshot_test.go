package tools_test

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
)

// snap takes a snapshot through MCP and returns the text the model reads,
// after checking that structuredContent carries the same outline.
func (e *env) snap(id string, args map[string]any) string {
	e.t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	args["sessionId"] = id
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := e.c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "snapshot", Arguments: args}})
	if err != nil {
		e.t.Fatalf("snapshot: protocol error: %v", err)
	}
	text := ""
	if len(res.Content) > 0 {
		if tc, ok := mcp.AsTextContent(res.Content[0]); ok {
			text = tc.Text
		}
	}
	if res.IsError {
		e.t.Fatalf("snapshot(%v) failed: %s", args, text)
	}
	sc, _ := res.StructuredContent.(map[string]any)
	outline, _ := sc["snapshot"].(string)
	if outline == "" || !regexp.MustCompile(`(?s)^Page: .*\nTitle: .*\n`).MatchString(text) || text[len(text)-len(outline):] != outline {
		e.t.Fatalf("snapshot text %q does not end with structured outline %q", text, outline)
	}
	return outline
}

// ref finds the ref of the element with role and name in a snapshot, with
// the regexp peerbench uses.
func ref(t *testing.T, snapshot, role, name string) string {
	t.Helper()
	re := regexp.MustCompile(`- ` + regexp.QuoteMeta(role) + ` "` + regexp.QuoteMeta(name) + `"(?: \[[^\]]*\])*? \[ref=([^\]\s]+)\]`)
	m := re.FindStringSubmatch(snapshot)
	if m == nil {
		t.Fatalf("no %s %q with a ref in:\n%s", role, name, snapshot)
	}
	return m[1]
}

func TestSnapshotFramesSmoke(t *testing.T) {
	e := newEnv(t, engineConfig())
	id := e.open("/peerbench/frames.html")
	var s string
	for i := 0; i < 50; i++ {
		s = e.snap(id, nil)
		if regexp.MustCompile(`Inner button cross`).MatchString(s) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Log(s)
	e.ok("click", map[string]any{"sessionId": id, "ref": ref(t, s, "button", "Inner button same")})
	e.ok("click", map[string]any{"sessionId": id, "ref": ref(t, s, "button", "Inner button cross")})
	s = e.snap(id, nil)
	t.Log(s)
}

func engineConfig() engine.ManagerConfig { return engine.ManagerConfig{} }

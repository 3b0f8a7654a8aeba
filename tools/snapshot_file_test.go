package tools_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/page"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// savedOutline is snapshot {file:true}'s structured result.
type savedOutline struct {
	Snapshot, Path string
	Bytes, Refs    int
}

// snapFile calls snapshot {file:true}, which must succeed, and returns
// the text the model reads and the structured result.
func (e *env) snapFile(args map[string]any) (string, savedOutline) {
	e.t.Helper()
	args["file"] = true
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := e.c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "snapshot", Arguments: args}})
	if err != nil || res.IsError {
		e.t.Fatalf("snapshot(%v): %v %v", args, err, res)
	}
	var out savedOutline
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &out)
	return res.Content[0].(mcp.TextContent).Text, out
}

// TestSnapshotFile: snapshot {file:true} writes the outline a snapshot
// answers with to a new file in the session's output directory, answers
// with its path, size and refs instead of the outline, and its refs work;
// the file goes with the session. maxChars with it is refused.
func TestSnapshotFile(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/find.html")
	text, out := e.snapFile(map[string]any{"sessionId": id})
	if out.Snapshot != "" || strings.Contains(text, "- main:") {
		t.Errorf("the answer holds the outline: %+v\n%s", out, text)
	}
	if rel, err := filepath.Rel(filepath.Join(e.out, id), out.Path); err != nil || strings.HasPrefix(rel, "..") || !filepath.IsAbs(out.Path) {
		t.Errorf("path %s is not in the session's output directory %s", out.Path, filepath.Join(e.out, id))
	}
	saved, err := os.ReadFile(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	// Refs are stable: a snapshot taken now prints the same outline.
	full := e.snap(id, nil)
	if string(saved) != full+"\n" {
		t.Errorf("the file holds\n%s\nthe snapshot is\n%s", saved, full)
	}
	if out.Bytes != len(saved) || out.Refs != page.CountRefs(full) || out.Refs == 0 {
		t.Errorf("bytes %d refs %d; the file has %d bytes and %d refs", out.Bytes, out.Refs, len(saved), page.CountRefs(full))
	}
	if want := "Page: " + site.URL + "/find.html\nTitle: find\nOutline saved to " + out.Path + " (" + strconv.Itoa(len(saved)) + " bytes, " + strconv.Itoa(out.Refs) + " refs)."; text != want {
		t.Errorf("text %q, want %q", text, want)
	}
	// A second one is a new file, and the refs in the file act.
	_, again := e.snapFile(map[string]any{"sessionId": id, "selector": "form"})
	if again.Path == out.Path || again.Refs != 2 {
		t.Errorf("the second file: %+v; the first was %s", again, out.Path)
	}
	e.ok("click", map[string]any{"sessionId": id, "ref": testenv.RefOf(t, string(saved), "button", "Checkout")})
	if got := e.title(id); got != "checkout" {
		t.Errorf("after clicking the file's Checkout ref the title is %q", got)
	}

	body := e.fail(engine.InvalidParameters, "snapshot", map[string]any{"sessionId": id, "file": true, "maxChars": 100})
	if d, _ := body["details"].(map[string]any); d["field"] != "maxChars" {
		t.Errorf("file with maxChars: %v", body)
	}
	e.ok("close_session", map[string]any{"sessionId": id})
	for _, p := range []string{out.Path, again.Path} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s after close_session: %v, want it removed", p, err)
		}
	}
}

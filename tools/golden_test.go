package tools_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/tokens"
	"github.com/seed4af8c199/browsermcp/tools"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

// listTools returns tools/list as a client sees it, for the given caps.
func listTools(t *testing.T, caps []tools.Group) (*mcp.ListToolsResult, []byte) {
	t.Helper()
	srv := tools.NewServer(engine.NewManager(nil, engine.ManagerConfig{}), tools.Options{Version: "golden", Caps: caps})
	c, err := client.NewInProcessClient(srv)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(t.Context(), mcp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	res, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	wire, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return res, wire
}

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("..", "testdata", "golden", name)
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tools -run Golden -update)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from the golden file; review the change and rerun with -update", name)
	}
}

func indent(t *testing.T, v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// TestToolsGolden keeps what clients see under review: tools/list with the
// default capabilities, and every tool's schema with all of them.
func TestToolsGolden(t *testing.T) {
	_, wire := listTools(t, nil)
	var pretty bytes.Buffer
	json.Indent(&pretty, wire, "", "  ")
	golden(t, "tools_list.json", append(pretty.Bytes(), '\n'))
	all, _ := listTools(t, []tools.Group{tools.All})
	for _, tl := range all.Tools {
		golden(t, filepath.Join("tools", tl.Name+".json"), indent(t, tl))
	}
}

// TestToolsListTokens reports what tools/list costs an agent with the
// default capabilities, in o200k tokens (playwright-mcp: 4.0k for 25 tools).
func TestToolsListTokens(t *testing.T) {
	res, wire := listTools(t, nil)
	n, err := tokens.O200k(string(wire))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tools/list, default capabilities: %d tools, %d bytes, %d o200k tokens", len(res.Tools), len(wire), n)
	// The target is 4.0k; this bound guards the current size against
	// growth until the remaining gap is closed (see the closing note).
	if n > 4600 {
		t.Errorf("tools/list costs %d o200k tokens; keep it under 4.6k (target 4.0k)", n)
	}
}

package tools_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/tools"
)

// groups maps every registered tool to its group.
func groups(t *testing.T) map[string]tools.Group {
	t.Helper()
	m := map[string]tools.Group{}
	for _, tl := range tools.Tools(&tools.Deps{Sessions: sessions.New(nil, sessions.Config{})}) {
		m[tl.Def.Name] = tl.Group
	}
	return m
}

func listed(t *testing.T, e *env) []string {
	t.Helper()
	res, err := e.c.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

func TestCapsGateToolGroups(t *testing.T) {
	all := groups(t)
	for _, c := range []struct {
		caps []tools.Group
		on   []tools.Group
	}{
		{nil, []tools.Group{tools.Core}},
		{[]tools.Group{tools.Network}, []tools.Group{tools.Core, tools.Network}},
		{[]tools.Group{tools.PDF, tools.Console}, []tools.Group{tools.Core, tools.PDF, tools.Console}},
		{[]tools.Group{tools.All}, append([]tools.Group{tools.Core}, tools.OptIn...)},
	} {
		e := newEnvWith(t, sessions.Config{}, tools.Options{Caps: c.caps})
		got := listed(t, e)
		for name, g := range all {
			if want := slices.Contains(c.on, g); slices.Contains(got, name) != want {
				t.Errorf("caps %v: %s (group %s) listed = %v, want %v", c.caps, name, g, !want, want)
			}
		}
		if len(got) > len(all) {
			t.Errorf("caps %v: %d tools listed, %d registered", c.caps, len(got), len(all))
		}
	}
	// Every opt-in group has tools, so each --caps value changes something.
	for _, g := range tools.OptIn {
		n := 0
		for _, tg := range all {
			if tg == g {
				n++
			}
		}
		if n == 0 {
			t.Errorf("group %s has no tools", g)
		}
	}
}

func TestToolOutsideCapsIsNotFound(t *testing.T) {
	e := newEnvWith(t, sessions.Config{}, tools.Options{})
	_, err := e.c.CallTool(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "block_resource",
		Arguments: map[string]any{"resourceType": "image"}}})
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("calling a tool whose group is off: %v", err)
	}
}

func TestParseCaps(t *testing.T) {
	got, err := tools.ParseCaps(" network,PDF,,network ")
	if err != nil || !slices.Equal(got, []tools.Group{tools.Network, tools.PDF}) {
		t.Fatalf("ParseCaps: %v, %v", got, err)
	}
	if got, err := tools.ParseCaps(""); err != nil || len(got) != 0 {
		t.Fatalf("empty caps: %v, %v", got, err)
	}
	if _, err := tools.ParseCaps("network,telepathy"); err == nil || !strings.Contains(err.Error(), `"telepathy"`) ||
		!strings.Contains(err.Error(), "console") {
		t.Fatalf("unknown cap: %v", err)
	}
}

package tools_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/tools"
)

func registered(t *testing.T) []string {
	t.Helper()
	m := engine.NewManager(nil, engine.ManagerConfig{})
	var names []string
	for _, tl := range tools.Tools(&tools.Deps{Sessions: m}) {
		names = append(names, tl.Def.Name)
	}
	return names
}

func TestEveryToolIsComplete(t *testing.T) {
	m := engine.NewManager(nil, engine.ManagerConfig{})
	for _, tl := range tools.Tools(&tools.Deps{Sessions: m}) {
		d := tl.Def
		if d.Description == "" || !strings.Contains(string(d.RawOutputSchema), `"type":"object"`) || len(d.RawInputSchema) == 0 {
			t.Errorf("%s: description, input schema and output schema are required", d.Name)
		}
		a := d.Annotations
		if a.ReadOnlyHint == nil || a.DestructiveHint == nil || a.IdempotentHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s: all four annotation hints must be set", d.Name)
		}
	}
}

// TestReadmeToolTable fails when README.md's tool table and the registry
// disagree.
func TestReadmeToolTable(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var inReadme []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z_]+)` \\|").FindAllStringSubmatch(string(b), -1) {
		if !slices.Contains([]string{"core", "network", "state", "pdf", "console", "vision"}, m[1]) {
			inReadme = append(inReadme, m[1])
		}
	}
	reg := registered(t)
	for _, n := range reg {
		if !slices.Contains(inReadme, n) {
			t.Errorf("tool %s is not in README.md's tool table", n)
		}
	}
	for _, n := range inReadme {
		if !slices.Contains(reg, n) {
			t.Errorf("README.md lists %s, which is not a registered tool", n)
		}
	}
}

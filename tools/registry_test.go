package tools_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/tools"
)

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

// TestReadmeToolTable fails when README.md's tool tables and the registry
// disagree: every tool is listed once, in its group's table. Tables under a
// "#### `--caps GROUP`" heading hold that group; the rest are core.
func TestReadmeToolTable(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("^\\| `([a-z_]+)` \\|")
	heading := regexp.MustCompile("^#+ `--caps ([a-z]+)`")
	inReadme := map[string]tools.Group{}
	group := tools.Core
	inTools := false // only the "## Tools" section lists tools
	for line := range strings.Lines(string(b)) {
		if m := heading.FindStringSubmatch(line); m != nil {
			group = tools.Group(m[1])
		} else if strings.HasPrefix(line, "## ") {
			group, inTools = tools.Core, strings.HasPrefix(line, "## Tools")
		}
		if m := row.FindStringSubmatch(line); m != nil && inTools {
			if _, dup := inReadme[m[1]]; dup {
				t.Errorf("README.md lists %s twice", m[1])
			}
			inReadme[m[1]] = group
		}
	}
	reg := groups(t)
	for n, g := range reg {
		switch rg, ok := inReadme[n]; {
		case !ok:
			t.Errorf("tool %s is not in README.md's tool tables", n)
		case rg != g:
			t.Errorf("README.md lists %s under %s; its group is %s", n, rg, g)
		}
	}
	for n := range inReadme {
		if _, ok := reg[n]; !ok {
			t.Errorf("README.md lists %s, which is not a registered tool", n)
		}
	}
}

package tools_test

import (
	"github.com/mark3labs/mcp-go/mcp"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/tools"
)

func TestEveryToolIsComplete(t *testing.T) {
	m := sessions.New(nil, sessions.Config{})
	for _, tl := range tools.Tools(&tools.Deps{Sessions: m}) {
		d := tl.Def
		if d.Description == "" || !strings.Contains(string(d.RawOutputSchema), `"type":"object"`) || len(d.RawInputSchema) == 0 {
			t.Errorf("%s: description, input schema and output schema are required", d.Name)
		}
		a := d.Annotations
		if a.ReadOnlyHint == nil && a.DestructiveHint == nil && a.IdempotentHint == nil && a.OpenWorldHint == nil {
			t.Errorf("%s: no annotation hint; with the specification's defaults it would claim to be destructive and open-world", d.Name)
		}
		ro, destructive, _, _ := effectiveHints(a)
		if got, want := ro, readOnlyName.MatchString(d.Name); got != want {
			t.Errorf("%s: readOnlyHint is %v on the wire; its name says %v", d.Name, got, want)
		}
		if destructive && !ro && !destructiveTools[d.Name] {
			t.Errorf("%s: a client reads destructiveHint true", d.Name)
		}
	}
}

// readOnlyName matches the tools that only observe.
var readOnlyName = regexp.MustCompile(`^(get_|is_|find_|find$|extract_|element_exists$|snapshot$|screenshot|list_sessions$|browser_context_list$|wait_for(_|$)|verify_|pdf$|generate_locator$)`)

// destructiveTools may destroy state the agent cannot get back.
// save_state may overwrite a file of the same name; delete_cookies,
// local_storage and session_storage (remove, clear, and set over an item)
// delete what a site stored, a login among it.
var destructiveTools = map[string]bool{"close_session": true, "browser_context_close": true, "save_state": true,
	"delete_cookies": true, "local_storage": true, "session_storage": true}

// effectiveHints reads annotations the way the MCP specification tells a
// client to: an absent hint takes its default.
func effectiveHints(a mcp.ToolAnnotation) (readOnly, destructive, idempotent, openWorld bool) {
	get := func(p *bool, def bool) bool {
		if p == nil {
			return def
		}
		return *p
	}
	return get(a.ReadOnlyHint, false), get(a.DestructiveHint, true), get(a.IdempotentHint, false), get(a.OpenWorldHint, true)
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

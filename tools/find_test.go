package tools_test

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// findOut is find's structured result.
type findOut struct {
	Matches []struct {
		Ref, Role, Name, Line string
		Context               []string
	}
	More  int
	Lines int
}

// find calls find, which must succeed, and returns the text the model
// reads and the structured result.
func (e *env) find(args map[string]any) (string, findOut) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := e.c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "find", Arguments: args}})
	if err != nil {
		e.t.Fatalf("find: protocol error: %v", err)
	}
	text := ""
	if len(res.Content) > 0 {
		if tc, ok := mcp.AsTextContent(res.Content[0]); ok {
			text = tc.Text
		}
	}
	if res.IsError {
		e.t.Fatalf("find(%v) failed: %s", args, text)
	}
	var out findOut
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		e.t.Fatalf("find's structuredContent %s: %v", b, err)
	}
	return text, out
}

// indentOf is the indentation of an outline line.
func indentOf(line string) int { return len(line) - len(strings.TrimLeft(line, " ")) }

// lineOfRef is the index of the outline line that holds ref.
func lineOfRef(t *testing.T, lines []string, ref string) int {
	t.Helper()
	for i, l := range lines {
		if strings.Contains(l, " [ref="+ref+"]") {
			return i
		}
	}
	t.Fatalf("no line holds ref %s", ref)
	return -1
}

// checkContext holds a match's context to the full outline: every
// ancestor of its line (each line above it indented less than the last),
// outermost first, and besides those only headings that are siblings of
// the line or of an ancestor, above it.
func checkContext(t *testing.T, lines []string, at int, context []string) {
	t.Helper()
	var ancestors []string
	parents := map[int]bool{} // indices of the line and its ancestors
	parents[at] = true
	for i, ind := at-1, indentOf(lines[at]); i >= 0 && ind > 0; i-- {
		if indentOf(lines[i]) < ind {
			ind = indentOf(lines[i])
			ancestors = append([]string{strings.TrimSpace(lines[i])}, ancestors...)
			parents[i] = true
		}
	}
	var got []string
	for _, c := range context {
		if slices.Contains(ancestors, c) {
			got = append(got, c)
			continue
		}
		// A sibling heading of the line or of one of its ancestors.
		sibling := false
		for i := range at {
			if strings.TrimSpace(lines[i]) != c || !strings.HasPrefix(c, "- heading ") {
				continue
			}
			for p := range parents {
				if p > i && indentOf(lines[p]) == indentOf(lines[i]) {
					sibling = true
				}
			}
		}
		if !sibling {
			t.Errorf("context line %q of %q is neither an ancestor nor a heading above it", c, lines[at])
		}
	}
	if !slices.Equal(got, ancestors) {
		t.Errorf("context of %q holds ancestors %q, want %q", lines[at], got, ancestors)
	}
}

// TestFindText finds the three "Add to cart" buttons of the shop page by
// a substring in another case: each comes with its ref, its ancestors as
// the full snapshot has them and its product's heading; the answer is the
// outline's own lines, in order, a shared ancestor once; the second ref
// clicks the second product's button.
func TestFindText(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/find.html")
	full := e.snap(id, nil)
	lines := strings.Split(full, "\n")

	text, out := e.find(map[string]any{"sessionId": id, "text": "add TO cart"})
	if len(out.Matches) != 3 || out.More != 0 || out.Lines != len(lines) {
		t.Fatalf("find: %d matches, %d more, %d lines; want 3, 0, %d:\n%s", len(out.Matches), out.More, out.Lines, len(lines), text)
	}
	for i, m := range out.Matches {
		if m.Role != "button" || m.Name != "Add to cart" || m.Ref == "" || m.Line != `- button "Add to cart" [ref=`+m.Ref+`]` {
			t.Errorf("match %d: %+v", i, m)
		}
		checkContext(t, lines, lineOfRef(t, lines, m.Ref), m.Context)
	}
	if !slices.Contains(out.Matches[1].Context, `- heading "Green mug" [level=3]`) {
		t.Errorf("the second match's context lacks its product's heading: %q", out.Matches[1].Context)
	}
	// The text is the header and lines of the outline, in its order.
	got := strings.Split(text, "\n")
	if got[0] != `3 of `+strconv.Itoa(len(lines))+` lines match text "add TO cart":` {
		t.Errorf("header %q", got[0])
	}
	next := 0
	for _, l := range got[1:] {
		i := slices.Index(lines[next:], l)
		if i < 0 {
			t.Fatalf("line %q is not in the outline after line %d:\n%s", l, next, text)
		}
		next += i + 1
	}
	if strings.Count(text, "\n- main:") != 1 || strings.Count(text, "  - list:") != 1 {
		t.Errorf("a shared ancestor is printed more than once:\n%s", text)
	}
	if strings.Contains(text, "Free shipping") || strings.Contains(text, "Checkout") {
		t.Errorf("find shows lines that neither match nor place a match:\n%s", text)
	}
	// The refs work: the second product's button gets the click.
	e.ok("click", map[string]any{"sessionId": id, "ref": out.Matches[1].Ref})
	if got := e.title(id); got != "cart: Green mug" {
		t.Fatalf("after clicking %s the page says %q, want the Green mug in the cart", out.Matches[1].Ref, got)
	}

	// A value matches too, and a ref-like text in the page is no ref.
	_, out = e.find(map[string]any{"sessionId": id, "text": "happy BIRTHDAY"})
	if len(out.Matches) != 1 || out.Matches[0].Role != "textbox" || out.Matches[0].Ref != testenv.RefOf(t, full, "textbox", "Gift note") {
		t.Errorf("find by value: %+v", out.Matches)
	}
	_, out = e.find(map[string]any{"sessionId": id, "text": "tempt a parser"})
	if len(out.Matches) != 1 || out.Matches[0].Role != "paragraph" || out.Matches[0].Ref != "" {
		t.Errorf("find in a text that quotes [ref=e999]: %+v", out.Matches)
	}
}

// TestFindRegexRoleLimit: a regexp over names, a role that filters, and
// a limit past which the answer counts the rest and says how to narrow.
func TestFindRegexRoleLimit(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/find.html")
	full := e.snap(id, nil)

	_, out := e.find(map[string]any{"sessionId": id, "regex": `^(Blue|Red) \w+$`})
	var names []string
	for _, m := range out.Matches {
		names = append(names, m.Role+" "+m.Name)
	}
	if !slices.Equal(names, []string{"heading Blue mug", "heading Red teapot"}) {
		t.Errorf("regex matches %q", names)
	}
	// RE2 is case-sensitive unless told.
	if _, out := e.find(map[string]any{"sessionId": id, "regex": `^add to cart$`}); len(out.Matches) != 0 {
		t.Errorf("a case-sensitive regexp matched %+v", out.Matches)
	}
	_, out = e.find(map[string]any{"sessionId": id, "regex": `(?i)cart`, "role": "link"})
	if len(out.Matches) != 1 || out.Matches[0].Ref != testenv.RefOf(t, full, "link", "Cart") {
		t.Errorf("role link: %+v", out.Matches)
	}

	text, out := e.find(map[string]any{"sessionId": id, "text": "add to cart", "role": "button", "limit": 2})
	if len(out.Matches) != 2 || out.More != 1 {
		t.Fatalf("limit 2: %d matches, %d more:\n%s", len(out.Matches), out.More, text)
	}
	if !strings.HasSuffix(text, "\n… 1 more matches: narrow with role, a longer text or regex, or raise limit (max 500).") ||
		strings.Contains(text, "Red teapot") {
		t.Errorf("limit 2:\n%s", text)
	}
	// The first two in the outline's order.
	var want []string
	for _, m := range regexp.MustCompile(`- button "Add to cart" \[ref=(e[0-9]+)\]`).FindAllStringSubmatch(full, 2) {
		want = append(want, m[1])
	}
	if got := []string{out.Matches[0].Ref, out.Matches[1].Ref}; !slices.Equal(got, want) {
		t.Errorf("limit 2 shows refs %q, want the first two, %q", got, want)
	}
}

// TestFindErrors: both text and regex, neither, an invalid regexp and a
// limit out of range are INVALID_PARAMETERS naming the fields; no match
// is a plain success that says how much it searched.
func TestFindErrors(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/find.html")

	for _, c := range []struct {
		args   map[string]any
		field  string
		fields []any
	}{
		{map[string]any{"text": "a", "regex": "a"}, "regex", []any{"text", "regex"}},
		{map[string]any{"role": "button"}, "text", []any{"text", "regex"}},
		{map[string]any{"regex": "(cart"}, "regex", nil},
		{map[string]any{"text": "a", "limit": 501}, "limit", nil},
	} {
		c.args["sessionId"] = id
		body := e.fail(engine.InvalidParameters, "find", c.args)
		d, _ := body["details"].(map[string]any)
		if d["field"] != c.field || (c.fields != nil && !slices.Equal(d["fields"].([]any), c.fields)) {
			t.Errorf("find(%v): details %v, want field %s, fields %v", c.args, d, c.field, c.fields)
		}
	}
	body := e.fail(engine.InvalidParameters, "find", map[string]any{"sessionId": id, "regex": "(cart"})
	if msg := body["message"].(string); !strings.Contains(msg, "regex") || !strings.Contains(msg, "missing closing )") {
		t.Errorf("invalid regex: %q names neither the field nor the parse error", msg)
	}

	lines := strings.Count(e.snap(id, nil), "\n") + 1
	text, out := e.find(map[string]any{"sessionId": id, "text": "no such thing", "role": "button"})
	if len(out.Matches) != 0 || out.Lines != lines ||
		text != `No line matches text "no such thing", role "button" (searched `+strconv.Itoa(lines)+` lines).` {
		t.Errorf("no match: %q, %+v", text, out)
	}
}

// TestFindNamedContext: in a named context find gives out the context's
// refs (uk:e4), which act in it without sessionId.
func TestFindNamedContext(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	uk := e.ok("browser_context_create", map[string]any{"name": "uk"})["sessionId"].(string)
	e.ok("navigate", map[string]any{"url": site.URL + "/find.html"})
	e.ok("browser_context_create", map[string]any{"name": "other"})
	text, out := e.find(map[string]any{"sessionId": "uk", "text": "Add to cart"})
	if len(out.Matches) != 3 || !strings.HasPrefix(out.Matches[2].Ref, "uk:e") || !strings.Contains(text, "[ref="+out.Matches[2].Ref+"]") {
		t.Fatalf("find in context uk:\n%s\n%+v", text, out.Matches)
	}
	e.ok("click", map[string]any{"ref": out.Matches[2].Ref})
	if got := e.title(uk); got != "cart: Red teapot" {
		t.Fatalf("uk's page after clicking %s: %q", out.Matches[2].Ref, got)
	}
}

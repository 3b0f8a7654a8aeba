package tools

import (
	"strings"
	"testing"
)

// TestParseLine reads outline lines as the snapshot prints them, and as
// it may print them: a text quoted because it holds `"[]\`, a mark after
// a name, a ref-like token in a URL or a text.
func TestParseLine(t *testing.T) {
	for _, c := range []struct {
		line                  string
		indent                int
		role, name, ref, text string
	}{
		{`- button "Add to cart" [ref=e3]`, 0, "button", "Add to cart", "e3", ""},
		{`    - heading "Firefox[edit]" [level=3]:`, 4, "heading", "Firefox[edit]", "", ""},
		{`  - textbox "Say \"hi\"" [ref=uk:f1e6]: "Happy \\ birthday"`, 2, "textbox", `Say "hi"`, "uk:f1e6", `Happy \ birthday`},
		{`- link "Logo" [ref=e5] /wiki/File:Logo.png?x=[ref=e9]:`, 0, "link", "Logo", "e5", ""},
		{`- paragraph: Free [ref=e999] shipping`, 0, "paragraph", "", "", "Free [ref=e999] shipping"},
		{`- text: "a [b] \"c\""`, 0, "text", "", "", `a [b] "c"`},
		{`- link "A very long na…" (+120) [ref=e7] /x: more`, 0, "link", "A very long na…", "e7", "more"},
		{`- row: Tea | 3`, 0, "row", "", "", "Tea | 3"},
		{`- list`, 0, "list", "", "", ""},
		{`[... truncated]`, 0, "", "", "", "[... truncated]"},
	} {
		l := parseLine(c.line)
		if l.indent != c.indent || l.role != c.role || l.name != c.name || l.ref != c.ref || l.text != c.text {
			t.Errorf("parseLine(%q) = %+v, want indent %d role %q name %q ref %q text %q", c.line, l, c.indent, c.role, c.name, c.ref, c.text)
		}
		if at := strings.Index(c.line, ": ") + 2; c.text != "" && c.role != "" && l.textAt != at {
			t.Errorf("parseLine(%q): text at %d, want %d", c.line, l.textAt, at)
		}
	}
}

// TestFindLinesClipsContext: a long paragraph that holds a match is shown
// cut, the match whole.
func TestFindLinesClipsContext(t *testing.T) {
	long := strings.Repeat("word ", 60)
	outline := "- main:\n  - paragraph: " + long + "\n    - link \"Target\" [ref=e1] /t\n  - link \"Other\" [ref=e2] /o"
	out := findLines(outline, FindIn{Text: "target"})
	want := "1 of 4 lines match text \"target\":\n- main:\n  - paragraph: " + long[:contextText] + "…\n    - link \"Target\" [ref=e1] /t"
	if out.excerpt != want || len(out.Matches) != 1 || out.Matches[0].Ref != "e1" {
		t.Errorf("excerpt:\n%s\nwant:\n%s\n%+v", out.excerpt, want, out.Matches)
	}
}

// TestFindLinesEdges: an empty outline has no line to search, and the
// answer repeats a long query clipped.
func TestFindLinesEdges(t *testing.T) {
	if out := findLines("", FindIn{Text: "x"}); out.Lines != 0 || len(out.Matches) != 0 || out.excerpt != `No line matches text "x" (searched 0 lines).` {
		t.Errorf("empty outline: %+v", out)
	}
	long := strings.Repeat("q", 1000)
	if out := findLines("- button \"Go\" [ref=e1]", FindIn{Text: long}); len(out.excerpt) > 200 || len(out.Matches) != 0 {
		t.Errorf("a long query is repeated whole: %d bytes", len(out.excerpt))
	}
}

package tools

import (
	"fmt"
	"strings"
	"testing"
)

// TestOutlineMatches reads visibility as the outline prints it: a line is
// hidden when it or a line that holds it says [offscreen], and a text
// that merely holds the word does not hide anything.
func TestOutlineMatches(t *testing.T) {
	outline := `- dialog "Menu" [offscreen]:
  - button "Close" [ref=e1]
  - list:
    - button "Deep" [ref=e2]
- button "Close" [ref=e3]
- paragraph: see [offscreen] docs
- button "Save  it" [ref=e4]: "[offscreen]"
- group:
  - button "Off" [offscreen] [ref=e5]
  - button "On" [ref=e6]`
	for _, c := range []struct {
		role, name string
		named      bool
		want       string
	}{
		{"button", "Close", true, `[{- button "Close" [ref=e1] false} {- button "Close" [ref=e3] true}]`},
		{"button", "Deep", true, `[{- button "Deep" [ref=e2] false}]`},
		{"button", "Save it", true, `[{- button "Save  it" [ref=e4]: "[offscreen]" true}]`},
		{"button", "Off", true, `[{- button "Off" [offscreen] [ref=e5] false}]`},
		{"button", "On", true, `[{- button "On" [ref=e6] true}]`},
		{"paragraph", "", false, `[{- paragraph: see [offscreen] docs true}]`},
		{"dialog", "", false, `[{- dialog "Menu" [offscreen]: false}]`},
		{"button", "Missing", true, `[]`},
	} {
		var got []string
		for _, m := range outlineMatches(outline, c.role, c.name, c.named) {
			got = append(got, fmt.Sprintf("{%s %v}", m.line, m.visible))
		}
		if got := "[" + strings.Join(got, " ") + "]"; got != c.want {
			t.Errorf("%s %q: %s, want %s", c.role, c.name, got, c.want)
		}
	}
}

// TestRegexSource reads /pattern/flags as RE2 with its flags, and leaves
// anything else as it stands.
func TestRegexSource(t *testing.T) {
	for in, want := range map[string]string{
		`/abc/i`:     `(?i)abc`,
		`/a/b/ms`:    `(?ms)a/b`,
		`/abc/`:      `abc`,
		`abc`:        `abc`,
		`/abc`:       `/abc`,
		`/abc/x`:     `/abc/x`,
		`/path/to/`:  `path/to`,
		`^/users/\d`: `^/users/\d`,
	} {
		if got := regexSource(in); got != want {
			t.Errorf("regexSource(%q) = %q, want %q", in, got, want)
		}
	}
	if _, err := compileRegex("regex", "/a(/i"); err == nil {
		t.Error("compileRegex(/a(/i) compiled")
	}
}

// TestInOrder holds verify_list to a subsequence of distinct items.
func TestInOrder(t *testing.T) {
	got := []string{"Apple pie", "Banana", "Cherry", "Banana split"}
	for _, c := range []struct {
		want []string
		ok   bool
	}{
		{[]string{"Apple", "Cherry"}, true},
		{[]string{"Banana", "Banana"}, true},
		{[]string{"Banana", "Banana", "Banana"}, false},
		{[]string{"Cherry", "Apple"}, false},
		{[]string{"apple"}, false},
		{[]string{"Apple  pie"}, true},
	} {
		if inOrder(got, c.want) != c.ok {
			t.Errorf("inOrder(%v, %v) = %v", got, c.want, !c.ok)
		}
	}
}

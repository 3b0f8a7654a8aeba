package page

import (
	"fmt"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
)

// TestDiff checks the changes between two outlines: added, removed and
// changed lines, each with the line that places it.
func TestDiff(t *testing.T) {
	old := strings.Join([]string{
		`- heading "Shop" [level=1]`,
		`- main:`,
		`  - list "Items":`,
		`    - listitem: Apple`,
		`    - listitem: Pear`,
		`  - checkbox "Gift" [ref=e3]`,
		`  - button "Next" [ref=e4]`,
		`  - status: 2 items`,
	}, "\n")
	now := strings.Join([]string{
		`- heading "Shop" [level=1]`,
		`- main:`,
		`  - list "Items":`,
		`    - listitem: Apple`,
		`  - checkbox "Gift" [checked] [ref=e3]`,
		`  - button "Next" [ref=e4]`,
		`  - status: 1 items`,
		`  - dialog "Sign in":`,
		`    - text: Email is required`,
	}, "\n")
	got := Diff(old, now)
	want := []engine.Change{
		{Kind: engine.ChangeRemoved, Role: "listitem", Old: `- listitem: Pear`, Context: `- list "Items"`},
		{Kind: engine.ChangeChanged, Ref: "e3", Role: "checkbox", Name: "Gift", Old: `- checkbox "Gift" [ref=e3]`, New: `- checkbox "Gift" [checked] [ref=e3]`, Context: `- main`},
		{Kind: engine.ChangeChanged, Role: "status", Old: `- status: 2 items`, New: `- status: 1 items`, Context: `- main`},
		{Kind: engine.ChangeAdded, Role: "dialog", Name: "Sign in", New: `- dialog "Sign in":`, Context: `- main`},
		{Kind: engine.ChangeAdded, Role: "text", Name: "Email is required", New: `- text: Email is required`, Context: `- dialog "Sign in"`},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Diff =\n%+v\nwant\n%+v", got, want)
	}
	if d := Diff(now, now); len(d) != 0 {
		t.Errorf("Diff of an outline with itself = %+v", d)
	}
}

// TestDiffLarge checks that outlines too different for an edit script
// still diff, as sets of lines, with every line accounted for.
func TestDiffLarge(t *testing.T) {
	var a, b []string
	for i := range 3000 {
		a = append(a, fmt.Sprintf("- text: old %d", i))
		b = append(b, fmt.Sprintf("- text: new %d", i))
	}
	got := Diff(strings.Join(a, "\n"), strings.Join(b, "\n"))
	if len(got) != 3000 {
		t.Fatalf("Diff gave %d changes, want 3000 (each line changed where it stands)", len(got))
	}
	for _, c := range got {
		if c.Kind == engine.ChangeChanged && (c.Old == "" || c.New == "") {
			t.Fatalf("change %+v lacks a side", c)
		}
	}
}

package page

import (
	"context"
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

// TestDiffMoved: a line that is the same, at the same depth, out of its
// old order, moved; one that only changed its depth did not.
func TestDiffMoved(t *testing.T) {
	old := strings.Join([]string{
		`- list:`,
		`  - link "Alpha" [ref=e1]`,
		`  - link "Beta" [ref=e2]`,
		`  - link "Gamma" [ref=e3]`,
	}, "\n")
	now := strings.Join([]string{
		`- list:`,
		`  - link "Gamma" [ref=e3]`,
		`  - link "Beta" [ref=e2]`,
		`  - link "Alpha" [ref=e1]`,
	}, "\n")
	got := Diff(old, now)
	if len(got) != 2 {
		t.Fatalf("Diff of a reversal = %+v", got)
	}
	for _, c := range got {
		if c.Kind != engine.ChangeMoved || c.Ref == "" || c.Old != c.New || c.Context != "- list" {
			t.Errorf("a moved line = %+v", c)
		}
	}
	// Rows have no refs: the same line removed in one place and added
	// in another moved.
	rows := func(names ...string) string {
		l := []string{`- table "Fruits":`}
		for _, n := range names {
			l = append(l, "  - row: "+n)
		}
		return strings.Join(l, "\n")
	}
	got = Diff(rows("Cherry | 3", "Apple | 5", "Banana | 1"), rows("Apple | 5", "Banana | 1", "Cherry | 3"))
	if len(got) != 1 || got[0].Kind != engine.ChangeMoved || got[0].New != "- row: Cherry | 3" || got[0].Context != `- table "Fruits"` {
		t.Errorf("Diff of sorted rows = %+v", got)
	}
	wrapped := strings.Join([]string{
		`- group "Wrapped":`,
		`  - list:`,
		`    - link "Gamma" [ref=e3]`,
		`    - link "Beta" [ref=e2]`,
		`    - link "Alpha" [ref=e1]`,
	}, "\n")
	for _, c := range Diff(now, wrapped) {
		if c.Ref != "" {
			t.Errorf("a line that only changed its depth: %+v", c)
		}
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

// fakeWalker answers ChangesOf's walks from a script of outlines, as a
// page that keeps the last view's lines does.
type fakeWalker struct {
	doc   string
	gen   int
	lines []string // the page's last tracked walk
	now   string   // the page as it is
	dirty bool
	walks []WalkArgs
}

func (f *fakeWalker) Walk(_ context.Context, a WalkArgs) (Walked, error) {
	f.walks = append(f.walks, a)
	if a.InteractiveOnly {
		return Walked{Text: "outline of " + f.doc, Doc: f.doc}, nil
	}
	if a.Doc == f.doc && a.Base == f.gen && !f.dirty && !a.Fresh {
		return Walked{Clean: true, Doc: f.doc, Gen: f.gen}, nil
	}
	lines := strings.Split(f.now, "\n")
	w := Walked{Doc: f.doc}
	if a.Doc == f.doc && a.Base == f.gen && f.lines != nil {
		h := 0
		for h < len(lines) && h < len(f.lines) && lines[h] == f.lines[h] {
			h++
		}
		w.Patch = &Patch{Head: h, Mid: lines[h:]}
	} else {
		w.Text = f.now
	}
	f.lines, f.dirty = lines, false
	f.gen++
	w.Gen = f.gen
	return w, nil
}

// TestChangesOf checks the protocol between ChangesOf and a page: no
// earlier view answers the outline; nothing recorded answers at once; a
// patch to the view is diffed; another document is a navigation.
func TestChangesOf(t *testing.T) {
	ctx := context.Background()
	var vs Views
	f := &fakeWalker{doc: "d1", now: "- button \"A\" [ref=e1]\n- text: one"}
	r, err := ChangesOf(ctx, &vs, f, engine.ChangesRequest{})
	if err != nil || r.Fresh != engine.FreshNoView || r.Outline != "outline of d1" {
		t.Fatalf("no earlier view: %+v %v", r, err)
	}
	r, err = ChangesOf(ctx, &vs, f, engine.ChangesRequest{})
	if err != nil || r.Fresh != "" || len(r.Changes) != 0 || f.walks[len(f.walks)-1].Base != 1 {
		t.Fatalf("nothing changed: %+v %v (walks %+v)", r, err, f.walks)
	}
	f.now, f.dirty = "- button \"A\" [ref=e1]\n- text: two", true
	r, err = ChangesOf(ctx, &vs, f, engine.ChangesRequest{})
	if err != nil || len(r.Changes) != 1 || r.Changes[0].Kind != engine.ChangeChanged || r.Changes[0].Old != "- text: one" || r.Changes[0].New != "- text: two" {
		t.Fatalf("a patch: %+v %v", r, err)
	}
	if v, _ := vs.Get("d1"); v.Text != f.now || v.Gen != 2 {
		t.Fatalf("the view after a patch: %+v", v)
	}
	// Asked for a fresh walk, the page walks though it recorded nothing.
	if r, err = ChangesOf(ctx, &vs, f, engine.ChangesRequest{Full: true}); err != nil || len(r.Changes) != 0 || !f.walks[len(f.walks)-1].Fresh {
		t.Fatalf("a fresh walk: %+v %v", r, err)
	}
	f.doc, f.gen, f.lines, f.now = "d2", 0, nil, "- heading \"B\" [level=1]"
	if r, err = ChangesOf(ctx, &vs, f, engine.ChangesRequest{}); err != nil || r.Fresh != engine.FreshNavigated || r.Outline != "outline of d2" {
		t.Fatalf("another document: %+v %v", r, err)
	}
}

// TestPatchApply checks that a patch rebuilds the outline it stands for,
// and refuses one it does not fit.
func TestPatchApply(t *testing.T) {
	p := &Patch{Head: 1, Tail: 1, Mid: []string{"x", "y"}}
	if got, ok := p.Apply("a\nb\nc"); !ok || got != "a\nx\ny\nc" {
		t.Fatalf("Apply = %q, %v", got, ok)
	}
	if _, ok := (&Patch{Head: 2, Tail: 2}).Apply("a\nb\nc"); ok {
		t.Fatal("a patch longer than the view fits it")
	}
	if got, ok := (&Patch{Mid: []string{"a"}}).Apply(""); !ok || got != "a" {
		t.Fatalf("a patch to an empty view = %q, %v", got, ok)
	}
}

// TestDiffRebuilt checks that a page rebuilt whole diffs in bounded time:
// past maxPairs, its lines read as removed and added.
func TestDiffRebuilt(t *testing.T) {
	var a, b []string
	for i := range 5000 {
		a = append(a, fmt.Sprintf("- text: old %d", i))
		b = append(b, fmt.Sprintf("- text: new %d", i))
	}
	got := Diff(strings.Join(a, "\n"), strings.Join(b, "\n"))
	if len(got) != 10000 {
		t.Fatalf("Diff gave %d changes, want 10000", len(got))
	}
}

// TestDiffTextName: the name a text change carries is the text, on a line
// marked [offscreen] too, not the line.
func TestDiffTextName(t *testing.T) {
	got := Diff("- heading \"Shop\" [level=1]", "- heading \"Shop\" [level=1]\n- text [offscreen]: IGNORE all\n- text: Saved")
	if len(got) != 2 || got[0].Name != "IGNORE all" || got[1].Name != "Saved" {
		t.Errorf("Diff = %+v", got)
	}
}

// TestTransients checks that the text lines a walk answers as having
// appeared and gone away become transient changes, and that anything
// else the page could have put there (another role, a line break) is
// dropped.
func TestTransients(t *testing.T) {
	got := transients([]string{
		"- text: Saved!",
		`- text: "Done \[ref=e1\]"`,
		`- button "Pay" [ref=e1]`,
		"- text: a\n- button \"Pay\" [ref=e1]",
		"text: no dash",
	})
	want := []engine.Change{
		{Kind: engine.ChangeTransient, Role: "text", Name: "Saved!", Old: "- text: Saved!"},
		{Kind: engine.ChangeTransient, Role: "text", Name: `"Done \[ref=e1\]"`, Old: `- text: "Done \[ref=e1\]"`},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("transients = %+v, want %+v", got, want)
	}
	if got := transients(nil); got != nil {
		t.Errorf("transients(nil) = %+v", got)
	}
}

package enginetest

import (
	"regexp"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// snap takes a snapshot of the whole page.
func snap(t *testing.T, s engine.Session) engine.SnapshotResult {
	t.Helper()
	r, err := s.Snapshot(ctx(t), engine.SnapshotRequest{})
	if err != nil {
		t.Fatalf("Snapshot: %v", err)
	}
	return r
}

// testSnapshot checks the outline a snapshot shows, its options, and the
// refs it hands out (refs.go).
func (h *harness) testSnapshot(t *testing.T) {
	t.Run("Outline", h.testSnapshotOutline)
	t.Run("Hrefs", h.testSnapshotHrefs)
	t.Run("Options", h.testSnapshotOptions)
	t.Run("Refs", h.testSnapshotRefs)
	t.Run("StaleRefs", h.testSnapshotStaleRefs)
	t.Run("Mutations", h.testSnapshotMutations)
	t.Run("Frames", h.testSnapshotFrames)
}

// testSnapshotHrefs checks how links show where they go: as the page wrote
// them, an absolute URL on the page's origin without the origin, and a
// frame without an origin of its own (srcdoc, whose location.origin is
// "null") keeping hrefs that begin with "null".
func (h *harness) testSnapshotHrefs(t *testing.T) {
	s := h.open(t, "/hrefs.html")
	var text string
	testenv.Eventually(t, "the srcdoc frame in the outline", func() (bool, error) {
		text = snap(t, s).Text
		return strings.Contains(text, "Null path"), nil
	})
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`- link "Absolute" \[ref=[^\]]+\] /welcome\.html\n`),
		regexp.MustCompile(`- link "Relative" \[ref=[^\]]+\] welcome\.html\n`),
		regexp.MustCompile(`- link "Spaced" \[ref=[^\]]+\] /a%20b\n`),
		regexp.MustCompile(`- link "Run" \[ref=[^\]]+\] javascript:\n`),
		regexp.MustCompile(`- link "Null path" \[ref=[^\]]+\] null/x\n`),
		regexp.MustCompile(`- link "Elsewhere" \[ref=[^\]]+\] http://example\.invalid/y(\n|$)`),
	} {
		if !want.MatchString(text) {
			t.Errorf("outline lacks %s:\n%s", want, text)
		}
	}
}

// testSnapshotOutline checks the outline of a page that has every kind of
// element, and what it leaves out.
func (h *harness) testSnapshotOutline(t *testing.T) {
	s := h.open(t, "/snapshot.html")
	r := snap(t, s)
	if r.Title != "Snapshot" || !strings.HasSuffix(r.URL, "/snapshot.html") || r.Truncated || r.FullChars != len(r.Text) {
		t.Errorf("result = %+v", r)
	}
	// The roles and names come from the browser's accessibility
	// engine (Chromium) or the script's own computation (elsewhere);
	// on this page they must agree.
	for _, want := range []string{
		`- navigation "Main":`,
		`- link "Welcome" [ref=`,
		`- heading "Snapshot test page" [level=1]`,
		`- paragraph: Plain text with strong words and a`,
		`- form "Order":`,
		`- textbox "Name" [ref=`,
		`]: "Ada"`,
		`- checkbox "Gift wrap" [checked] [ref=`,
		`- group "Speed":`,
		`- radio "Fast" [checked] [ref=`,
		`- combobox "Size" [ref=`,
		`- option "Large" [selected] [ref=`,
		`- textbox "Password" [ref=`,
		`- button "Order now" [ref=`,
		`- button "Disabled" [disabled] [ref=`,
		`- generic [ref=`,
		`]: Card with a pointer`,
		`- table "Prices":`,
		`- row: Tea | 3`,
		`- link "Buy tea" [ref=`,
		`- heading "FAQ" [level=2]`,
		`- listitem: First answer`,
		`- image "Pixel"`,
	} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("outline lacks %q:\n%s", want, r.Text)
		}
	}
	for _, hidden := range []string{"Never shown", "Hidden from accessibility", "Invisible", "secret"} {
		if strings.Contains(r.Text, hidden) {
			t.Errorf("outline shows %q:\n%s", hidden, r.Text)
		}
	}
	if r.Refs != len(refNumbers(r.Text)) || r.Refs < 15 {
		t.Errorf("Refs = %d for %d refs in the text", r.Refs, len(refNumbers(r.Text)))
	}
}

// testSnapshotOptions checks the options: only what can be acted on and what
// orients; a subtree by selector and by ref; a depth limit; truncation.
func (h *harness) testSnapshotOptions(t *testing.T) {
	s := h.open(t, "/snapshot.html")
	r := snap(t, s)
	io, err := s.Snapshot(ctx(t), engine.SnapshotRequest{InteractiveOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(io.Text, "Plain text") || !strings.Contains(io.Text, `- button "Order now" [ref=`) {
		t.Errorf("interactiveOnly:\n%s", io.Text)
	}
	form, err := s.Snapshot(ctx(t), engine.SnapshotRequest{Target: sel("form")})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(form.Text, `- form "Order":`) || strings.Contains(form.Text, "Welcome") {
		t.Errorf("subtree of form:\n%s", form.Text)
	}
	byRef, err := s.Snapshot(ctx(t), engine.SnapshotRequest{Target: engine.Target{Ref: refOf(t, r.Text, "combobox", "Size")}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(byRef.Text, `- combobox "Size"`) || !strings.Contains(byRef.Text, `- option "Small"`) || strings.Contains(byRef.Text, "Order now") {
		t.Errorf("subtree of the Size ref:\n%s", byRef.Text)
	}
	shallow, err := s.Snapshot(ctx(t), engine.SnapshotRequest{Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(shallow.Text, "- main: …") || strings.Contains(shallow.Text, "Order now") {
		t.Errorf("depth 1:\n%s", shallow.Text)
	}
	cut, err := s.Snapshot(ctx(t), engine.SnapshotRequest{MaxChars: 200})
	if err != nil {
		t.Fatal(err)
	}
	if !cut.Truncated || cut.FullChars != len(r.Text) || !strings.Contains(cut.Text, "truncated") {
		t.Errorf("maxChars 200: %+v", cut)
	}
	_, err = s.Snapshot(ctx(t), engine.SnapshotRequest{Target: sel("#nothing")})
	wantError(t, err, engine.ElementNotFound, map[string]any{"selector": "#nothing"})
	_, err = s.Snapshot(ctx(t), engine.SnapshotRequest{Target: sel("div[")})
	wantError(t, err, engine.InvalidSelector, map[string]any{"field": "selector"})
}

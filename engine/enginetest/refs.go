package enginetest

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// refOf returns the ref of the element shown as `- role "name" ... [ref=R]`.
var refOf = testenv.RefOf

var refNumber = regexp.MustCompile(`\[ref=(?:f[0-9]+)?e([0-9]+)\]`)

// refNumbers returns the numbers of the refs an outline shows.
func refNumbers(text string) []int {
	var ns []int
	for _, m := range refNumber.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[1])
		ns = append(ns, n)
	}
	return ns
}

// waitTitle waits for the title to become want: frames report clicks by
// postMessage, a task after the click returned.
func waitTitle(t *testing.T, s engine.Session, want string) {
	t.Helper()
	testenv.Eventually(t, fmt.Sprintf("the title %q", want), func() (bool, error) {
		if got := title(t, s); got != want {
			return false, fmt.Errorf("the title is %q", got)
		}
		return true, nil
	})
}

// testSnapshotRefs checks that every kind of call acts on a snapshot's refs,
// that a later snapshot gives the same refs, and how refs that name nothing
// are refused.
func (h *harness) testSnapshotRefs(t *testing.T) {
	s := h.open(t, "/form.html")
	first := snap(t, s)
	if first.Title != "Sign in" {
		t.Fatalf("title = %q", first.Title)
	}
	count := refOf(t, first.Text, "button", "Count")
	click(t, s, engine.ClickRequest{Target: engine.Target{Ref: count}})
	wantTitle(t, s, "clicked 1")
	typeText(t, s, engine.TypeRequest{Target: engine.Target{Ref: refOf(t, first.Text, "textbox", "Username")}, Text: "ada"})
	wantTitle(t, s, "user=ada")
	if got := evaluate(t, s, engine.EvalRequest{Target: &engine.Target{Ref: count}, Function: "el => el.id"}); got != `"count"` {
		t.Errorf("evaluate on the Count ref = %s", got)
	}
	_, err := s.Hover(ctx(t), engine.HoverRequest{Target: engine.Target{Ref: count}})
	ok(t, "hover by ref", engine.ActionResult{}, err)
	_, err = s.Press(ctx(t), engine.PressRequest{Target: &engine.Target{Ref: refOf(t, first.Text, "textbox", "Username")}, Key: "End"})
	ok(t, "press by ref", engine.ActionResult{}, err)

	// A later snapshot gives every element the same ref.
	again := snap(t, s)
	if got := refOf(t, again.Text, "button", "Count"); got != count {
		t.Fatalf("the Count button's ref changed from %s to %s", count, got)
	}
	if !slices.Equal(refNumbers(first.Text), refNumbers(again.Text)) {
		t.Errorf("refs changed between two snapshots:\n%s\n---\n%s", first.Text, again.Text)
	}

	// Refs that were never given out, and strings that are not refs.
	_, err = s.Click(ctx(t), engine.ClickRequest{Target: engine.Target{Ref: "e999999"}, Timeout: short})
	wantError(t, err, engine.ElementNotFound, map[string]any{"reason": "unknown_ref", "ref": "e999999"})
	_, err = s.Click(ctx(t), engine.ClickRequest{Target: engine.Target{Ref: "button"}, Timeout: short})
	wantError(t, err, engine.InvalidParameters, map[string]any{"field": "ref"})
}

// testSnapshotStaleRefs checks refs across a navigation.
func (h *harness) testSnapshotStaleRefs(t *testing.T) {
	s := h.open(t, "/form.html")
	first := snap(t, s)
	count := refOf(t, first.Text, "button", "Count")
	// After a navigation every old ref is stale, for every kind of
	// call, and the new page's elements get new refs: none is reused.
	h.navigate(t, s, "/form.html")
	_, err := s.Click(ctx(t), engine.ClickRequest{Target: engine.Target{Ref: count}, Timeout: short})
	wantError(t, err, engine.ElementNotFound, map[string]any{"reason": "stale_ref", "ref": count})
	_, err = s.Type(ctx(t), engine.TypeRequest{Target: engine.Target{Ref: count}, Text: "x", Timeout: short})
	wantError(t, err, engine.ElementNotFound, map[string]any{"reason": "stale_ref", "ref": count})
	_, err = s.Evaluate(ctx(t), engine.EvalRequest{Target: &engine.Target{Ref: count}, Function: "el => el.id", Timeout: short})
	wantError(t, err, engine.ElementNotFound, map[string]any{"reason": "stale_ref", "ref": count})
	// A wait for a state (wait_for_selector) too: engine/pw waited out
	// the timeout for visible, and answered detached as reached.
	for _, state := range []string{"visible", "attached", "detached", "hidden"} {
		_, err = s.Evaluate(ctx(t), engine.EvalRequest{Target: &engine.Target{Ref: count}, State: state, Function: "() => true", Timeout: short})
		wantError(t, err, engine.ElementNotFound, map[string]any{"reason": "stale_ref", "ref": count})
	}
	_, err = s.Snapshot(ctx(t), engine.SnapshotRequest{Target: engine.Target{Ref: count}})
	wantError(t, err, engine.ElementNotFound, map[string]any{"reason": "stale_ref", "ref": count})
	fresh := snap(t, s)
	old := refNumbers(first.Text)
	for _, n := range refNumbers(fresh.Text) {
		if slices.Contains(old, n) {
			t.Fatalf("ref number %d of the old page was given out again:\n%s", n, fresh.Text)
		}
	}
	click(t, s, engine.ClickRequest{Target: engine.Target{Ref: refOf(t, fresh.Text, "button", "Count")}})
	wantTitle(t, s, "clicked 1")
}

// testSnapshotMutations checks refs on a page that changes: an insertion
// moves no ref, a replacement is a new element.
func (h *harness) testSnapshotMutations(t *testing.T) {
	s := h.open(t, "/mutate.html")
	r := snap(t, s)
	target := refOf(t, r.Text, "button", "Target")
	// Elements added before it do not move its ref.
	click(t, s, engine.ClickRequest{Target: engine.Target{Ref: refOf(t, r.Text, "button", "Add")}})
	r2 := snap(t, s)
	if got := refOf(t, r2.Text, "button", "Target"); got != target {
		t.Fatalf("Target's ref moved from %s to %s after an insertion", target, got)
	}
	click(t, s, engine.ClickRequest{Target: engine.Target{Ref: target}})
	wantTitle(t, s, "target clicked")
	// A replacement is another element: the old ref is stale, the new
	// element gets a new ref.
	click(t, s, engine.ClickRequest{Target: engine.Target{Ref: refOf(t, r.Text, "button", "Replace")}})
	_, err := s.Click(ctx(t), engine.ClickRequest{Target: engine.Target{Ref: target}, Timeout: short})
	wantError(t, err, engine.ElementNotFound, map[string]any{"reason": "stale_ref", "ref": target})
	r3 := snap(t, s)
	repl := refOf(t, r3.Text, "button", "Target")
	if repl == target {
		t.Fatalf("the replacement got the removed element's ref %s", target)
	}
	click(t, s, engine.ClickRequest{Target: engine.Target{Ref: repl}})
	wantTitle(t, s, "replacement clicked")
}

// testSnapshotFrames checks the refs of elements in frames, same-origin and
// cross-origin.
func (h *harness) testSnapshotFrames(t *testing.T) {
	s := h.open(t, "/frames.html")
	r := snapFrames(t, s)
	same, cross := refOf(t, r.Text, "button", "Inner same"), refOf(t, r.Text, "button", "Inner cross")
	if !regexp.MustCompile(`^e[0-9]+$`).MatchString(same) || !regexp.MustCompile(`^f[0-9]+e[0-9]+$`).MatchString(cross) {
		t.Fatalf("refs same=%s cross=%s:\n%s", same, cross, r.Text)
	}
	for _, want := range []string{"- iframe \"Same\":\n  - button \"Inner same\"", "- iframe \"Cross\":\n  - button \"Inner cross\""} {
		if !strings.Contains(r.Text, want) {
			t.Fatalf("frame content not inline under its iframe (%q):\n%s", want, r.Text)
		}
	}
	// Both buttons are out of view (inside a frame, the cross-origin
	// one below the fold): the click scrolls and finds them.
	click(t, s, engine.ClickRequest{Target: engine.Target{Ref: same}})
	waitTitle(t, s, "clicked same")
	click(t, s, engine.ClickRequest{Target: engine.Target{Ref: cross}})
	waitTitle(t, s, "clicked cross")
	if got := evaluate(t, s, engine.EvalRequest{Target: &engine.Target{Ref: cross}, Function: "el => el.textContent + ' ' + location.hostname"}); !strings.HasPrefix(got, `"Inner cross `) {
		t.Errorf("evaluate on the cross-origin frame's ref = %s", got)
	}
	r2 := snap(t, s)
	if refOf(t, r2.Text, "button", "Inner same") != same || refOf(t, r2.Text, "button", "Inner cross") != cross {
		t.Fatalf("frame refs changed:\n%s\n---\n%s", r.Text, r2.Text)
	}
	// A frame's ref goes stale with its page.
	h.navigate(t, s, "/form.html")
	_, err := s.Click(ctx(t), engine.ClickRequest{Target: engine.Target{Ref: cross}, Timeout: short})
	wantError(t, err, engine.ElementNotFound, map[string]any{"reason": "stale_ref", "ref": cross})
}

// snapFrames snapshots /frames.html once its cross-origin frame has loaded.
func snapFrames(t *testing.T, s engine.Session) engine.SnapshotResult {
	t.Helper()
	var r engine.SnapshotResult
	testenv.Eventually(t, "the cross-origin frame to load", func() (bool, error) {
		r = snap(t, s)
		if !strings.Contains(r.Text, `button "Inner cross"`) {
			return false, fmt.Errorf("the snapshot shows no Inner cross button:\n%s", r.Text)
		}
		return true, nil
	})
	return r
}

// testRefsAcrossTabs checks that refs are unique across the tabs of a
// session: a ref of one tab is stale in another, and never names an element
// there, even on the same page.
func (h *harness) testRefsAcrossTabs(t *testing.T) {
	s := h.open(t, "/frames.html")
	a := snapFrames(t, s)
	aSame, aCross := refOf(t, a.Text, "button", "Inner same"), refOf(t, a.Text, "button", "Inner cross")
	tabs(t, s, engine.TabsRequest{Action: "new", URL: h.site.url("/frames.html")})
	b := snapFrames(t, s)
	bSame, bCross := refOf(t, b.Text, "button", "Inner same"), refOf(t, b.Text, "button", "Inner cross")
	if refNumber.ReplaceAllString(a.Text, "") != refNumber.ReplaceAllString(b.Text, "") {
		t.Fatalf("the two tabs show the same page differently:\n%s\n---\n%s", a.Text, b.Text)
	}
	old := refNumbers(a.Text)
	for _, n := range refNumbers(b.Text) {
		if slices.Contains(old, n) {
			t.Fatalf("ref number %d of the first tab was given out again in the second:\n%s\n---\n%s", n, a.Text, b.Text)
		}
	}
	if alias := func(ref string) string { return ref[:strings.LastIndexByte(ref, 'e')] }; alias(aCross) == alias(bCross) {
		t.Errorf("the cross-origin frames of both tabs have one alias: %s and %s", aCross, bCross)
	}
	// The first tab's refs, used in the second, are stale and act on
	// nothing there.
	for _, ref := range []string{aSame, aCross} {
		_, err := s.Click(ctx(t), engine.ClickRequest{Target: engine.Target{Ref: ref}, Timeout: short})
		wantError(t, err, engine.ElementNotFound, map[string]any{"reason": "stale_ref", "ref": ref})
	}
	wantTitle(t, s, "Frames")
	// In their own tab they still name their elements.
	zero, one := 0, 1
	tabs(t, s, engine.TabsRequest{Action: "select", Index: &zero})
	click(t, s, engine.ClickRequest{Target: engine.Target{Ref: aSame}})
	waitTitle(t, s, "clicked same")
	// The refs of a closed tab are stale too.
	tabs(t, s, engine.TabsRequest{Action: "close", Index: &one})
	for _, ref := range []string{bSame, bCross} {
		_, err := s.Click(ctx(t), engine.ClickRequest{Target: engine.Target{Ref: ref}, Timeout: short})
		wantError(t, err, engine.ElementNotFound, map[string]any{"reason": "stale_ref", "ref": ref})
	}
	wantTitle(t, s, "clicked same")
}

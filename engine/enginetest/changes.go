package enginetest

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// changes asks s what changed since the last view.
func changes(t *testing.T, s engine.Session, full bool) engine.ChangesResult {
	t.Helper()
	r, err := s.Changes(ctx(t), engine.ChangesRequest{Full: full})
	if err != nil {
		t.Fatalf("Changes: %v", err)
	}
	return r
}

// want is one change a step must report: its kind, and text its line
// (new, or old for a removal) holds; ref, when set, is the element's.
type want struct {
	kind engine.ChangeKind
	has  string
	ref  string
}

func (w want) matches(c engine.Change) bool {
	line := c.New
	if c.Kind == engine.ChangeRemoved || c.Kind == engine.ChangeTransient {
		line = c.Old
	}
	return c.Kind == w.kind && strings.Contains(line, w.has) && (w.ref == "" || c.Ref == w.ref)
}

// expect fails t unless r compares with the last view and reports exactly
// what wants name: each want matches a change, and each change matches a
// want, so that no change is claimed that the step did not make.
func expect(t *testing.T, step string, r engine.ChangesResult, wants ...want) {
	t.Helper()
	if r.Fresh != "" {
		t.Fatalf("%s: changes answered a fresh outline (%s) instead:\n%s", step, r.Fresh, r.Outline)
	}
	dump := func() string {
		var b strings.Builder
		for _, c := range r.Changes {
			fmt.Fprintf(&b, "\n  %s ref=%q old=%q new=%q ctx=%q", c.Kind, c.Ref, c.Old, c.New, c.Context)
		}
		return b.String()
	}
	for _, w := range wants {
		found := false
		for _, c := range r.Changes {
			found = found || w.matches(c)
		}
		if !found {
			t.Errorf("%s: no %s change with %q (ref %q) among:%s", step, w.kind, w.has, w.ref, dump())
		}
	}
	for _, c := range r.Changes {
		ok := false
		for _, w := range wants {
			ok = ok || w.matches(c)
		}
		if !ok {
			t.Errorf("%s: a change the step did not make: %+v; all:%s", step, c, dump())
		}
	}
}

// testChanges checks what Changes reports after each kind of action on
// testdata/site/changes.html, against the page's own state: text that
// appears and goes away, a typed value, a checkbox and an expander, a
// button that becomes enabled, a removed row, a modal and its step 2, a
// list that grows on scroll, changes inside a same-origin and a
// cross-origin frame, a click that changes nothing, a hover that changes
// the page through CSS alone, and a navigation.
func (h *harness) testChanges(t *testing.T) {
	t.Run("Page", h.testChangesPage)
	t.Run("NoView", h.testChangesNoView)
	t.Run("Endless", h.testChangesEndless)
	t.Run("Fade", h.testChangesFade)
	t.Run("Transient", h.testChangesTransient)
	t.Run("NativeModal", h.testChangesNativeModal)
	t.Run("Reorder", h.testChangesReorder)
}

// testChangesReorder: a list reversed by a click keeps its elements and
// their refs in another order. The changes answered "no change on the
// page"; they name the lines that moved. A wrapper that comes around the
// list changes their indentation only, which is no move.
func (h *harness) testChangesReorder(t *testing.T) {
	s := h.open(t, "/reorder.html")
	base := snap(t, s).Text
	refs := map[string]string{}
	for _, n := range []string{"Alpha", "Beta", "Gamma"} {
		refs[refOf(t, base, "link", n)] = n
	}
	page := func(expr string) string { return evaluate(t, s, engine.EvalRequest{Expression: expr}) }
	click(t, s, engine.ClickRequest{Target: engine.Target{Selector: "#reverse"}})
	if got := page("[...document.querySelectorAll('#list a')].map((a) => a.textContent).join(' ')"); got != `"Gamma Beta Alpha"` {
		t.Fatalf("the list after Reverse: %s", got)
	}
	r := changes(t, s, false)
	if r.Fresh != "" || len(r.Changes) != 2 {
		t.Fatalf("reversing three links: want two moved, got %+v", r)
	}
	for _, c := range r.Changes {
		if n := refs[c.Ref]; c.Kind != engine.ChangeMoved || n == "" || c.Name != n || c.Old != c.New || !strings.Contains(c.New, `link "`+n+`"`) {
			t.Errorf("a change of the reversal: %+v", c)
		}
	}
	after := snap(t, s).Text
	if strings.Index(after, `link "Gamma"`) > strings.Index(after, `link "Alpha"`) {
		t.Fatalf("the outline is not reversed:\n%s", after)
	}
	click(t, s, engine.ClickRequest{Target: engine.Target{Selector: "#wrap"}})
	if got := page("document.getElementById('list').parentElement.getAttribute('aria-label')"); got != `"Wrapped"` {
		t.Fatalf("the list's parent: %s", got)
	}
	for _, c := range changes(t, s, false).Changes {
		if c.Kind == engine.ChangeMoved || strings.Contains(c.Old+c.New, "link ") {
			t.Errorf("a wrapper moved a link: %+v", c)
		}
	}
}

// testChangesNativeModal: a <dialog> opened with showModal makes the rest
// of the page inert, which Chromium's accessible names left empty: the
// action's changes said that every link, heading, group, table and button
// outside the dialog had lost its name, and closing it said they got it
// back. Only the dialog comes and goes.
func (h *harness) testChangesNativeModal(t *testing.T) {
	s := h.open(t, "/modal.html")
	named := []string{`link "Home"`, `link "Logo"`, `heading "Section title"`, `group "Size"`, `table "Prices"`, `button "Open dialog"`}
	base := snap(t, s).Text
	for _, n := range named {
		if !strings.Contains(base, n) {
			t.Fatalf("the outline lacks %s:\n%s", n, base)
		}
	}
	page := func(expr string) string { return evaluate(t, s, engine.EvalRequest{Expression: expr}) }
	click(t, s, engine.ClickRequest{Target: engine.Target{Ref: refOf(t, base, "button", "Open dialog")}})
	if got := page("document.querySelector('dialog:modal') === document.getElementById('dlg')"); got != "true" {
		t.Fatalf("the dialog is not modal: %s", got)
	}
	expect(t, "a modal dialog opens", changes(t, s, false),
		want{engine.ChangeAdded, `dialog "Confirm"`, ""},
		want{engine.ChangeAdded, "paragraph: Are you sure?", ""},
		want{engine.ChangeAdded, `button "Close"`, ""})
	open := snap(t, s).Text
	for _, n := range named {
		if !strings.Contains(open, n) {
			t.Errorf("with the dialog open, the outline lacks %s:\n%s", n, open)
		}
	}
	click(t, s, engine.ClickRequest{Target: engine.Target{Selector: "#close"}})
	if got := page("document.getElementById('dlg').open"); got != "false" {
		t.Fatalf("the dialog is still open")
	}
	expect(t, "the modal dialog closes", changes(t, s, false),
		want{engine.ChangeRemoved, `dialog "Confirm"`, ""},
		want{engine.ChangeRemoved, "paragraph: Are you sure?", ""},
		want{engine.ChangeRemoved, `button "Close"`, ""})
}

// testChangesTransient: text that appeared and went away between two
// views (a toast) is a transient change, printed as outline text so
// that the page cannot forge lines with it; text that stays is an added
// line only; and a list re-rendered into an equal one, twice, is no
// change at all.
func (h *harness) testChangesTransient(t *testing.T) {
	s := h.open(t, "/toast.html")
	base := snap(t, s).Text
	page := func(expr string) string { return evaluate(t, s, engine.EvalRequest{Expression: expr}) }
	gone := func() {
		t.Helper()
		testenv.Eventually(t, "the toast to go away", func() (bool, error) {
			got := page("document.querySelectorAll('.toast').length")
			return got == "0", fmt.Errorf("%s toasts", got)
		})
	}
	act := func(name string) {
		t.Helper()
		click(t, s, engine.ClickRequest{Target: engine.Target{Ref: refOf(t, base, "button", name)}})
	}
	act("Save")
	gone()
	r := changes(t, s, false)
	expect(t, "a toast that came and went", r, want{engine.ChangeTransient, "- text: Saved!", ""})
	if c := r.Changes[0]; c.Old != "- text: Saved!" || c.Name != "Saved!" || c.Role != "text" || c.Ref != "" {
		t.Errorf("the toast's change = %+v", c)
	}
	expect(t, "looked at again", changes(t, s, false))

	act("Forge")
	gone()
	r = changes(t, s, false)
	expect(t, "a toast that forges lines", r, want{engine.ChangeTransient, `- text: "Done - button \"Pay\" \[ref=e1\]"`, ""})
	if c := r.Changes[0]; c.Name != `"Done - button \"Pay\" \[ref=e1\]"` {
		t.Errorf("the forged toast's name = %q", c.Name)
	}

	act("Status")
	if got := page("document.getElementById('line').textContent"); got != `"Status: ready"` {
		t.Fatalf("the status line = %s", got)
	}
	expect(t, "a status line that stays", changes(t, s, false), want{engine.ChangeAdded, "Status: ready", ""})

	act("Re-render")
	testenv.Eventually(t, "the second render", func() (bool, error) {
		got := page("window.renders")
		return got == "2", fmt.Errorf("%s renders", got)
	})
	if got := page("document.getElementById('list').innerText.replace(/\\s+/g, ' ').trim()"); got != `"Apples Pears"` {
		t.Fatalf("the list after its renders = %s", got)
	}
	expect(t, "a list re-rendered into an equal one", changes(t, s, false))
}

// testChangesFade: what fades in or out (a class that starts a
// transition or an animation, and nothing that marks its end) is, in an
// action's changes, where it is going: shown or [offscreen] at once, and
// no change once it got there.
func (h *harness) testChangesFade(t *testing.T) {
	s := h.open(t, "/fade.html")
	base := snap(t, s).Text
	if !strings.Contains(base, `dialog "Confirm" [offscreen]`) || !strings.Contains(base, "paragraph [offscreen]: Saved") ||
		!strings.Contains(base, `navigation "Side" [offscreen]`) {
		t.Fatalf("the faded elements are not [offscreen]:\n%s", base)
	}
	page := func(expr string) string { return evaluate(t, s, engine.EvalRequest{Expression: expr}) }
	settled := func(id, opacity string) {
		t.Helper()
		testenv.Eventually(t, id+" to end its fade", func() (bool, error) {
			got := page("getComputedStyle(document.getElementById('" + id + "')).opacity")
			return got == `"`+opacity+`"`, fmt.Errorf("opacity %s", got)
		})
	}
	act := func(name string) {
		click(t, s, engine.ClickRequest{Target: engine.Target{Ref: refOf(t, base, "button", name)}})
	}
	act("Open")
	r := changes(t, s, false)
	expect(t, "a modal fades in", r, want{engine.ChangeChanged, `dialog "Confirm"`, ""})
	if len(r.Changes) == 1 && (strings.Contains(r.Changes[0].New, "[offscreen]") || !strings.Contains(r.Changes[0].Old, "[offscreen]")) {
		t.Errorf("the modal's change = %+v", r.Changes[0])
	}
	settled("modal", "1")
	expect(t, "once it has faded in", changes(t, s, false))
	expect(t, "a fresh walk once it has faded in", changes(t, s, true))

	act("Close")
	expect(t, "a modal fades out", changes(t, s, false), want{engine.ChangeChanged, `dialog "Confirm" [offscreen]`, ""})
	settled("modal", "0")
	expect(t, "once it has faded out", changes(t, s, false))

	act("Later")
	expect(t, "text that appears after a delay", changes(t, s, false), want{engine.ChangeChanged, "paragraph: Saved", ""})
	settled("note", "1")
	expect(t, "once it has appeared", changes(t, s, false))
	expect(t, "a fresh walk once it has appeared", changes(t, s, true))

	act("Navigation")
	expect(t, "a drawer slides in", changes(t, s, false), want{engine.ChangeChanged, `navigation "Side":`, ""})
	testenv.Eventually(t, "the drawer to slide in", func() (bool, error) {
		got := page("getComputedStyle(document.getElementById('drawer')).transform")
		return got == `"none"`, fmt.Errorf("transform %s", got)
	})
	expect(t, "once it has slid in", changes(t, s, false))
	expect(t, "a fresh walk once it has slid in", changes(t, s, true))
}

func (h *harness) testChangesPage(t *testing.T) {
	s := h.open(t, "/changes.html")
	var base string
	testenv.Eventually(t, "the cross-origin frame to load", func() (bool, error) {
		base = snap(t, s).Text
		if !strings.Contains(base, `button "Add cross note"`) || !strings.Contains(base, `button "Add same note"`) {
			return false, fmt.Errorf("the frames' buttons are not in the outline:\n%s", base)
		}
		return true, nil
	})
	ref := func(role, name string) string { return refOf(t, base, role, name) }
	page := func(expr string) string {
		return evaluate(t, s, engine.EvalRequest{Expression: expr})
	}
	// look asks what changed, then asks again with a walk that reuses
	// nothing earlier walks kept: it must find nothing more, or the walk
	// that reused them printed another page than the page is.
	look := func() engine.ChangesResult {
		t.Helper()
		r := changes(t, s, false)
		if r.Fresh == "" {
			if again := changes(t, s, true); again.Fresh != "" || len(again.Changes) > 0 {
				t.Errorf("a walk that reused nothing found more: %+v", again)
			}
		}
		return r
	}
	act := func(name string) engine.ActionResult {
		return click(t, s, engine.ClickRequest{Target: engine.Target{Ref: ref("button", name)}})
	}

	t.Run("Nothing", func(t *testing.T) {
		before := page("document.body.innerHTML")
		act("Do nothing")
		expect(t, "a click on a button that does nothing", look())
		if after := page("document.body.innerHTML"); after != before {
			t.Fatalf("the page changed after all")
		}
		expect(t, "a second look", look())
	})
	t.Run("TextAppearsAndGoes", func(t *testing.T) {
		act("Check")
		if got := page("document.getElementById('err').textContent"); got != `"Email is required"` {
			t.Fatalf("the page shows %s", got)
		}
		expect(t, "an error appears", look(), want{engine.ChangeChanged, "Email is required", ""})
		typeText(t, s, engine.TypeRequest{Target: engine.Target{Ref: ref("textbox", "Email")}, Text: "ann@example.org"})
		if got := page("document.getElementById('email').value"); got != `"ann@example.org"` {
			t.Fatalf("the field holds %s", got)
		}
		expect(t, "a value is typed", look(), want{engine.ChangeChanged, `"ann@example.org"`, ref("textbox", "Email")})
		act("Check")
		if got := page("document.getElementById('err').textContent"); got != `""` {
			t.Fatalf("the page shows %s", got)
		}
		r := look()
		expect(t, "the error goes away", r, want{engine.ChangeChanged, "alert", ""})
		if c := r.Changes[0]; !strings.Contains(c.Old, "Email is required") || strings.Contains(c.New, "Email is required") {
			t.Errorf("the error's change = %+v", c)
		}
	})
	t.Run("CheckboxEnables", func(t *testing.T) {
		click(t, s, engine.ClickRequest{Target: engine.Target{Ref: ref("checkbox", "Remember me")}})
		if got := page("[document.getElementById('remember').checked, document.getElementById('submit').disabled]"); got != "[true,false]" {
			t.Fatalf("checked, disabled = %s", got)
		}
		r := look()
		expect(t, "a checkbox is checked and a button enabled", r,
			want{engine.ChangeChanged, "[checked]", ref("checkbox", "Remember me")},
			want{engine.ChangeChanged, `button "Submit"`, ref("button", "Submit")})
		for _, c := range r.Changes {
			if c.Ref == ref("button", "Submit") && (!strings.Contains(c.Old, "[disabled]") || strings.Contains(c.New, "[disabled]")) {
				t.Errorf("Submit's change = %+v", c)
			}
		}
	})
	t.Run("Expander", func(t *testing.T) {
		act("More options")
		if got := page("document.getElementById('more').getAttribute('aria-expanded')"); got != `"true"` {
			t.Fatalf("aria-expanded = %s", got)
		}
		expect(t, "an expander opens", look(),
			want{engine.ChangeChanged, "[expanded]", ref("button", "More options")},
			want{engine.ChangeAdded, "Extra options here", ""})
	})
	t.Run("RowRemoved", func(t *testing.T) {
		act("Remove Apples")
		if got := page("document.querySelectorAll('tr').length"); got != "2" {
			t.Fatalf("rows = %s", got)
		}
		r := look()
		expect(t, "a row is removed", r,
			want{engine.ChangeRemoved, "Apples", ""},
			want{engine.ChangeRemoved, "Remove Apples", ref("button", "Remove Apples")})
		for _, c := range r.Changes {
			if !strings.Contains(c.Context, "Orders") {
				t.Errorf("the row's change is not placed in its table: %+v", c)
			}
		}
	})
	t.Run("Hover", func(t *testing.T) {
		if _, err := s.Hover(ctx(t), engine.HoverRequest{Target: engine.Target{Ref: ref("button", "Hover me")}}); err != nil {
			t.Fatalf("Hover: %v", err)
		}
		if got := page("getComputedStyle(document.querySelector('.tip')).display"); got != `"block"` {
			t.Fatalf("the tooltip's display = %s", got)
		}
		expect(t, "a hover shows a tooltip through CSS", changes(t, s, true), want{engine.ChangeAdded, "Tooltip text", ""})
		if _, err := s.Hover(ctx(t), engine.HoverRequest{Target: engine.Target{Ref: ref("button", "Do nothing")}}); err != nil {
			t.Fatalf("Hover: %v", err)
		}
		if got := page("getComputedStyle(document.querySelector('.tip')).display"); got != `"none"` {
			t.Fatalf("the tooltip's display = %s", got)
		}
		expect(t, "a hover elsewhere hides it", changes(t, s, true), want{engine.ChangeRemoved, "Tooltip text", ""})
	})
	t.Run("SameOriginFrame", func(t *testing.T) {
		act("Add same note")
		if got := evaluate(t, s, engine.EvalRequest{Target: &engine.Target{Ref: ref("button", "Add same note")}, Function: "el => el.ownerDocument.getElementById('note').textContent"}); got != `"same note added"` {
			t.Fatalf("the frame's note = %s", got)
		}
		r := look()
		expect(t, "a change inside a same-origin frame", r, want{engine.ChangeAdded, "same note added", ""})
		if !strings.Contains(r.Changes[0].Context, `iframe "Same"`) {
			t.Errorf("the change is not placed in its frame: %+v", r.Changes[0])
		}
	})
	t.Run("CrossOriginFrame", func(t *testing.T) {
		act("Add cross note")
		if got := evaluate(t, s, engine.EvalRequest{Target: &engine.Target{Ref: ref("button", "Add cross note")}, Function: "el => el.ownerDocument.getElementById('note').textContent"}); got != `"cross note added"` {
			t.Fatalf("the frame's note = %s", got)
		}
		r := look()
		expect(t, "a change inside a cross-origin frame", r, want{engine.ChangeAdded, "cross note added", ""})
		if !strings.Contains(r.Changes[0].Context, `iframe "Cross"`) {
			t.Errorf("the change is not placed in its frame: %+v", r.Changes[0])
		}
	})
	t.Run("ListGrowsOnScroll", func(t *testing.T) {
		if _, err := s.Scroll(ctx(t), engine.ScrollRequest{Y: 100000}); err != nil {
			t.Fatalf("Scroll: %v", err)
		}
		var n string
		testenv.Eventually(t, "the feed to grow", func() (bool, error) {
			n = page("document.querySelectorAll('#feed li').length")
			return n != "2", nil
		})
		r := look()
		var wants []want
		count, _ := strconv.Atoi(n)
		for i := 3; i <= count; i++ {
			wants = append(wants, want{engine.ChangeAdded, fmt.Sprintf("Item %d", i), ""})
		}
		if len(wants) == 0 {
			t.Fatalf("the feed holds %s items", n)
		}
		expect(t, "a list grows on scroll", r, wants...)
	})
	t.Run("ModalAndStep2", func(t *testing.T) {
		act("Open wizard")
		if got := page("document.getElementById('wizard').hidden"); got != "false" {
			t.Fatalf("the wizard is hidden: %s", got)
		}
		r := look()
		var dialog, step bool
		for _, c := range r.Changes {
			dialog = dialog || c.Kind == engine.ChangeAdded && strings.Contains(c.New, `dialog "Wizard"`)
			step = step || c.Kind == engine.ChangeAdded && strings.Contains(c.New, "Step 1 of 2") && strings.Contains(c.Context, "Wizard")
		}
		if !dialog || !step {
			t.Fatalf("the modal's changes lack the dialog or its step 1: %+v", r.Changes)
		}
		click(t, s, engine.ClickRequest{Target: engine.Target{Selector: "#next"}})
		if got := page("document.getElementById('step').textContent"); got != `"Step 2 of 2"` {
			t.Fatalf("the step reads %s", got)
		}
		expect(t, "step 2 appears", look(),
			want{engine.ChangeChanged, "Step 2 of 2", ""},
			want{engine.ChangeRemoved, `button "Next"`, ""})
	})
	t.Run("Unseen", func(t *testing.T) {
		// What a script does without an event: a field's value set, a
		// class on an ancestor that hides a table, a label's text, an
		// element moved. Each must show, and agree with a fresh walk.
		page("document.getElementById('email').value = 'zed'")
		expect(t, "a value set by a script", look(), want{engine.ChangeChanged, `"zed"`, ref("textbox", "Email")})
		page("document.querySelector('table').parentElement.classList.add('gone')")
		if got := page("getComputedStyle(document.querySelector('table')).display"); got != `"none"` {
			t.Fatalf("the table's display = %s", got)
		}
		r := look()
		gone := false
		for _, c := range r.Changes {
			gone = gone || c.Kind == engine.ChangeRemoved && strings.Contains(c.Old, `table "Orders"`)
			if c.Kind != engine.ChangeRemoved {
				t.Errorf("hiding the table: %+v", c)
			}
		}
		if !gone {
			t.Errorf("hiding the table: %+v", r.Changes)
		}
		page("document.querySelector('table').parentElement.classList.remove('gone')")
		look()
		page("document.getElementById('remember').nextSibling.textContent = ' Keep me'")
		expect(t, "a label's text", look(), want{engine.ChangeChanged, `checkbox "Keep me"`, ref("checkbox", "Remember me")})
		page("document.querySelector('main').append(document.getElementById('noop'))")
		look()
	})
	t.Run("FocusWithin", func(t *testing.T) {
		// A menu that CSS shows while focus is inside it: no mutation.
		act("Menu")
		if got := page("getComputedStyle(document.querySelector('.menu ul')).display"); got != `"block"` {
			t.Fatalf("the menu's display = %s", got)
		}
		expect(t, "a menu shown by focus", look(), want{engine.ChangeAdded, "- list", ""},
			want{engine.ChangeAdded, "Profile", ""}, want{engine.ChangeAdded, "Sign out", ""})
		click(t, s, engine.ClickRequest{Target: sel("h1")})
		if got := page("getComputedStyle(document.querySelector('.menu ul')).display"); got != `"none"` {
			t.Fatalf("the menu's display = %s", got)
		}
		expect(t, "focus elsewhere hides it", look(), want{engine.ChangeRemoved, "- list", ""},
			want{engine.ChangeRemoved, "Profile", ""}, want{engine.ChangeRemoved, "Sign out", ""})
	})
	t.Run("RoleAfterTyping", func(t *testing.T) {
		// A walk reuses the roles the last one read while the document
		// holds no change: typing makes none, a field's new type does.
		typeText(t, s, engine.TypeRequest{Target: sel("#email"), Text: "bo@example.org", Clear: true})
		expect(t, "a value is typed", look(), want{engine.ChangeChanged, `"bo@example.org"`, ref("textbox", "Email")})
		page("document.getElementById('email').type = 'search'")
		expect(t, "the field becomes a search field", look(), want{engine.ChangeChanged, `searchbox "Email"`, ref("textbox", "Email")})
		page("document.getElementById('email').type = 'text'")
		expect(t, "and a text field again", look(), want{engine.ChangeChanged, `textbox "Email"`, ref("textbox", "Email")})
	})
	t.Run("Navigation", func(t *testing.T) {
		h.navigate(t, s, "/changes.html")
		snap(t, s)
		res := click(t, s, engine.ClickRequest{Target: engine.Target{Selector: "a"}})
		if !res.Navigated {
			t.Fatalf("the click did not navigate: %+v", res)
		}
		r := look()
		if r.Fresh != engine.FreshNavigated || !strings.Contains(r.Outline, `heading "Welcome"`) || !strings.HasSuffix(r.URL, "/welcome.html?user=Ann") {
			t.Fatalf("after a navigation: %+v", r)
		}
		// Interactive elements, headings and landmarks only: no text.
		if strings.Contains(r.Outline, "Signed in as") {
			t.Errorf("the outline holds text:\n%s", r.Outline)
		}
		expect(t, "the new page, looked at again", look())
	})
}

// testChangesNoView checks Changes on a document the agent has not seen:
// the outline, saying so; and, asked again, that nothing changed.
func (h *harness) testChangesNoView(t *testing.T) {
	s := h.open(t, "/changes.html")
	r := changes(t, s, false)
	if r.Fresh != engine.FreshNoView || !strings.Contains(r.Outline, `button "Check" [ref=`) || !strings.Contains(r.Outline, `heading "Changes"`) || r.Title != "Changes" {
		t.Fatalf("no earlier view: %+v", r)
	}
	expect(t, "looked at again", changes(t, s, false))
	// A subtree snapshot is not a view of the page.
	if _, err := s.Snapshot(ctx(t), engine.SnapshotRequest{Target: sel("#wizard")}); err != nil {
		t.Fatal(err)
	}
	click(t, s, engine.ClickRequest{Target: sel("#check")})
	expect(t, "after a subtree snapshot", changes(t, s, false), want{engine.ChangeChanged, "Email is required", ""})
}

// testChangesEndless checks that a page that never stops changing still
// answers, within its deadline, with what changed.
func (h *harness) testChangesEndless(t *testing.T) {
	s := h.open(t, "/ticking.html")
	snap(t, s)
	for range 3 {
		time.Sleep(20 * time.Millisecond) // let it tick: the wait is not what is tested
		r := changes(t, s, false)
		if r.Fresh != "" || len(r.Changes) == 0 {
			t.Fatalf("a ticking page: %+v", r)
		}
	}
}

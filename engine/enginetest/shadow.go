package enginetest

import (
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
)

// testShadow checks elements inside open shadow roots (shadow.html:
// my-widget holds a labelled input and a button, outer-box holds
// inner-card, which holds its own; closed-box is closed). CSS selectors
// pierce open shadow roots as Playwright's do, and the actions work on what
// they find, by selector and by snapshot ref.
func (h *harness) testShadow(t *testing.T) {
	t.Run("SelectorsPierce", func(t *testing.T) {
		s := h.open(t, "/shadow.html")
		describe := "el => el.id || el.className || el.tagName"
		for q, want := range map[string]string{
			"my-widget input":             `"q"`,
			"#widget #go":                 `"go"`,
			"my-widget > label + input":   `"q"`, // the host is the parent of its root's top elements
			"outer-box inner-card .msg":   `"msg"`,
			"outer-box .frame > * > span": `"msg"`,
			".deep-btn":                   `"deep-btn"`,
			"#light, my-widget button":    `"light"`, // the document's matches come first
			"body > h1":                   `"H1"`,
			"label ~ #go":                 `"go"`,
			`[aria-label="Deep field"]`:   `"deep"`,
			"xpath=//p[@id='light']":      `"light"`,
		} {
			if got := evaluate(t, s, engine.EvalRequest{Target: new(sel(q)), Function: describe}); got != want {
				t.Errorf("Evaluate on %q = %s, want %s", q, got, want)
			}
		}
		// all: every match, in the document and in each open shadow root.
		if got := evaluate(t, s, engine.EvalRequest{Target: new(sel("input, span")), All: true,
			Function: "els => els.map(e => e.id || e.className)"}); got != `["q","msg","deep"]` {
			t.Errorf("Evaluate on all of input, span = %s", got)
		}
		if got := evaluate(t, s, engine.EvalRequest{Target: new(sel("outer-box .msg")), Function: "el => el.textContent"}); got != `"Deep hello"` {
			t.Errorf("text of outer-box .msg = %s", got)
		}
		// A closed shadow root stays closed; no sibling crosses a boundary.
		for _, bad := range []string{".secret", "closed-box span", "h1 ~ label", "my-widget + label"} {
			_, err := s.Evaluate(ctx(t), engine.EvalRequest{Target: new(sel(bad)), Function: describe, Timeout: short})
			wantError(t, err, engine.ElementNotFound, map[string]any{"selector": bad})
		}
		// Waiting for a state sees inside too.
		if _, err := s.Evaluate(ctx(t), engine.EvalRequest{Target: new(sel("my-widget #go")), State: "visible", Timeout: short, Function: "el => 1"}); err != nil {
			t.Errorf("waiting for my-widget #go to be visible: %v", err)
		}
		// A snapshot of a root inside a shadow root.
		r, err := s.Snapshot(ctx(t), engine.SnapshotRequest{Target: sel("inner-card .deep-btn")})
		if err != nil {
			t.Fatal(err)
		}
		refOf(t, r.Text, "button", "Deep button")
		// Clicks go to what the selector found.
		typeText(t, s, engine.TypeRequest{Target: sel("outer-box input.deep"), Text: "hi"})
		click(t, s, engine.ClickRequest{Target: sel("outer-box button")})
		wantTitle(t, s, "deep hi")
	})
	value := func(t *testing.T, s engine.Session, tg engine.Target) string {
		t.Helper()
		return evaluate(t, s, engine.EvalRequest{Target: &tg, Function: "el => el.value"})
	}
	t.Run("TypeAndPressBySelector", func(t *testing.T) {
		s := h.open(t, "/shadow.html")
		q := sel("my-widget input")
		typeText(t, s, engine.TypeRequest{Target: q, Text: "abc"})
		if got := value(t, s, q); got != `"abc"` {
			t.Fatalf("value after typing = %s", got)
		}
		typeText(t, s, engine.TypeRequest{Target: q, Text: "xyz", Clear: true})
		if got := value(t, s, q); got != `"xyz"` {
			t.Fatalf("value after typing with clear = %s", got)
		}
		if _, err := s.Press(ctx(t), engine.PressRequest{Target: &q, Key: "Enter"}); err != nil {
			t.Fatal(err)
		}
		wantTitle(t, s, "entered xyz")
		click(t, s, engine.ClickRequest{Target: sel("my-widget #go")})
		wantTitle(t, s, "searched xyz")
	})
	t.Run("TypeAndPressByRef", func(t *testing.T) {
		// The input the snapshot shows as textbox "Search" takes focus and
		// keys by its ref (it used to fail with "cannot take focus": the
		// document's active element is the shadow host).
		s := h.open(t, "/shadow.html")
		r := snap(t, s)
		q := engine.Target{Ref: refOf(t, r.Text, "textbox", "Search")}
		typeText(t, s, engine.TypeRequest{Target: q, Text: "ada"})
		if got := value(t, s, q); got != `"ada"` {
			t.Fatalf("value after typing by ref = %s", got)
		}
		if _, err := s.Press(ctx(t), engine.PressRequest{Target: &q, Key: "Backspace"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Press(ctx(t), engine.PressRequest{Target: &q, Key: "Enter"}); err != nil {
			t.Fatal(err)
		}
		wantTitle(t, s, "entered ad")
		// Two shadow roots deep.
		deep := engine.Target{Ref: refOf(t, r.Text, "textbox", "Deep field")}
		typeText(t, s, engine.TypeRequest{Target: deep, Text: "two\n"})
		if got := value(t, s, deep); got != `"two"` {
			t.Fatalf("value of the deep field = %s", got)
		}
		click(t, s, engine.ClickRequest{Target: engine.Target{Ref: refOf(t, r.Text, "button", "Deep button")}})
		wantTitle(t, s, "deep two")
	})
}

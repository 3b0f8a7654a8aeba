package enginetest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// short is the element timeout of calls that must fail: the failure is
// reported once it has lasted that long.
const short = 300 * time.Millisecond

func (h *harness) testClick(t *testing.T) {
	t.Run("Success", func(t *testing.T) {
		s := h.open(t, "/form.html")
		res := click(t, s, engine.ClickRequest{Target: sel("#count")})
		if res.Navigated {
			t.Errorf("a click without navigation reported %+v", res)
		}
		wantTitle(t, s, "clicked 1")
		click(t, s, engine.ClickRequest{Target: sel("#count")})
		wantTitle(t, s, "clicked 2")
	})
	t.Run("DoubleClick", func(t *testing.T) {
		s := h.open(t, "/form.html")
		_, err := s.Click(ctx(t), engine.ClickRequest{Target: sel("#dbl"), ClickCount: 2})
		if !supported(t, err) {
			wantError(t, err, engine.Unsupported, map[string]any{"field": "clickCount"})
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		wantTitle(t, s, "double")
	})
	t.Run("Button", func(t *testing.T) {
		// The button asked for is the one pressed (DOM: 0 left, 1 middle,
		// 2 right).
		s := h.open(t, "/form.html")
		for b, want := range map[string]string{engine.ButtonRight: "button 2", engine.ButtonMiddle: "button 1", engine.ButtonLeft: "button 0"} {
			click(t, s, engine.ClickRequest{Target: sel("#which"), Button: b})
			wantTitle(t, s, want)
		}
		_, err := s.Click(ctx(t), engine.ClickRequest{Target: sel("#which"), Button: "fourth"})
		wantError(t, err, engine.InvalidParameters, map[string]any{"field": "button"})
	})
	t.Run("PostRedirectReportsThePage", func(t *testing.T) {
		// A click that submits a form (POST, then a 302) reports the page it
		// ended on: its URL and its title.
		if strings.HasSuffix(h.eng.Name(), "/firefox") {
			// Known bug, left open in issue #12: over WebDriver BiDi the
			// click sees the POST's navigation but, on a loaded machine,
			// not the redirected document's load, and returns after its
			// navigation timeout with the POST's URL (3 s on a quiet one).
			t.Skip("engine/pw on Firefox: a POST answered by a redirect is not followed reliably (issue #12)")
		}
		s := h.open(t, "/post.html")
		res := click(t, s, engine.ClickRequest{Target: sel("#send")})
		if !res.Navigated || res.URL != h.site.url("/welcome.html?user=posted") || res.Title != "Welcome" {
			t.Fatalf("Click(#send) = %+v, want the welcome page with its title", res)
		}
	})
	t.Run("XPath", func(t *testing.T) {
		s := h.open(t, "/form.html")
		click(t, s, engine.ClickRequest{Target: sel(`//button[@id="count"]`)})
		wantTitle(t, s, "clicked 1")
		click(t, s, engine.ClickRequest{Target: sel(`xpath=//button[text()="Count"]`)})
		wantTitle(t, s, "clicked 2")
		// A text node selects its element.
		click(t, s, engine.ClickRequest{Target: sel(`//button[@id="count"]/text()`)})
		wantTitle(t, s, "clicked 3")
	})
	t.Run("Navigation", func(t *testing.T) {
		// A click that submits a form returns once the next page has
		// loaded: its title is there at once.
		s := h.open(t, "/form.html")
		typeText(t, s, engine.TypeRequest{Target: sel("#user"), Text: "ada"})
		res := click(t, s, engine.ClickRequest{Target: sel("#go")})
		if !res.Navigated || !strings.HasPrefix(res.URL, h.site.url("/welcome.html?user=ada")) {
			t.Fatalf("Click(#go) = %+v, want a navigation to /welcome.html?user=ada", res)
		}
		wantTitle(t, s, "Welcome")
		if got := s.Info(ctx(t)).URL; got != res.URL {
			t.Errorf("Info URL = %s, click reported %s", got, res.URL)
		}
	})
	t.Run("SlowNavigation", func(t *testing.T) {
		// A link to a server that answers after the network settle bound:
		// the click still returns once the next page has loaded.
		s := h.open(t, "/form.html")
		evaluate(t, s, engine.EvalRequest{Function: `() => { const a = document.createElement("a"); a.id = "slowlink"; a.href = "/slow?ms=2500"; a.textContent = "slow"; document.body.prepend(a); }`})
		res := click(t, s, engine.ClickRequest{Target: sel("#slowlink")})
		if !res.Navigated || !strings.HasSuffix(res.URL, "/slow?ms=2500") {
			t.Fatalf("Click(#slowlink) = %+v, want a navigation to /slow?ms=2500", res)
		}
		wantTitle(t, s, "slow")
	})
	t.Run("WaitsForElement", func(t *testing.T) {
		s := h.open(t, "/form.html")
		click(t, s, engine.ClickRequest{Target: sel("#later")})
		click(t, s, engine.ClickRequest{Target: sel("#late"), Timeout: patience})
		wantTitle(t, s, "late clicked")
	})
	t.Run("ScrollsIntoView", func(t *testing.T) {
		s := h.open(t, "/form.html")
		click(t, s, engine.ClickRequest{Target: sel("#far")})
		wantTitle(t, s, "far clicked")
	})
	t.Run("WaitsForRequests", func(t *testing.T) {
		// The button fetches /slow?ms=300 and writes the result into the
		// title: the click returns after the response.
		s := h.open(t, "/form.html")
		click(t, s, engine.ClickRequest{Target: sel("#fetcher")})
		if got := title(t, s); !strings.HasPrefix(got, "fetched ") {
			t.Fatalf("title = %q: the click returned before the response it started", got)
		}
	})
	t.Run("NotFound", func(t *testing.T) {
		s := h.open(t, "/form.html")
		_, err := s.Click(ctx(t), engine.ClickRequest{Target: sel("#nope"), Timeout: short})
		wantError(t, err, engine.ElementNotFound, map[string]any{"selector": "#nope", "timeout": short.Milliseconds()})
	})
	t.Run("Covered", func(t *testing.T) {
		s := h.open(t, "/covered.html")
		_, err := s.Click(ctx(t), engine.ClickRequest{Target: sel("#buy"), Timeout: short})
		e := wantError(t, err, engine.ElementNotClickable, map[string]any{"reason": "covered", "element": "button#buy", "selector": "#buy"})
		if cb, _ := e.Details["coveredBy"].(string); cb != "div#cookie-banner" && cb != "button#accept" {
			t.Errorf("details.coveredBy = %q, want the banner", cb)
		}
		if !strings.Contains(e.Message, "covered by") {
			t.Errorf("message %q does not name the cover", e.Message)
		}
		wantTitle(t, s, "Covered")
		// Once the banner is gone, the click goes through.
		click(t, s, engine.ClickRequest{Target: sel("#accept")})
		click(t, s, engine.ClickRequest{Target: sel("#buy")})
		wantTitle(t, s, "bought")
	})
	t.Run("Force", func(t *testing.T) {
		// force skips the checks, and the result says who received the
		// click: the target itself here.
		s := h.open(t, "/form.html")
		res := click(t, s, engine.ClickRequest{Target: sel("#count"), Force: true})
		if res.ReceivedBy != "button#count" {
			t.Errorf("forced click on #count: receivedBy = %q, want button#count", res.ReceivedBy)
		}
		wantTitle(t, s, "clicked 1")
		// The click lands on whatever is on top, which is an error naming it.
		s = h.open(t, "/covered.html")
		_, err := s.Click(ctx(t), engine.ClickRequest{Target: sel("#buy"), Force: true, Timeout: short})
		e := wantError(t, err, engine.ElementNotClickable, map[string]any{"reason": "covered", "element": "button#buy",
			"receivedBy": "div#cookie-banner", "clicked": true, "selector": "#buy"})
		if !strings.Contains(e.Message, "div#cookie-banner") {
			t.Errorf("message %q does not name the element that received the click", e.Message)
		}
		wantTitle(t, s, "Covered")
		// By ref too.
		buy := refOf(t, snap(t, s).Text, "button", "Buy")
		_, err = s.Click(ctx(t), engine.ClickRequest{Target: engine.Target{Ref: buy}, Force: true, Timeout: short})
		wantError(t, err, engine.ElementNotClickable, map[string]any{"reason": "covered", "receivedBy": "div#cookie-banner", "ref": buy})
		wantTitle(t, s, "Covered")
	})
	t.Run("Hidden", func(t *testing.T) {
		s := h.open(t, "/form.html")
		_, err := s.Click(ctx(t), engine.ClickRequest{Target: sel("#hidden"), Timeout: short})
		wantError(t, err, engine.ElementNotClickable, map[string]any{"reason": "hidden", "element": "button#hidden"})
	})
	t.Run("Disabled", func(t *testing.T) {
		s := h.open(t, "/form.html")
		_, err := s.Click(ctx(t), engine.ClickRequest{Target: sel("#disabled"), Timeout: short})
		wantError(t, err, engine.ElementNotClickable, map[string]any{"reason": "disabled", "element": "button#disabled"})
	})
	t.Run("InvalidSelector", func(t *testing.T) {
		s := h.open(t, "/form.html")
		for _, bad := range []string{"##", "//button[", "xpath=)("} {
			_, err := s.Click(ctx(t), engine.ClickRequest{Target: sel(bad), Timeout: short})
			wantError(t, err, engine.InvalidSelector, map[string]any{"field": "selector", "selector": bad})
		}
	})
}

func (h *harness) testType(t *testing.T) {
	t.Run("Success", func(t *testing.T) {
		s := h.open(t, "/form.html")
		res := typeText(t, s, engine.TypeRequest{Target: sel("#user"), Text: "ada"})
		if res.Navigated {
			t.Errorf("typing reported %+v", res)
		}
		wantTitle(t, s, "user=ada")
		// Typing appends.
		typeText(t, s, engine.TypeRequest{Target: sel("#user"), Text: " lovelace"})
		wantTitle(t, s, "user=ada lovelace")
	})
	t.Run("Clear", func(t *testing.T) {
		s := h.open(t, "/form.html")
		typeText(t, s, engine.TypeRequest{Target: sel("#user"), Text: "ada"})
		typeText(t, s, engine.TypeRequest{Target: sel("#user"), Text: "bob", Clear: true})
		wantTitle(t, s, "user=bob")
	})
	t.Run("Delay", func(t *testing.T) {
		s := h.open(t, "/form.html")
		typeText(t, s, engine.TypeRequest{Target: sel("#user"), Text: "abc", Delay: 20 * time.Millisecond})
		wantTitle(t, s, "user=abc")
	})
	t.Run("TextareaAndContentEditable", func(t *testing.T) {
		s := h.open(t, "/form.html")
		typeText(t, s, engine.TypeRequest{Target: sel("#notes"), Text: "héllo wörld"})
		wantTitle(t, s, `notes="héllo wörld"`)
		typeText(t, s, engine.TypeRequest{Target: sel("#editor"), Text: "hey"})
		wantTitle(t, s, "editor=hey")
	})
	t.Run("EnterSubmits", func(t *testing.T) {
		s := h.open(t, "/form.html")
		res := typeText(t, s, engine.TypeRequest{Target: sel("#user"), Text: "ada\n"})
		if !res.Navigated || !strings.HasPrefix(res.URL, h.site.url("/welcome.html?user=ada")) {
			t.Fatalf("Type(ada\\n) = %+v, want a navigation to /welcome.html?user=ada", res)
		}
		wantTitle(t, s, "Welcome")
	})
	t.Run("NotEditable", func(t *testing.T) {
		s := h.open(t, "/form.html")
		for _, c := range []struct{ sel, reason, element string }{
			{"#ro", "readonly", "input#ro"},
			{"#off", "disabled", "input#off"},
			{"#box", "not_a_text_field", "input#box"},
			{"#count", "not_a_text_field", "button#count"},
		} {
			_, err := s.Type(ctx(t), engine.TypeRequest{Target: sel(c.sel), Text: "x", Timeout: short})
			wantError(t, err, engine.ElementNotEditable, map[string]any{"reason": c.reason, "element": c.element, "selector": c.sel})
		}
		wantTitle(t, s, "Sign in")
	})
	t.Run("NotFound", func(t *testing.T) {
		s := h.open(t, "/form.html")
		_, err := s.Type(ctx(t), engine.TypeRequest{Target: sel("#nope"), Text: "x", Timeout: short})
		wantError(t, err, engine.ElementNotFound, map[string]any{"selector": "#nope"})
	})
	// A text too long to type within the timeout stops at it: the call
	// answers TIMEOUT (or succeeds, on a machine fast enough), no key is
	// typed after it answered, and the session takes the next call.
	t.Run("TimeoutStopsTyping", func(t *testing.T) {
		s := h.open(t, "/form.html")
		start := time.Now()
		_, err := s.Type(ctx(t), engine.TypeRequest{Target: sel("#notes"), Text: strings.Repeat("abcdefgh", 1<<17), Timeout: 2 * time.Second})
		t.Logf("typing 1 MiB with a 2 s timeout took %s: %v", time.Since(start), err)
		if err != nil {
			wantError(t, err, engine.Timeout, nil)
		}
		typed := func() int {
			raw, err := s.Evaluate(ctx(t), engine.EvalRequest{Expression: "document.querySelector('#notes').value.length"})
			if err != nil {
				t.Fatalf("the session after the typing: %v", err)
			}
			var n int
			json.Unmarshal(raw, &n)
			return n
		}
		n := typed()
		t.Logf("%d characters typed", n)
		// A round trip through the page's event loop: keys still queued
		// would be typed before it ends.
		typeText(t, s, engine.TypeRequest{Target: sel("#user"), Text: "ada"})
		if m := typed(); m != n {
			t.Fatalf("typing went on after the call answered: %d characters, then %d", n, m)
		}
		wantTitle(t, s, "user=ada")
	})
}

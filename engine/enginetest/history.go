package enginetest

import (
	"bytes"
	"encoding/json"
	"image"
	_ "image/jpeg" // decodes jpeg screenshots
	_ "image/png"  // decodes png screenshots
	"math"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

func (h *harness) testHistory(t *testing.T) {
	t.Run("BackForward", func(t *testing.T) {
		s := h.open(t, "/form.html")
		h.navigate(t, s, "/catalog.html")
		res, err := s.History(ctx(t), -1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if res.Title != "Sign in" || res.URL != h.site.url("/form.html") {
			t.Fatalf("History(-1) = %+v, want the form page", res)
		}
		wantTitle(t, s, "Sign in")
		res, err = s.History(ctx(t), 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if res.Title != "Catalog" || res.URL != h.site.url("/catalog.html") {
			t.Fatalf("History(+1) = %+v, want the catalog page", res)
		}
		_, err = s.History(ctx(t), 1, 0)
		wantError(t, err, engine.NavigationFailed, map[string]any{"reason": "no_history"})
	})
	t.Run("SameDocument", func(t *testing.T) {
		// An entry that history.pushState added is a step back and
		// forward within the document: Firefox over WebDriver BiDi
		// reports no navigation for it, and go_back waited out its
		// timeout, then answered no_history, though the page had gone
		// back.
		s := h.open(t, "/form.html")
		evaluate(t, s, engine.EvalRequest{Expression: "window.same = 1, history.pushState({}, '', '?step=2')"})
		res, err := s.History(ctx(t), -1, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if res.URL != h.site.url("/form.html") || res.Title != "Sign in" {
			t.Fatalf("History(-1) = %+v, want the entry before pushState", res)
		}
		if got := evaluate(t, s, engine.EvalRequest{Expression: "location.search + '|' + window.same"}); got != `"|1"` {
			t.Fatalf("the page after History(-1): %s", got)
		}
		res, err = s.History(ctx(t), 1, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if res.URL != h.site.url("/form.html?step=2") {
			t.Fatalf("History(+1) = %+v, want the pushed entry", res)
		}
		if got := evaluate(t, s, engine.EvalRequest{Expression: "location.search + '|' + window.same"}); got != `"?step=2|1"` {
			t.Fatalf("the page after History(+1): %s", got)
		}
	})
	t.Run("AfterFailedLoad", func(t *testing.T) {
		// Back from the page of a load that failed (a port nobody
		// listens on): Firefox shows its own error page, which the
		// Navigation API does not list, and go_back waited out its
		// timeout, then answered no_history, though the page had gone
		// back.
		s := h.open(t, "/form.html")
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		closed := "http://" + l.Addr().String() + "/"
		l.Close()
		if _, err := s.Navigate(ctx(t), engine.NavigateRequest{URL: closed}); err == nil {
			t.Fatalf("Navigate to %s, where nothing listens, succeeded", closed)
		}
		res, err := s.History(ctx(t), -1, 10*time.Second)
		if !h.chromium() && engine.CodeOf(err) == engine.Timeout {
			// Firefox over WebDriver BiDi may report no navigation for
			// that step (Playwright then loses the page): an honest
			// TIMEOUT, never "no page to go back to" (README, Firefox).
			return
		}
		if err != nil {
			t.Fatalf("History(-1) after the failed load: %v", err)
		}
		if res.URL != h.site.url("/form.html") {
			t.Fatalf("History(-1) after the failed load = %+v, want the page before it", res)
		}
		for end := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			title := evaluate(t, s, engine.EvalRequest{Expression: "document.title"})
			if title == `"Sign in"` {
				break
			}
			if time.Now().After(end) {
				t.Fatalf("the page after History(-1) is titled %s, want \"Sign in\"", title)
			}
		}
	})
	t.Run("NoHistory", func(t *testing.T) {
		s := h.session(t)
		_, err := s.History(ctx(t), -1, 0)
		wantError(t, err, engine.NavigationFailed, map[string]any{"reason": "no_history"})
	})
	t.Run("Reload", func(t *testing.T) {
		s := h.open(t, "/form.html")
		typeText(t, s, engine.TypeRequest{Target: sel("#user"), Text: "ada"})
		wantTitle(t, s, "user=ada")
		res, err := s.Reload(ctx(t), false, 0)
		if err != nil {
			t.Fatal(err)
		}
		if res.Title != "Sign in" || res.URL != h.site.url("/form.html") {
			t.Fatalf("Reload = %+v", res)
		}
		typeText(t, s, engine.TypeRequest{Target: sel("#user"), Text: "bob"})
		wantTitle(t, s, "user=bob")
		res, err = s.Reload(ctx(t), true, 0)
		if err != nil {
			t.Fatal(err)
		}
		if res.Title != "Sign in" || res.URL != h.site.url("/form.html") {
			t.Fatalf("Reload(ignoreCache) = %+v", res)
		}
		wantTitle(t, s, "Sign in")
	})
	t.Run("WaitForLoad", func(t *testing.T) {
		s := h.open(t, "/form.html")
		for _, st := range []engine.WaitUntil{engine.WaitLoad, engine.WaitDOMContentLoaded, engine.WaitNetworkIdle, ""} {
			res, err := s.WaitForLoad(ctx(t), st, 0)
			if err != nil {
				t.Fatalf("WaitForLoad(%q): %v", st, err)
			}
			if res.Title != "Sign in" || res.URL != h.site.url("/form.html") {
				t.Fatalf("WaitForLoad(%q) = %+v", st, res)
			}
		}
	})
}

func decodeImage(t *testing.T, b []byte, format string) image.Rectangle {
	t.Helper()
	img, f, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot does not decode: %v", err)
	}
	if f != format {
		t.Fatalf("screenshot format = %s, want %s", f, format)
	}
	return img.Bounds()
}

func (h *harness) testScreenshot(t *testing.T) {
	t.Run("Viewport", func(t *testing.T) {
		s := h.open(t, "/form.html")
		for _, c := range []struct {
			req    engine.ScreenshotRequest
			format string
			w, h   int
		}{
			{engine.ScreenshotRequest{}, "png", Viewport.Width, Viewport.Height},
			{engine.ScreenshotRequest{Format: "jpeg", Quality: 50}, "jpeg", Viewport.Width, Viewport.Height},
			{engine.ScreenshotRequest{Scale: 0.5}, "png", Viewport.Width / 2, Viewport.Height / 2},
			{engine.ScreenshotRequest{Format: "jpeg", Scale: 0.25}, "jpeg", Viewport.Width / 4, Viewport.Height / 4},
		} {
			b, err := s.Screenshot(ctx(t), c.req)
			if err != nil {
				t.Fatalf("Screenshot(%+v): %v", c.req, err)
			}
			if r := decodeImage(t, b, c.format); r.Dx() != c.w || r.Dy() != c.h {
				t.Errorf("Screenshot(%+v) is %dx%d, want %dx%d", c.req, r.Dx(), r.Dy(), c.w, c.h)
			}
		}
	})
	t.Run("LeavesFieldsAlone", func(t *testing.T) {
		// The image is what the page shows: a capture sets nothing on the
		// page's elements (Playwright's default hides the caret through
		// each field's inline style), with a field focused.
		s := h.open(t, "/form.html")
		evaluate(t, s, engine.EvalRequest{Function: `() => {
			document.querySelector("#user").focus();
			window.shotMutations = [];
			new MutationObserver(rs => rs.forEach(r => window.shotMutations.push((r.target.id || r.target.nodeName) + " " + r.attributeName)))
				.observe(document.body, {subtree: true, attributes: true});
		}`})
		for _, full := range []bool{false, true} {
			if _, err := s.Screenshot(ctx(t), engine.ScreenshotRequest{FullPage: full}); err != nil {
				t.Fatal(err)
			}
		}
		if got := evaluate(t, s, engine.EvalRequest{Expression: "window.shotMutations"}); got != "[]" {
			t.Errorf("the screenshots changed the page's attributes: %s", got)
		}
	})
	t.Run("FullPage", func(t *testing.T) {
		s := h.open(t, "/form.html")
		b, err := s.Screenshot(ctx(t), engine.ScreenshotRequest{FullPage: true})
		if err != nil {
			t.Fatal(err)
		}
		if r := decodeImage(t, b, "png"); r.Dy() <= 2000 {
			t.Errorf("full page screenshot is %dx%d, want the whole 2000px+ page", r.Dx(), r.Dy())
		}
	})
	t.Run("Element", func(t *testing.T) {
		s := h.open(t, "/form.html")
		v := evaluate(t, s, engine.EvalRequest{Target: &engine.Target{Selector: "#far"},
			Function: "el => { const r = el.getBoundingClientRect(); return [r.width, r.height]; }"})
		var box []float64
		if err := json.Unmarshal([]byte(v), &box); err != nil {
			t.Fatal(err)
		}
		b, err := s.Screenshot(ctx(t), engine.ScreenshotRequest{Target: &engine.Target{Selector: "#far"}})
		if err != nil {
			t.Fatal(err)
		}
		r := decodeImage(t, b, "png")
		if math.Abs(float64(r.Dx())-math.Ceil(box[0])) > 1 || math.Abs(float64(r.Dy())-math.Ceil(box[1])) > 1 {
			t.Errorf("element screenshot is %dx%d, the element %vx%v", r.Dx(), r.Dy(), box[0], box[1])
		}
		_, err = s.Screenshot(ctx(t), engine.ScreenshotRequest{Target: &engine.Target{Selector: "#hidden"}})
		wantError(t, err, engine.ElementNotFound, map[string]any{"reason": "zero_size"})
		_, err = s.Screenshot(ctx(t), engine.ScreenshotRequest{Target: &engine.Target{Selector: "#nope"}})
		e := wantError(t, err, engine.ElementNotFound, map[string]any{"selector": "#nope"})
		if !strings.Contains(e.Message, "#nope") {
			t.Errorf("message %q does not name the selector", e.Message)
		}
	})
}

package enginetest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
)

func ok(t *testing.T, what string, _ engine.ActionResult, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// center is the viewport centre of the element sel.
func center(t *testing.T, s engine.Session, sel string) (float64, float64) {
	t.Helper()
	v := evaluate(t, s, engine.EvalRequest{Target: &engine.Target{Selector: sel},
		Function: "el => { const r = el.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }"})
	var p [2]float64
	if err := json.Unmarshal([]byte(v), &p); err != nil {
		t.Fatal(err)
	}
	return p[0], p[1]
}

func (h *harness) testPointer(t *testing.T) {
	t.Run("Hover", func(t *testing.T) {
		s := h.open(t, "/input.html")
		res, err := s.Hover(ctx(t), engine.HoverRequest{Target: sel("#tip")})
		ok(t, "Hover", res, err)
		wantTitle(t, s, "hovered")
		_, err = s.Hover(ctx(t), engine.HoverRequest{Target: sel("#nope"), Timeout: short})
		wantError(t, err, engine.ElementNotFound, map[string]any{"selector": "#nope"})
	})
	t.Run("Press", func(t *testing.T) {
		s := h.open(t, "/input.html")
		res, err := s.Press(ctx(t), engine.PressRequest{Target: &engine.Target{Selector: "#field"}, Key: "Control+ArrowDown"})
		ok(t, "Press(Control+ArrowDown)", res, err)
		wantTitle(t, s, "down true")
		// Control+A selects the field's text; the next key replaces it.
		res, err = s.Press(ctx(t), engine.PressRequest{Target: &engine.Target{Selector: "#field"}, Key: "a", Modifiers: []string{"Control"}})
		ok(t, "Press(a, Control)", res, err)
		res, err = s.Press(ctx(t), engine.PressRequest{Key: "X"})
		ok(t, "Press(X)", res, err)
		if got := evaluate(t, s, engine.EvalRequest{Function: "() => document.querySelector('#field').value"}); got != `"X"` {
			t.Fatalf("Control+A then X left %s", got)
		}
		res, err = s.Press(ctx(t), engine.PressRequest{Target: &engine.Target{Selector: "#area"}, Key: "Escape"})
		ok(t, "Press(Escape)", res, err)
		wantTitle(t, s, "escaped")
		_, err = s.Press(ctx(t), engine.PressRequest{Key: "Hyper+Q"})
		wantError(t, err, engine.InvalidParameters, map[string]any{"field": "modifiers"})
		_, err = s.Press(ctx(t), engine.PressRequest{Key: "NoSuchKey"})
		wantError(t, err, engine.InvalidParameters, map[string]any{"field": "key"})
		_, err = s.Press(ctx(t), engine.PressRequest{Target: &engine.Target{Selector: "#nope"}, Key: "a", Timeout: short})
		wantError(t, err, engine.ElementNotFound, map[string]any{"selector": "#nope"})
		// Enter in a form field submits it; Press returns once the next
		// page has loaded.
		res, err = s.Press(ctx(t), engine.PressRequest{Target: &engine.Target{Selector: "#q"}, Key: "Enter"})
		ok(t, "Press(Enter)", res, err)
		if !res.Navigated {
			t.Errorf("Press(Enter) = %+v, want a navigation", res)
		}
		wantTitle(t, s, "Welcome")
	})
	t.Run("Drag", func(t *testing.T) {
		s := h.open(t, "/input.html")
		_, err := s.Drag(ctx(t), engine.DragRequest{Source: sel("#nope"), Target: sel("#dst"), Timeout: short})
		wantError(t, err, engine.ElementNotFound, map[string]any{"selector": "#nope"})
		res, err := s.Drag(ctx(t), engine.DragRequest{Source: sel("#src"), Target: sel("#dst")})
		if !supported(t, err) {
			return
		}
		ok(t, "Drag", res, err)
		wantTitle(t, s, "dropped card")
		_, err = s.Drag(ctx(t), engine.DragRequest{Source: sel("#nope"), Target: sel("#dst"), Timeout: short})
		wantError(t, err, engine.ElementNotFound, map[string]any{"selector": "#nope"})
	})
	t.Run("Upload", func(t *testing.T) {
		s := h.open(t, "/input.html")
		dir := t.TempDir()
		a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
		if err := os.WriteFile(a, []byte("12345"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(b, []byte("1"), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := s.Upload(ctx(t), engine.UploadRequest{Target: sel("#one"), Files: []string{a}})
		ok(t, "Upload", res, err)
		wantTitle(t, s, "files a.txt:5")
		res, err = s.Upload(ctx(t), engine.UploadRequest{Target: sel("#many"), Files: []string{a, b}})
		ok(t, "Upload(multiple)", res, err)
		wantTitle(t, s, "files a.txt,b.txt")
		_, err = s.Upload(ctx(t), engine.UploadRequest{Target: sel("#one"), Files: []string{filepath.Join(dir, "missing")}})
		wantError(t, err, engine.InvalidParameters, map[string]any{"field": "files"})
		_, err = s.Upload(ctx(t), engine.UploadRequest{Target: sel("#one"), Files: []string{a, b}})
		wantError(t, err, engine.InvalidParameters, map[string]any{"field": "files"})
		_, err = s.Upload(ctx(t), engine.UploadRequest{Target: sel("#field"), Files: []string{a}})
		wantError(t, err, engine.ElementNotEditable, map[string]any{"reason": "not_a_file_input"})
	})
	t.Run("Mouse", func(t *testing.T) {
		s := h.open(t, "/input.html")
		x, y := center(t, s, "#tip")
		res, err := s.Mouse(ctx(t), engine.MouseRequest{Action: "move", X: x, Y: y})
		ok(t, "Mouse(move)", res, err)
		wantTitle(t, s, "hovered")
		sx, sy := center(t, s, "#src")
		dx, dy := center(t, s, "#dst")
		res, err = s.Mouse(ctx(t), engine.MouseRequest{Action: "drag", X: sx, Y: sy, ToX: dx, ToY: dy})
		if supported(t, err) {
			ok(t, "Mouse(drag)", res, err)
			wantTitle(t, s, "dropped card")
		}

		s2 := h.open(t, "/form.html")
		x, y = center(t, s2, "#count")
		res, err = s2.Mouse(ctx(t), engine.MouseRequest{Action: "click", X: x, Y: y})
		ok(t, "Mouse(click)", res, err)
		wantTitle(t, s2, "clicked 1")
		_, err = s2.Mouse(ctx(t), engine.MouseRequest{Action: "click", X: 5000, Y: 5})
		wantError(t, err, engine.InvalidParameters, map[string]any{"field": "x"})
		_, err = s2.Mouse(ctx(t), engine.MouseRequest{Action: "click", X: 5, Y: 5, Button: "fourth"})
		wantError(t, err, engine.InvalidParameters, map[string]any{"field": "button"})
		_, err = s2.Mouse(ctx(t), engine.MouseRequest{Action: "wiggle", X: 5, Y: 5})
		wantError(t, err, engine.InvalidParameters, map[string]any{"field": "action"})
	})
}

package tools_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/tools"
)

func TestHoverPressDragUpload(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/input.html")
	e.ok("hover", map[string]any{"sessionId": id, "selector": "#tip"})
	if got := e.title(id); got != "hovered" {
		t.Fatalf("hover: %q", got)
	}
	e.ok("press", map[string]any{"sessionId": id, "selector": "#field", "key": "Control+ArrowDown"})
	if got := e.title(id); got != "down true" {
		t.Fatalf("press with modifier: %q", got)
	}
	// Control+A selects the field's text; typing then replaces it.
	e.ok("press", map[string]any{"sessionId": id, "selector": "#field", "key": "a", "modifiers": []any{"Control"}})
	e.ok("press", map[string]any{"sessionId": id, "key": "X"})
	if out := e.ok("get_value", map[string]any{"sessionId": id, "selector": "#field"}); out["value"] != "X" {
		t.Fatalf("Control+A then X: %v", out)
	}
	e.ok("press", map[string]any{"sessionId": id, "selector": "#area", "key": "Escape"})
	if got := e.title(id); got != "escaped" {
		t.Fatalf("Escape: %q", got)
	}
	e.fail(engine.InvalidParameters, "press", map[string]any{"sessionId": id, "key": "Hyper+Q"})
	e.fail(engine.InvalidParameters, "press", map[string]any{"sessionId": id, "key": "NoSuchKey"})

	e.ok("drag_and_drop", map[string]any{"sessionId": id, "source": "#src", "target": "#dst"})
	if got := e.title(id); got != "dropped card" {
		t.Fatalf("drag and drop: %q", got)
	}
	body := e.fail(engine.ElementNotFound, "drag_and_drop", map[string]any{"sessionId": id, "source": "#nowhere", "target": "#dst", "timeout": 200})
	if got := body["details"].(map[string]any)["timeout"]; got != float64(200) {
		t.Fatalf("drag_and_drop waited %v ms, want its timeout 200: %v", got, body)
	}

	// Files to upload come from the server's output directory.
	dir := e.out
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	os.WriteFile(a, []byte("12345"), 0o644)
	os.WriteFile(b, []byte("1"), 0o644)
	e.ok("upload_file", map[string]any{"sessionId": id, "selector": "#one", "files": []any{a}})
	if got := e.title(id); got != "files a.txt:5" {
		t.Fatalf("upload: %q", got)
	}
	e.ok("upload_file", map[string]any{"sessionId": id, "selector": "#many", "files": []any{a, b}})
	if got := e.title(id); got != "files a.txt,b.txt" {
		t.Fatalf("multiple upload: %q", got)
	}
	body = e.fail(engine.InvalidParameters, "upload_file", map[string]any{"sessionId": id, "selector": "#one", "files": []any{filepath.Join(dir, "missing")}})
	if body["details"].(map[string]any)["field"] != "files" {
		t.Fatalf("missing file: %v", body)
	}
	e.fail(engine.InvalidParameters, "upload_file", map[string]any{"sessionId": id, "selector": "#one", "files": []any{a, b}})
	// A relative path is taken in the output directory; a file outside it
	// is refused, naming the field.
	e.ok("upload_file", map[string]any{"sessionId": id, "selector": "#one", "files": []any{"b.txt"}})
	if got := e.title(id); got != "files b.txt:1" {
		t.Fatalf("upload of a relative path: %q", got)
	}
	elsewhere := filepath.Join(t.TempDir(), "c.txt")
	os.WriteFile(elsewhere, []byte("1"), 0o644)
	for _, f := range []string{elsewhere, "../c.txt", "/etc/hostname"} {
		body = e.fail(engine.InvalidParameters, "upload_file", map[string]any{"sessionId": id, "selector": "#one", "files": []any{f}})
		if body["details"].(map[string]any)["field"] != "files" || !strings.Contains(body["message"].(string), "outside") {
			t.Fatalf("upload of %s: %v", f, body)
		}
	}
	e.fail(engine.ElementNotEditable, "upload_file", map[string]any{"sessionId": id, "selector": "#field", "files": []any{a}})

	// Enter in a form field submits it and press waits for the new page.
	out := e.ok("press", map[string]any{"sessionId": id, "selector": "#q", "key": "Enter"})
	if out["url"] == nil || e.title(id) != "Welcome" {
		t.Fatalf("Enter submit: %v", out)
	}
}

func TestVisionMouseTools(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/input.html")
	box := e.ok("find_element", map[string]any{"sessionId": id, "selector": "#tip"})["box"].(map[string]any)
	x, y := box["x"].(float64)+box["width"].(float64)/2, box["y"].(float64)+box["height"].(float64)/2
	e.ok("mouse_move", map[string]any{"sessionId": id, "x": x, "y": y})
	if got := e.title(id); got != "hovered" {
		t.Fatalf("mouse_move: %q", got)
	}
	src := e.ok("find_element", map[string]any{"sessionId": id, "selector": "#src"})["box"].(map[string]any)
	dst := e.ok("find_element", map[string]any{"sessionId": id, "selector": "#dst"})["box"].(map[string]any)
	e.ok("mouse_drag", map[string]any{"sessionId": id, "x": src["x"].(float64) + 10, "y": src["y"].(float64) + 10,
		"toX": dst["x"].(float64) + 10, "toY": dst["y"].(float64) + 10})
	if got := e.title(id); got != "dropped card" {
		t.Fatalf("mouse_drag: %q", got)
	}
	id2 := e.open("/form.html")
	b := e.ok("find_element", map[string]any{"sessionId": id2, "selector": "#count"})["box"].(map[string]any)
	e.ok("mouse_click", map[string]any{"sessionId": id2, "x": b["x"].(float64) + 5, "y": b["y"].(float64) + 5})
	if got := e.title(id2); got != "clicked 1" {
		t.Fatalf("mouse_click: %q", got)
	}
	e.fail(engine.InvalidParameters, "mouse_click", map[string]any{"sessionId": id2, "x": 5000, "y": 5})
	e.fail(engine.InvalidParameters, "mouse_click", map[string]any{"sessionId": id2, "x": 5, "y": 5, "button": "fourth"})
}

// TestRefsForDragPressScroll: the tools whose element is optional (press,
// scroll) or that name two (drag_and_drop) take refs from a snapshot too.
func TestRefsForDragPressScroll(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/input.html")
	s := e.snap(id, nil)
	refOf := func(s, line string) string {
		t.Helper()
		m := regexp.MustCompile(`- ` + line + ` \[ref=(e[0-9]+)\]`).FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("no %q with a ref in:\n%s", line, s)
		}
		return m[1]
	}
	field := refOf(s, "textbox")
	e.ok("press", map[string]any{"sessionId": id, "ref": field, "key": "Control+ArrowDown"})
	if got := e.title(id); got != "down true" {
		t.Fatalf("press by ref: %q", got)
	}
	e.fail(engine.InvalidParameters, "press", map[string]any{"sessionId": id, "ref": field, "selector": "#field", "key": "a"})
	src, dst := refOf(s, "group"), refOf(s, "generic")
	e.ok("drag_and_drop", map[string]any{"sessionId": id, "source": src, "target": dst})
	if got := e.title(id); got != "dropped card" {
		t.Fatalf("drag and drop by ref: %q", got)
	}
	e.fail(engine.ElementNotFound, "drag_and_drop", map[string]any{"sessionId": id, "source": "e999999", "target": dst})

	id = e.open("/catalog.html")
	s = e.snap(id, nil)
	form := refOf(s, `link "Form"`)
	e.ok("scroll", map[string]any{"sessionId": id, "y": 2000})
	if out := e.ok("scroll", map[string]any{"sessionId": id, "ref": form}); out["scrollY"].(float64) >= 2000 {
		t.Fatalf("scroll back to a ref: %v", out)
	}
	e.fail(engine.InvalidParameters, "scroll", map[string]any{"sessionId": id, "ref": form, "selector": "#bottom"})
}

// TestScriptLinksWithoutEvaluation: while script evaluation is disabled, a
// click that would follow a javascript: URL (a link, spelled any way a
// browser accepts, a child of one, a form's submit button) is refused with
// NAVIGATION_BLOCKED saying why, and the script does not run; other links
// still work. With evaluation on, the same link runs: it is the page's own.
func TestScriptLinksWithoutEvaluation(t *testing.T) {
	e := newEnvWith(t, sessions.Config{}, tools.Options{DisabledTools: []string{"evaluate"}, NoScriptEvaluation: true})
	id := e.session()
	e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/jslink.html"})
	for _, sel := range []string{"#js", "#spelled", "#inner", "#submit"} {
		body := e.fail(engine.NavigationBlocked, "click", map[string]any{"sessionId": id, "selector": sel})
		if !strings.Contains(body["message"].(string), "enableScriptEvaluation") || !strings.HasPrefix(strings.ToLower(body["details"].(map[string]any)["url"].(string)), "javascript:") {
			t.Errorf("click %s: %v", sel, body)
		}
		if got := e.title(id); got != "jslink" {
			t.Fatalf("click %s ran the script: title %q", sel, got)
		}
	}
	e.ok("click", map[string]any{"sessionId": id, "selector": "#plain"})
	if got := e.title(id); got != "Welcome" {
		t.Fatalf("a plain link: title %q", got)
	}

	on := newEnv(t, sessions.Config{})
	id = on.session()
	on.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/jslink.html"})
	on.ok("click", map[string]any{"sessionId": id, "selector": "#js"})
	testenv.Eventually(t, "the page's javascript: link to run", func() (bool, error) {
		got := on.title(id)
		return got == "ran", fmt.Errorf("the title is %q", got)
	})
}

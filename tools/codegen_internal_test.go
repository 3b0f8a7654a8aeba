package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/codegen"
)

// listSession answers the in-page question verify_list asks: the role of
// a list's items. Nothing else of the session is used.
type listSession struct {
	engine.Session
	itemRole string
}

func (s listSession) Evaluate(ctx context.Context, req engine.EvalRequest) (json.RawMessage, error) {
	return json.Marshal(s.itemRole)
}

// outlineSession answers the outline verify_element's code reads to find
// the element of a role and name: one visible button "Add".
type outlineSession struct{ engine.Session }

func (outlineSession) Snapshot(ctx context.Context, req engine.SnapshotRequest) (engine.SnapshotResult, error) {
	return engine.SnapshotResult{Text: `- button "Add" [ref=e1]`}, nil
}

// TestAssertionSteps: each verify_* tool, in the shapes issue 27 agreed,
// records the expect that checks the same, rendered from its arguments and
// its result (verify_value's kind and actual). The tools themselves come
// from another branch; this holds the renderer to their shapes.
func TestAssertionSteps(t *testing.T) {
	withCSSLocators(t)
	out := t.TempDir()
	d := &Deps{codegen: codegen.TypeScript, record: true, stepLog: &stepLog{}, files: newFileAccess(true, out, nil)}
	ctx := context.Background()
	cases := []struct {
		tool   string
		args   map[string]any
		result map[string]any
		s      engine.Session
		want   string
	}{
		{"verify_element", map[string]any{"role": "button", "name": "Add"}, nil, outlineSession{},
			"await expect(page.getByRole('button', { name: 'Add', exact: true })).toBeVisible();"},
		{"verify_element", map[string]any{"selector": "#gone", "state": "hidden"}, nil, nil,
			"await expect(page.locator('#gone')).toBeHidden();"},
		{"verify_text", map[string]any{"text": "2 tasks"}, nil, nil,
			"await expect(page.locator('body')).toContainText('2 tasks');"},
		{"verify_text", map[string]any{"regex": "/milk.*urgent/i", "selector": "#list"}, nil, nil,
			"await expect(page.locator('#list')).toContainText(/milk.*urgent/i);"},
		{"verify_list", map[string]any{"selector": "#list", "items": []string{"milk", "eggs"}}, nil, listSession{itemRole: "listitem"},
			"await expect(page.locator('#list').getByRole('listitem')).toContainText(['milk', 'eggs']);"},
		{"verify_list", map[string]any{"selector": "#prio", "items": []string{"Low"}}, nil, listSession{itemRole: "option"},
			"await expect(page.locator('#prio').getByRole('option')).toContainText(['Low']);"},
		{"verify_value", map[string]any{"selector": "#task", "value": "milk"}, map[string]any{"kind": "value", "actual": "milk"}, nil,
			"await expect(page.locator('#task')).toHaveValue('milk');"},
		{"verify_value", map[string]any{"selector": "#prio", "value": "High"}, map[string]any{"kind": "value", "actual": "hi"}, nil,
			"await expect(page.locator('#prio')).toHaveValue('hi');"},
		{"verify_value", map[string]any{"selector": "#urgent", "value": "checked"}, map[string]any{"kind": "checked", "actual": "checked"}, nil,
			"await expect(page.locator('#urgent')).toBeChecked();"},
		{"verify_value", map[string]any{"selector": "#urgent", "value": "false"}, map[string]any{"kind": "checked", "actual": "unchecked"}, nil,
			"await expect(page.locator('#urgent')).not.toBeChecked();"},
		{"verify_value", map[string]any{"selector": "#editor", "value": "hello"}, map[string]any{"kind": "text", "actual": "hello"}, nil,
			"await expect(page.locator('#editor')).toHaveText('hello');"},
		{"verify_url", map[string]any{"url": "http://127.0.0.1/todo.html"}, nil, nil,
			"await expect(page).toHaveURL('http://127.0.0.1/todo.html');"},
		{"verify_url", map[string]any{"regex": `todo\.html$`}, nil, nil,
			`await expect(page).toHaveURL(/todo\.html$/);`},
		{"verify_title", map[string]any{"title": "Todo (2)"}, nil, nil,
			"await expect(page).toHaveTitle('Todo (2)');"},
		{"evaluate", map[string]any{"function": "() => 1"}, nil, nil,
			"// evaluate ran a script here: not replayed, as its effect is not an action a user takes"},
		{"mock_response", map[string]any{"urlPattern": "*/api/*"}, nil, nil,
			"// mock_response set a route here: not replayed; add page.route() to mock the network"},
		{"tabs", map[string]any{"action": "new"}, nil, nil, "// tabs new: not replayed; this test drives one page"},
		{"drag_and_drop", map[string]any{"source": "#a", "target": "#b"}, nil, nil, "await page.locator('#a').dragTo(page.locator('#b'));"},
		{"mouse_drag", map[string]any{"x": 1, "y": 2, "toX": 3, "toY": 4}, nil, nil,
			"await page.mouse.move(1, 2);\nawait page.mouse.down();\nawait page.mouse.move(3, 4);\nawait page.mouse.up();"},
		{"click", map[string]any{"ref": "e5"}, nil, nil,
			"// click on e5: no locator (no element e5); this step is not replayed"},
	}
	for _, c := range cases {
		p := d.prepareStep(ctx, c.s, c.tool, "s1", c.args, c.args)
		if got := d.finishStep("s1", p, c.result); got != c.want {
			t.Errorf("%s %v:\n got %s\nwant %s", c.tool, c.args, got, c.want)
		}
	}
	if steps, _ := d.stepLog.steps("s1"); len(steps) != len(cases) {
		t.Errorf("recorded %d steps, want %d", len(steps), len(cases))
	}
	// list is not a step.
	if p := d.prepareStep(ctx, nil, "tabs", "s1", map[string]any{"action": "list"}, nil); p != nil {
		t.Errorf("tabs list made a step: %+v", p.step)
	}
}

// TestUploadSteps: an upload from the output directory replays with the
// file's path relative to the test; one from elsewhere is a comment.
func TestUploadSteps(t *testing.T) {
	withCSSLocators(t)
	out, other := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(out, "a.txt"), []byte("a"), 0o600)
	os.WriteFile(filepath.Join(other, "b.txt"), []byte("b"), 0o600)
	d := &Deps{codegen: codegen.TypeScript, record: true, stepLog: &stepLog{}, files: newFileAccess(true, out, []string{other})}
	ctx := context.Background()
	p := d.prepareStep(ctx, nil, "upload_file", "s1", map[string]any{"selector": "#f", "files": []string{"a.txt"}}, nil)
	if got, want := d.finishStep("s1", p, nil), "await page.locator('#f').setInputFiles([path.join(path.dirname(test.info().file), 'a.txt')]);"; got != want {
		t.Errorf("upload from the output directory:\n got %s\nwant %s", got, want)
	}
	p = d.prepareStep(ctx, nil, "upload_file", "s1", map[string]any{"selector": "#f", "files": []string{filepath.Join(other, "b.txt")}}, nil)
	if got := d.finishStep("s1", p, nil); !strings.HasPrefix(got, "// upload_file set page.locator('#f') from "+filepath.Join(other, "b.txt")) || !strings.Contains(got, "not replayed") {
		t.Errorf("upload from outside: %s", got)
	}
}

// withCSSLocators makes a selector its own locator, without a page, and a
// ref none, for the duration of t.
func withCSSLocators(t *testing.T) {
	old := locateStep
	locateStep = func(ctx context.Context, s engine.Session, tg engine.Target, _ time.Duration) (codegen.Locator, error) {
		if tg.Ref != "" {
			return codegen.Locator{}, engine.Errorf(engine.ElementNotFound, "no element %s", tg.Ref)
		}
		return *selectorLocator(tg.Selector), nil
	}
	t.Cleanup(func() { locateStep = old })
}

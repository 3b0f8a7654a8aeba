package tools_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/tools"
)

// act calls an action tool that must succeed, and returns its structured
// result and the text block of its changes ("" when it has none).
func (e *env) act(name string, args map[string]any) (map[string]any, string) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := e.c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		e.t.Fatalf("%s: protocol error: %v", name, err)
	}
	out := decode(e.t, res)
	if res.IsError {
		e.t.Fatalf("%s(%v) failed: %v", name, args, out)
	}
	var lines string
	if len(res.Content) == 2 {
		lines = res.Content[1].(mcp.TextContent).Text
	}
	return out, lines
}

// snapshot returns the outline of the session's page, which becomes the
// agent's view of it.
func (e *env) snapshot(id string) string {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := e.c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "snapshot", Arguments: map[string]any{"sessionId": id}}})
	if err != nil || res.IsError {
		e.t.Fatalf("snapshot: %v %v", err, res)
	}
	text, _ := res.StructuredContent.(map[string]any)["snapshot"].(string)
	return text
}

// items returns the changes of an action's result.
func items(t *testing.T, out map[string]any) []map[string]any {
	t.Helper()
	c, ok := out["changes"].(map[string]any)
	if !ok {
		t.Fatalf("the result has no changes: %v", out)
	}
	var its []map[string]any
	for _, it := range asSlice(c["items"]) {
		its = append(its, it.(map[string]any))
	}
	return its
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// TestActionChanges drives changes.html through the MCP tools: each
// action's result says what it changed, in data and in lines, and that
// agrees with the page, read with evaluate.
func TestActionChanges(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/changes.html")
	eval := func(expr string) any {
		return e.ok("evaluate", map[string]any{"sessionId": id, "script": expr})["result"]
	}

	// No earlier view: the first action answers the page's outline.
	out, lines := e.act("click", map[string]any{"sessionId": id, "selector": "#noop"})
	c := out["changes"].(map[string]any)
	if c["fresh"] != "no_view" || !strings.Contains(c["outline"].(string), `button "Check" [ref=`) ||
		!strings.HasPrefix(lines, "No earlier view of this page to compare with;") {
		t.Fatalf("first action: %v\n%s", c, lines)
	}
	outline := e.snapshot(id)

	// A click that changes nothing says so.
	out, lines = e.act("click", map[string]any{"sessionId": id, "ref": testenv.RefOf(t, outline, "button", "Do nothing")})
	if its := items(t, out); len(its) != 0 || lines != "No change on the page." {
		t.Fatalf("a click that changes nothing: %v\n%s", its, lines)
	}

	// Text appears, grouped under the region that holds it.
	out, lines = e.act("click", map[string]any{"sessionId": id, "ref": testenv.RefOf(t, outline, "button", "Check")})
	if got := eval("document.getElementById('err').textContent"); got != "Email is required" {
		t.Fatalf("the page shows %v", got)
	}
	its := items(t, out)
	if len(its) != 1 || its[0]["kind"] != "changed" || !strings.Contains(its[0]["new"].(string), "Email is required") ||
		its[0]["context"] != `- region "Account"` {
		t.Fatalf("an error appears: %v", its)
	}
	if want := "Changes:\nin region \"Account\":\n  ~ - alert: Email is required (was: - alert)"; lines != want {
		t.Fatalf("lines:\n%s\nwant\n%s", lines, want)
	}

	// A checkbox and the button it enables, each with its ref.
	remember, submit := testenv.RefOf(t, outline, "checkbox", "Remember me"), testenv.RefOf(t, outline, "button", "Submit")
	out, lines = e.act("check", map[string]any{"sessionId": id, "ref": remember})
	if got := eval("[document.getElementById('remember').checked, document.getElementById('submit').disabled]"); len(asSlice(got)) != 2 || asSlice(got)[0] != true || asSlice(got)[1] != false {
		t.Fatalf("checked, disabled = %v", got)
	}
	refs := map[string]bool{}
	for _, it := range items(t, out) {
		refs[it["ref"].(string)] = it["kind"] == "changed"
	}
	if len(refs) != 2 || !refs[remember] || !refs[submit] {
		t.Fatalf("check: %v\n%s", out["changes"], lines)
	}
	for _, want := range []string{`~ - checkbox "Remember me" [checked] [ref=` + remember + `] (was without [checked])`, `~ - button "Submit" [ref=` + submit + `] (was [disabled])`} {
		if !strings.Contains(lines, want) {
			t.Errorf("lines lack %q:\n%s", want, lines)
		}
	}

	// A navigation answers the new page's outline.
	out, lines = e.act("click", map[string]any{"sessionId": id, "selector": "a"})
	c = out["changes"].(map[string]any)
	if out["url"] == nil || c["fresh"] != "navigated" || !strings.Contains(c["outline"].(string), `heading "Welcome"`) ||
		!strings.HasPrefix(lines, "New page;") {
		t.Fatalf("a navigation: %v\n%s", out, lines)
	}
	// go_back comes back to a document it saw: from the back/forward
	// cache, or loaded again, which is a new document.
	out, _ = e.act("go_back", map[string]any{"sessionId": id})
	if _, ok := out["changes"].(map[string]any); !ok {
		t.Fatalf("go_back carries no changes: %v", out)
	}
}

// TestActionChangesCapped checks that a page that changes without end
// still answers, its changes capped, with how many more there were.
func TestActionChangesCapped(t *testing.T) {
	e := newEnvWith(t, sessions.Config{}, tools.Options{Version: "test", Caps: []tools.Group{tools.All}, ChangesCap: 100})
	id := e.open("/ticking.html")
	e.snapshot(id)
	// The page adds a line every 5 ms: wait until it has more than the cap holds.
	time.Sleep(300 * time.Millisecond)
	out, lines := e.act("press", map[string]any{"sessionId": id, "key": "Shift"})
	c := out["changes"].(map[string]any)
	more, _ := c["more"].(float64)
	if more < 1 || !strings.Contains(lines, " more changes; call snapshot or find.") || len(lines) > 2000 {
		t.Fatalf("capped changes: more=%v\n%s", c["more"], lines)
	}
}

// TestActionResultSetting checks --action-result none (no changes) and
// full (the whole outline after every action).
func TestActionResultSetting(t *testing.T) {
	none := newEnvWith(t, sessions.Config{}, tools.Options{Version: "test", ActionResult: tools.ActionResultNone})
	id := none.open("/changes.html")
	none.snapshot(id)
	if out, lines := none.act("click", map[string]any{"sessionId": id, "selector": "#check"}); out["changes"] != nil || lines != "" {
		t.Fatalf("--action-result none: %v\n%s", out, lines)
	}
	full := newEnvWith(t, sessions.Config{}, tools.Options{Version: "test", ActionResult: tools.ActionResultFull})
	id = full.open("/changes.html")
	out, lines := full.act("click", map[string]any{"sessionId": id, "selector": "#check"})
	c := out["changes"].(map[string]any)
	if c["fresh"] != "full" || !strings.Contains(c["outline"].(string), "- alert: Email is required") || !strings.HasPrefix(lines, "Page outline:\n") {
		t.Fatalf("--action-result full: %v\n%s", c, lines)
	}
	// A failed action is an error, with no changes.
	full.fail("ELEMENT_NOT_FOUND", "click", map[string]any{"sessionId": id, "selector": "#missing", "timeout": 100})
}

// snapshotChanges calls snapshot {changes: true} and returns its text for
// the model and its structured result.
func (e *env) snapshotChanges(id string) (string, map[string]any) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := e.c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "snapshot", Arguments: map[string]any{"sessionId": id, "changes": true}}})
	if err != nil || res.IsError {
		e.t.Fatalf("snapshot changes: %v %v", err, res)
	}
	return res.Content[0].(mcp.TextContent).Text, res.StructuredContent.(map[string]any)
}

// TestSnapshotChanges checks snapshot {changes: true}: the whole outline
// and why when there is no earlier view, then only what changed, and its
// refusal of a part of the page.
func TestSnapshotChanges(t *testing.T) {
	// Actions that answer no changes leave the view where the snapshot set it.
	e := newEnvWith(t, sessions.Config{}, tools.Options{Version: "test", ActionResult: tools.ActionResultNone})
	id := e.open("/changes.html")
	text, out := e.snapshotChanges(id)
	if !strings.Contains(text, "\nNo earlier view of this page to compare with: the whole outline.\n- heading \"Changes\" [level=1]") ||
		!strings.Contains(text, "- listitem: Item 1") || out["changes"].(map[string]any)["fresh"] != "no_view" {
		t.Fatalf("no earlier view:\n%s", text)
	}
	e.ok("click", map[string]any{"sessionId": id, "selector": "#check"})
	e.ok("click", map[string]any{"sessionId": id, "selector": "#more"})
	if got := e.ok("evaluate", map[string]any{"sessionId": id, "script": "document.getElementById('err').textContent + '|' + document.getElementById('panel').hidden"})["result"]; got != "Email is required|false" {
		t.Fatalf("the page: %v", got)
	}
	text, out = e.snapshotChanges(id)
	for _, want := range []string{"\nChanges:\nin region \"Account\":\n", "  ~ - alert: Email is required (was: - alert)\n", `  ~ - button "More options" [expanded] [ref=e5] (was [collapsed])`, "  + - paragraph: Extra options here"} {
		if !strings.Contains(text, want) {
			t.Errorf("changes lack %q:\n%s", want, text)
		}
	}
	if n := len(items(t, out)); n != 3 || out["refs"].(float64) != 1 {
		t.Errorf("%d changes, %v refs: %v", n, out["refs"], out)
	}
	if text, _ = e.snapshotChanges(id); !strings.HasSuffix(text, "\nNo change on the page.") {
		t.Errorf("looked at again:\n%s", text)
	}
	body := e.fail("INVALID_PARAMETERS", "snapshot", map[string]any{"sessionId": id, "changes": true, "selector": "main"})
	if body["details"].(map[string]any)["field"] != "selector" {
		t.Errorf("changes with a selector: %v", body)
	}
}

// TestActionChangesInNamedContext checks that the refs an action's
// changes show carry the context's name, as its snapshot's do, and act
// in that context.
func TestActionChangesInNamedContext(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	e.ok("browser_context_create", map[string]any{"name": "uk"})
	e.ok("navigate", map[string]any{"url": site.URL + "/changes.html"})
	e.snapOut(map[string]any{})
	out, lines := e.act("click", map[string]any{"selector": "#open"})
	var next string
	for _, it := range items(t, out) {
		if strings.Contains(it["new"].(string), `button "Next"`) {
			next, _ = it["ref"].(string)
		}
	}
	if !strings.HasPrefix(next, "uk:e") || !strings.Contains(lines, "[ref="+next+"]") {
		t.Fatalf("the wizard's Next button in the changes: ref %q\n%s", next, lines)
	}
	_, lines = e.act("click", map[string]any{"ref": next})
	if !strings.Contains(lines, "Step 2 of 2") {
		t.Fatalf("a click on %s: %s", next, lines)
	}
}

// TestBriefSnapshotIsTheView checks that a whole-page outline asked for in
// brief (interactiveOnly, depth) is the agent's view as a full one is: the
// next action answers its changes, not the new-page outline.
func TestBriefSnapshotIsTheView(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	for _, brief := range []map[string]any{{"interactiveOnly": true}, {"depth": 2}} {
		id := e.open("/changes.html")
		brief["sessionId"] = id
		e.snapOut(brief)
		out, lines := e.act("click", map[string]any{"sessionId": id, "selector": "#more"})
		c := out["changes"].(map[string]any)
		if c["fresh"] != nil || c["outline"] != nil || !strings.Contains(lines, `~ - button "More options" [expanded]`) {
			t.Errorf("after snapshot %v the click answers\n%s\n%v", brief, lines, c)
		}
	}
}

// TestActionChangesTransient checks that a toast that appeared and went
// away while a click settled is in the click's result, in data and in
// lines, while the page no longer shows it; and that a list re-rendered
// into an equal one answers no change.
func TestActionChangesTransient(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/toast.html")
	eval := func(expr string) any {
		return e.ok("evaluate", map[string]any{"sessionId": id, "script": expr})["result"]
	}
	outline := e.snapshot(id)

	out, lines := e.act("click", map[string]any{"sessionId": id, "ref": testenv.RefOf(t, outline, "button", "Save")})
	if got := eval("document.querySelectorAll('.toast').length"); got != float64(0) {
		t.Fatalf("the toast is still shown after the click settled: %v", got)
	}
	its := items(t, out)
	if len(its) != 1 || its[0]["kind"] != "transient" || its[0]["old"] != "- text: Saved!" || its[0]["name"] != "Saved!" {
		t.Fatalf("a toast that came and went: %v", its)
	}
	if want := "Changes:\n± - text: Saved! (appeared and went away)"; lines != want {
		t.Fatalf("lines:\n%s\nwant\n%s", lines, want)
	}

	out, lines = e.act("click", map[string]any{"sessionId": id, "ref": testenv.RefOf(t, outline, "button", "Re-render")})
	if got := eval("window.renders"); got != float64(2) {
		t.Fatalf("renders = %v", got)
	}
	if its := items(t, out); len(its) != 0 || lines != "No change on the page." {
		t.Fatalf("a list re-rendered into an equal one: %v\n%s", its, lines)
	}
}

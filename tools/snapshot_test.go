package tools_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// snap takes a snapshot through MCP and returns the text the model reads,
// after checking that structuredContent carries the same outline.
func (e *env) snap(id string, args map[string]any) string {
	e.t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	args["sessionId"] = id
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := e.c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "snapshot", Arguments: args}})
	if err != nil {
		e.t.Fatalf("snapshot: protocol error: %v", err)
	}
	text := ""
	if len(res.Content) > 0 {
		if tc, ok := mcp.AsTextContent(res.Content[0]); ok {
			text = tc.Text
		}
	}
	if res.IsError {
		e.t.Fatalf("snapshot(%v) failed: %s", args, text)
	}
	sc, _ := res.StructuredContent.(map[string]any)
	outline, _ := sc["snapshot"].(string)
	if outline == "" || !regexp.MustCompile(`(?s)^Page: .*\nTitle: .*\n`).MatchString(text) || text[len(text)-len(outline):] != outline {
		e.t.Fatalf("snapshot text %q does not end with structured outline %q", text, outline)
	}
	return outline
}

// ref finds the ref of the element with role and name in a snapshot, with
// the regexp peerbench uses.
func ref(t *testing.T, snapshot, role, name string) string {
	t.Helper()
	re := regexp.MustCompile(`- ` + regexp.QuoteMeta(role) + ` "` + regexp.QuoteMeta(name) + `"(?: \[[^\]]*\])*? \[ref=([^\]\s]+)\]`)
	m := re.FindStringSubmatch(snapshot)
	if m == nil {
		t.Fatalf("no %s %q with a ref in:\n%s", role, name, snapshot)
	}
	return m[1]
}

// waitSnap snapshots until the outline matches re (frames load after the
// page does).
func (e *env) waitSnap(id string, re string) string {
	e.t.Helper()
	var s string
	testenv.Eventually(e.t, "a snapshot matching "+re, func() (bool, error) {
		s = e.snap(id, nil)
		return regexp.MustCompile(re).MatchString(s), fmt.Errorf("the snapshot is:\n%s", s)
	})
	return s
}

// waitTitle waits for the page title to become want, for effects that run
// after an action returned (postMessage, timers).
func (e *env) waitTitle(id, want string) {
	e.t.Helper()
	testenv.Eventually(e.t, fmt.Sprintf("the title %q", want), func() (bool, error) {
		got := e.title(id)
		return got == want, fmt.Errorf("the title is %q", got)
	})
}

func TestSnapshotOptions(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/snapshot.html")
	full := e.snap(id, nil)
	for _, want := range []string{
		`- link "Welcome" [ref=`, `] /welcome.html`, `- textbox "Name" [ref=`, `]: "Ada"`, `- checkbox "Gift wrap" [checked] [ref=`,
		`- radio "Fast" [checked] [ref=`, `- combobox "Size" [ref=`, `- option "Large" [selected] [ref=`,
		`- button "Disabled" [disabled] [ref=`, `Card with a pointer`, `Div with onclick`, `- heading "FAQ" [level=2]`,
		`- row: Tea | 3`, `- link "Buy tea" [ref=`, `https://example.com/x`, `- image "Pixel"`, `- option "Small" [ref=`,
	} {
		if !strings.Contains(full, want) {
			t.Errorf("snapshot lacks %q:\n%s", want, full)
		}
	}
	for _, never := range []string{"Never shown", "Hidden from accessibility", "Invisible", "secret"} {
		if strings.Contains(full, never) {
			t.Errorf("snapshot shows %q:\n%s", never, full)
		}
	}
	// Elements with click handlers get refs too.
	for _, re := range []string{`Card with a pointer`, `Div with onclick`} {
		if !regexp.MustCompile(`\[ref=e\d+\]: ` + re).MatchString(full) {
			t.Errorf("%s has no ref:\n%s", re, full)
		}
	}

	only := e.snap(id, map[string]any{"interactiveOnly": true})
	if strings.Contains(only, "Plain text") || !strings.Contains(only, `- button "Order now" [ref=`) || !strings.Contains(only, `- heading "FAQ"`) ||
		!strings.Contains(only, `- navigation "Main":`) {
		t.Errorf("interactiveOnly snapshot:\n%s", only)
	}
	if len(only) >= len(full) {
		t.Errorf("interactiveOnly (%d chars) is not smaller than the full snapshot (%d)", len(only), len(full))
	}

	sub := e.snap(id, map[string]any{"selector": "form"})
	if !strings.HasPrefix(sub, `- form "Order":`) || strings.Contains(sub, "Welcome") {
		t.Errorf("selector subtree:\n%s", sub)
	}
	// A ref from the full snapshot limits to the same subtree, same refs.
	formRef := ref(t, full, "button", "Order now")
	if got := e.snap(id, map[string]any{"ref": formRef}); got != `- button "Order now" [ref=`+formRef+`]` {
		t.Errorf("ref subtree = %q", got)
	}

	shallow := e.snap(id, map[string]any{"depth": 1})
	if !strings.Contains(shallow, "- main: …") || strings.Contains(shallow, "Order now") {
		t.Errorf("depth 1:\n%s", shallow)
	}

	cut := e.snap(id, map[string]any{"maxChars": 200})
	if !strings.Contains(cut, "[... truncated: showing") || !strings.Contains(cut, "interactiveOnly") || len(cut) > 400 {
		t.Errorf("maxChars 200:\n%s", cut)
	}

	e.fail(engine.InvalidParameters, "snapshot", map[string]any{"sessionId": id, "selector": "form", "ref": formRef})
	e.fail(engine.ElementNotFound, "snapshot", map[string]any{"sessionId": id, "selector": "#nothing"})
	e.fail(engine.InvalidParameters, "snapshot", map[string]any{"sessionId": id, "depth": -1})
}

func TestTargetValidation(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/form.html")
	both := e.fail(engine.InvalidParameters, "click", map[string]any{"sessionId": id, "selector": "#go", "ref": "e1"})
	if both["details"].(map[string]any)["field"] != "ref" {
		t.Errorf("both: %v", both)
	}
	e.fail(engine.InvalidParameters, "click", map[string]any{"sessionId": id})
	e.fail(engine.InvalidParameters, "type", map[string]any{"sessionId": id, "text": "x"})
	e.fail(engine.InvalidParameters, "click", map[string]any{"sessionId": id, "ref": "button-1"})
	unknown := e.fail(engine.ElementNotFound, "click", map[string]any{"sessionId": id, "ref": "e999"})
	if unknown["details"].(map[string]any)["reason"] != "unknown_ref" {
		t.Errorf("unknown ref: %v", unknown)
	}
}

func TestRefsStableAndStale(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/mutate.html")
	s1 := e.snap(id, nil)
	target := ref(t, s1, "button", "Target")

	// New nodes before it do not move its ref; the new node gets a new one.
	e.ok("click", map[string]any{"sessionId": id, "ref": ref(t, s1, "button", "Add")})
	e.ok("click", map[string]any{"sessionId": id, "ref": ref(t, s1, "button", "Add")})
	s2 := e.snap(id, nil)
	if got := ref(t, s2, "button", "Target"); got != target {
		t.Fatalf("Target's ref moved from %s to %s:\n%s", target, got, s2)
	}
	n0, n1 := ref(t, s2, "button", "New 0"), ref(t, s2, "button", "New 1")
	if n0 == n1 || n0 == target || strings.Contains(s1, "[ref="+n0+"]") || strings.Contains(s1, "[ref="+n1+"]") {
		t.Fatalf("new buttons reuse refs: %s %s\n%s\n%s", n0, n1, s1, s2)
	}
	e.ok("click", map[string]any{"sessionId": id, "ref": target})
	if got := e.title(id); got != "target clicked" {
		t.Fatalf("title = %q", got)
	}
	e.ok("click", map[string]any{"sessionId": id, "ref": n1})
	if got := e.title(id); got != "New 1 clicked" {
		t.Fatalf("title = %q", got)
	}

	// A replaced node: its old ref is stale, never the new node's.
	e.ok("click", map[string]any{"sessionId": id, "ref": ref(t, s1, "button", "Replace")})
	stale := e.fail(engine.ElementNotFound, "click", map[string]any{"sessionId": id, "ref": target})
	d := stale["details"].(map[string]any)
	if d["reason"] != "stale_ref" || d["ref"] != target || !strings.Contains(stale["suggestion"].(string), "snapshot") {
		t.Fatalf("stale ref error: %v", stale)
	}
	if got := e.title(id); got != "New 1 clicked" {
		t.Fatalf("a stale ref acted: title = %q", got)
	}
	s3 := e.snap(id, nil)
	if got := ref(t, s3, "button", "Target"); got == target {
		t.Fatalf("the replacement got the old ref %s", got)
	}
	e.fail(engine.ElementNotFound, "snapshot", map[string]any{"sessionId": id, "ref": target})
	e.fail(engine.ElementNotFound, "type", map[string]any{"sessionId": id, "ref": target, "text": "x"})

	// After a navigation every old ref is stale.
	r := e.ok("click", map[string]any{"sessionId": id, "ref": ref(t, s3, "link", "Leave")})
	if r["url"] == nil {
		t.Fatalf("Leave did not navigate: %v", r)
	}
	gone := e.fail(engine.ElementNotFound, "click", map[string]any{"sessionId": id, "ref": n0})
	if gone["details"].(map[string]any)["reason"] != "stale_ref" {
		t.Fatalf("ref after navigation: %v", gone)
	}
}

func TestRefClickCoveredAndNavigating(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/covered.html")
	s := e.snap(id, nil)
	buy := ref(t, s, "button", "Buy")
	out := e.fail(engine.ElementNotClickable, "click", map[string]any{"sessionId": id, "ref": buy})
	if d := out["details"].(map[string]any); d["coveredBy"] != "div#cookie-banner" || d["ref"] != buy {
		t.Fatalf("covered: %v", out)
	}
	if !strings.Contains(out["message"].(string), "div#cookie-banner") {
		t.Fatalf("message does not name the cover: %v", out)
	}
	// force skips the checks, but the events still go to what is on top:
	// here the banner, so the button is not bought, and the answer is an
	// error naming the banner as the element that received the click.
	forced := e.fail(engine.ElementNotClickable, "click", map[string]any{"sessionId": id, "ref": buy, "force": true})
	if d := forced["details"].(map[string]any); d["receivedBy"] != "div#cookie-banner" || d["clicked"] != true || forced["retryable"] != false {
		t.Fatalf("forced click on the covered button: %v", forced)
	}
	if got := e.title(id); got != "Covered" {
		t.Fatalf("force click reached the covered button: title = %q", got)
	}
	e.ok("click", map[string]any{"sessionId": id, "ref": ref(t, s, "button", "Accept cookies")})
	if strings.Contains(e.snap(id, nil), "Accept cookies") {
		t.Fatal("accepting did not remove the banner")
	}
	e.ok("click", map[string]any{"sessionId": id, "ref": buy})
	if got := e.title(id); got != "bought" {
		t.Fatalf("click after the banner went: title = %q", got)
	}

	id = e.open("/form.html")
	s = e.snap(id, nil)
	e.ok("type", map[string]any{"sessionId": id, "ref": ref(t, s, "textbox", "Username"), "text": "ada"})
	if got := e.title(id); got != "user=ada" {
		t.Fatalf("type by ref: title = %q", got)
	}
	r := e.ok("click", map[string]any{"sessionId": id, "ref": ref(t, s, "button", "Sign in")})
	if r["url"] == nil || !strings.Contains(r["url"].(string), "/welcome.html?user=ada") {
		t.Fatalf("submit click: %v", r)
	}
	// The click returned after the new page loaded: its title is there.
	if got := e.title(id); got != "Welcome" {
		t.Fatalf("title after submit = %q", got)
	}
}

func TestFrameRefClicks(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/frames.html")
	s := e.waitSnap(id, `button "Inner cross"`)
	same, cross := ref(t, s, "button", "Inner same"), ref(t, s, "button", "Inner cross")
	if !regexp.MustCompile(`^e\d+$`).MatchString(same) || !regexp.MustCompile(`^f\d+e\d+$`).MatchString(cross) {
		t.Fatalf("refs same=%s cross=%s:\n%s", same, cross, s)
	}
	if !regexp.MustCompile(`- iframe "Cross":\n  - button "Inner cross"`).MatchString(s) {
		t.Fatalf("cross-site frame content not inline under its iframe:\n%s", s)
	}
	// Both buttons are out of view (inside the frame, and the cross frame
	// below the fold): the click scrolls and translates the point.
	// The frames report by postMessage, a task after the click returned.
	e.ok("click", map[string]any{"sessionId": id, "ref": same})
	e.waitTitle(id, "clicked same")
	e.ok("click", map[string]any{"sessionId": id, "ref": cross})
	e.waitTitle(id, "clicked cross")
	// Refs stay stable across snapshots in frames too.
	s2 := e.snap(id, nil)
	if ref(t, s2, "button", "Inner cross") != cross || ref(t, s2, "button", "Inner same") != same {
		t.Fatalf("frame refs changed:\n%s\n%s", s, s2)
	}
}

func TestDialogs(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/dialogs.html")
	s := e.snap(id, nil)

	r := e.ok("click", map[string]any{"sessionId": id, "ref": ref(t, s, "button", "Alert")})
	d, _ := r["dialog"].(map[string]any)
	if d == nil || d["type"] != "alert" || d["message"] != "Hello" {
		t.Fatalf("alert click: %v", r)
	}
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"snapshot", map[string]any{}},
		{"click", map[string]any{"selector": "#confirm"}},
		{"type", map[string]any{"selector": "#confirm", "text": "x"}},
		{"navigate", map[string]any{"url": site.URL + "/form.html"}},
	} {
		call.args["sessionId"] = id
		out := e.fail(engine.DialogOpen, call.tool, call.args)
		if dd, _ := out["details"].(map[string]any)["dialog"].(map[string]any); dd["type"] != "alert" {
			t.Fatalf("%s during a dialog: %v", call.tool, out)
		}
	}
	e.ok("handle_dialog", map[string]any{"sessionId": id, "accept": true})
	if got := e.title(id); got != "alert closed" {
		t.Fatalf("after alert: title = %q", got)
	}
	e.fail(engine.NoDialog, "handle_dialog", map[string]any{"sessionId": id, "accept": true})

	r = e.ok("click", map[string]any{"sessionId": id, "selector": "#confirm"})
	if d, _ := r["dialog"].(map[string]any); d["type"] != "confirm" || d["message"] != "Proceed?" {
		t.Fatalf("confirm click: %v", r)
	}
	e.ok("handle_dialog", map[string]any{"sessionId": id, "accept": false})
	if got := e.title(id); got != "cancelled" {
		t.Fatalf("after confirm: title = %q", got)
	}

	r = e.ok("click", map[string]any{"sessionId": id, "selector": "#prompt"})
	if d, _ := r["dialog"].(map[string]any); d["type"] != "prompt" || d["defaultValue"] != "Bob" {
		t.Fatalf("prompt click: %v", r)
	}
	e.ok("handle_dialog", map[string]any{"sessionId": id, "accept": true, "promptText": "Zed"})
	if got := e.title(id); got != "name=Zed" {
		t.Fatalf("after prompt: title = %q", got)
	}

	// beforeunload needs a user gesture on the page first: the click is one.
	e.ok("click", map[string]any{"sessionId": id, "selector": "#guard"})
	r = e.ok("click", map[string]any{"sessionId": id, "selector": "#leave"})
	if d, _ := r["dialog"].(map[string]any); d["type"] != "beforeunload" {
		t.Fatalf("leaving a guarded page: %v", r)
	}
	r = e.ok("handle_dialog", map[string]any{"sessionId": id, "accept": true})
	if r["url"] == nil || e.title(id) != "Welcome" {
		t.Fatalf("accepting beforeunload: %v, title %q", r, e.title(id))
	}
}

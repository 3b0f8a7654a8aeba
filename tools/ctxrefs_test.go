package tools_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/httpservetest"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/tools"
)

// refTokens lists every [ref=...] of an outline, as peerbench reads them.
var refTokens = regexp.MustCompile(`\[ref=([^\]\s]+)\]`)

// wantRefs checks that every ref of an outline has the shape re, and that
// it has some.
func wantRefs(t *testing.T, outline string, re string) {
	t.Helper()
	refs := refTokens.FindAllStringSubmatch(outline, -1)
	if len(refs) == 0 {
		t.Fatalf("no refs in:\n%s", outline)
	}
	shape := regexp.MustCompile(re)
	for _, r := range refs {
		if !shape.MatchString(r[1]) {
			t.Fatalf("ref %q is not %s in:\n%s", r[1], re, outline)
		}
	}
}

// snapOut takes a snapshot through MCP, with or without a sessionId, and
// returns its structured result after checking that the text the model
// reads ends with the same outline.
func (e *env) snapOut(args map[string]any) map[string]any {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := e.c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "snapshot", Arguments: args}})
	if err != nil || res.IsError {
		e.t.Fatalf("snapshot(%v): %v %v", args, err, res)
	}
	sc, _ := res.StructuredContent.(map[string]any)
	outline, _ := sc["snapshot"].(string)
	text := ""
	if tc, ok := mcp.AsTextContent(res.Content[0]); ok {
		text = tc.Text
	}
	if outline == "" || !strings.HasSuffix(text, outline) {
		e.t.Fatalf("snapshot text %q does not end with structured outline %q", text, outline)
	}
	return sc
}

// TestContextRefs follows the seed's "Parallel operations": snapshots of
// two named contexts hand out refs prefixed with the context's name
// (clean:e1, uk:e2), default's stay plain; a prefixed ref given without
// sessionId acts in its own context, not the active one; a sessionId of
// another context, an unknown prefix and two contexts in one call are
// refused.
func TestContextRefs(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	e.ok("navigate", map[string]any{"url": site.URL + "/form.html"})
	def := e.snapOut(map[string]any{})["snapshot"].(string)
	wantRefs(t, def, `^(f[0-9]+)?e[0-9]+$`)

	uk := e.ok("browser_context_create", map[string]any{"name": "uk"})["sessionId"].(string)
	e.ok("navigate", map[string]any{"url": site.URL + "/form.html"})
	ukOutline := e.snapOut(map[string]any{})["snapshot"].(string)
	wantRefs(t, ukOutline, `^uk:(f[0-9]+)?e[0-9]+$`)
	clean := e.ok("browser_context_create", map[string]any{"name": "clean"})["sessionId"].(string)
	e.ok("navigate", map[string]any{"url": site.URL + "/form.html"})
	cleanOut := e.snapOut(map[string]any{})
	cleanOutline := cleanOut["snapshot"].(string)
	wantRefs(t, cleanOutline, `^clean:(f[0-9]+)?e[0-9]+$`)
	if n := len(refTokens.FindAllString(cleanOutline, -1)); cleanOut["refs"] != float64(n) {
		t.Fatalf("refs = %v, the outline shows %d", cleanOut["refs"], n)
	}

	// clean is active; uk's ref sends the click to uk.
	ukCount := testenv.RefOf(t, ukOutline, "button", "Count")
	if out := e.ok("click", map[string]any{"ref": ukCount}); out["sessionId"] != uk || out["message"] != "Clicked ref "+ukCount {
		t.Fatalf("click on %s ran in %v, want uk's %s: %v", ukCount, out["sessionId"], uk, out)
	}
	if got, want := e.title(uk), "clicked 1"; got != want {
		t.Fatalf("uk's page after the click: %q, want %q", got, want)
	}
	if got := e.title(clean); got != "Sign in" {
		t.Fatalf("clean's page changed: %q", got)
	}
	if active, _ := e.contexts(); active != "clean" {
		t.Fatalf("a prefixed ref changed the active context to %q", active)
	}
	// Its own sessionId (name or id) and a plain ref work as well.
	e.ok("click", map[string]any{"sessionId": "uk", "ref": ukCount})
	e.ok("click", map[string]any{"sessionId": uk, "ref": strings.TrimPrefix(ukCount, "uk:")})
	if got := e.title(uk); got != "clicked 3" {
		t.Fatalf("uk's page after three clicks: %q", got)
	}
	// Other ref arguments: fill's, a snapshot's subtree, drag's source.
	ukUser := testenv.RefOf(t, ukOutline, "textbox", "Username")
	e.ok("fill", map[string]any{"ref": ukUser, "value": "ada"})
	if got := e.title(uk); got != "user=ada" {
		t.Fatalf("uk's page after fill: %q", got)
	}
	sub := e.snapOut(map[string]any{"ref": ukUser})
	if sub["sessionId"] != uk || !strings.Contains(sub["snapshot"].(string), `"ada"`) {
		t.Fatalf("snapshot of %s: %v", ukUser, sub)
	}
	// A cut outline is cut with its prefixes.
	cut := e.snapOut(map[string]any{"sessionId": "uk", "maxChars": 200})
	body, _, _ := strings.Cut(cut["snapshot"].(string), "\n[... truncated")
	if cut["truncated"] != true || len(body) > 200 || !strings.Contains(body, "[ref=uk:") {
		t.Fatalf("snapshot maxChars 200: %v", cut)
	}

	// Refusals, each naming what is wrong.
	bad := e.fail(engine.InvalidParameters, "click", map[string]any{"sessionId": "clean", "ref": ukCount})
	if msg := bad["message"].(string); bad["details"].(map[string]any)["field"] != "ref" || !strings.Contains(msg, `"uk"`) || !strings.Contains(msg, `"clean"`) {
		t.Fatalf("a uk ref with clean's sessionId: %v", bad)
	}
	e.fail(engine.InvalidParameters, "click", map[string]any{"sessionId": "default", "ref": ukCount})
	cleanCount := testenv.RefOf(t, cleanOutline, "button", "Count")
	bad = e.fail(engine.InvalidParameters, "drag_and_drop", map[string]any{"source": ukCount, "target": cleanCount})
	if bad["details"].(map[string]any)["field"] != "target" {
		t.Fatalf("drag across contexts: %v", bad)
	}
	bad = e.fail(engine.SessionNotFound, "click", map[string]any{"ref": "nope:e1"})
	if !strings.Contains(bad["message"].(string), `no context named "nope"`) || bad["details"].(map[string]any)["field"] != "ref" {
		t.Fatalf("an unknown context prefix: %v", bad)
	}
	// An unnamed session's id is no prefix: its refs are plain.
	id := e.session()
	e.fail(engine.SessionNotFound, "click", map[string]any{"ref": id + ":e1"})
	// An error quoting the ref quotes it as given.
	bad = e.fail(engine.ElementNotFound, "click", map[string]any{"ref": "uk:e99999", "timeout": 500})
	if bad["details"].(map[string]any)["ref"] != "uk:e99999" || bad["sessionId"] != uk || !strings.Contains(bad["message"].(string), "ref uk:e99999 ") {
		t.Fatalf("an unknown ref of uk: %v", bad)
	}
	if got := e.title(clean); got != "Sign in" {
		t.Fatalf("clean after the refused calls: %q", got)
	}
	if got := e.title(uk); got != "user=ada" {
		t.Fatalf("uk after the refused calls: %q", got)
	}

	// Names that cannot stand in a ref are refused where they are given.
	for _, name := range []string{"a b", "x:y", "tab\tname", "[x]", strings.Repeat("n", 65)} {
		for _, tool := range []string{"create_session", "browser_context_create"} {
			if body := e.fail(engine.InvalidParameters, tool, map[string]any{"name": name}); body["details"].(map[string]any)["field"] != "name" {
				t.Errorf("%s name %q: %v", tool, name, body)
			}
		}
	}
	// A name given to create_session makes a named context too.
	e.ok("create_session", map[string]any{"name": "de"})
	e.ok("navigate", map[string]any{"sessionId": "de", "url": site.URL + "/form.html"})
	wantRefs(t, e.snapOut(map[string]any{"sessionId": "de"})["snapshot"].(string), `^de:(f[0-9]+)?e[0-9]+$`)
}

// TestContextRefsOtherKey: over HTTP, another API key's context names are
// unknown prefixes, in tools and in the element resource, which takes a
// prefixed ref of its own session only.
func TestContextRefsOtherKey(t *testing.T) {
	s := startHTTP(t, tools.Options{})
	a, b := s.HTTPClient(t, httpservetest.KeyA), s.HTTPClient(t, httpservetest.KeyB)
	ctx := context.Background()
	a.OK("browser_context_create", map[string]any{"name": "mine"})
	a.OK("navigate", map[string]any{"url": site.URL + "/form.html"})
	count := testenv.RefOf(t, a.OK("snapshot", nil)["snapshot"].(string), "button", "Count")
	if !strings.HasPrefix(count, "mine:") {
		t.Fatalf("ref %q of context mine", count)
	}
	b.Fail(engine.SessionNotFound, "click", map[string]any{"ref": count})

	read := func(c *httpservetest.Client, uri string) (string, error) {
		res, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri}})
		if err != nil {
			return "", err
		}
		return res.Contents[0].(mcp.TextResourceContents).Text, nil
	}
	// {ref} expands with ':' percent-encoded (RFC 6570).
	enc := strings.ReplaceAll(count, ":", "%3A")
	text, err := read(a, "browser:///element/mine/0/"+enc)
	var el tools.ElementInfo
	if err != nil || json.Unmarshal([]byte(text), &el) != nil || el.Tag != "button" || el.Text != "Count" {
		t.Fatalf("element %s: %s, %v", count, text, err)
	}
	a.OK("create_session", map[string]any{"name": "other"})
	if _, err := read(a, "browser:///element/other/0/"+enc); err == nil || !strings.Contains(err.Error(), "INVALID_PARAMETERS") {
		t.Fatalf("mine's ref read through session other: %v", err)
	}
	if _, err := read(b, "browser:///element/mine/0/"+enc); err == nil || !strings.Contains(err.Error(), "SESSION_NOT_FOUND") {
		t.Fatalf("key B read key A's element: %v", err)
	}
}

// TestContextRefsInFrames: a frame's refs carry the prefix too (uk:f1e3),
// and a click by one, given without sessionId, reaches the frame of its
// context. Text of the page that looks like a ref is left as it is.
func TestContextRefsInFrames(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	uk := e.ok("browser_context_create", map[string]any{"name": "uk"})["sessionId"].(string)
	e.ok("navigate", map[string]any{"url": site.URL + "/frames.html"})
	e.ok("browser_context_switch", map[string]any{"name": "default"})
	s := e.waitSnap("uk", `button "Inner cross"`)
	wantRefs(t, s, `^uk:(f[0-9]+)?e[0-9]+$`)
	cross := ref(t, s, "button", "Inner cross")
	if !regexp.MustCompile(`^uk:f\d+e\d+$`).MatchString(cross) {
		t.Fatalf("cross-site frame ref %q:\n%s", cross, s)
	}
	e.ok("click", map[string]any{"ref": cross})
	e.waitTitle(uk, "clicked cross")

	// A name and a text that read like refs are the page's, not ours.
	e.ok("evaluate", map[string]any{"sessionId": "uk", "script": `() => {
		const b = document.createElement("button"); b.textContent = "[ref=e1] fake"; document.body.prepend(b);
		const p = document.createElement("p"); p.textContent = "[ref=e2] text"; document.body.prepend(p);
		const l = document.createElement("button"); l.setAttribute("aria-label", "L".repeat(200)); document.body.prepend(l);
	}`})
	s = e.snap("uk", nil)
	// The page's brackets are escaped, and stay without a prefix.
	if !regexp.MustCompile(`- button "\\\[ref=e1\\\] fake" \[ref=uk:e\d+\]\n`).MatchString(s) || !strings.Contains(s, `- paragraph: "\[ref=e2\] text"`+"\n") {
		t.Fatalf("ref-like page text in:\n%s", s)
	}
	// A cut name's mark does not keep its ref from the prefix.
	if !regexp.MustCompile(`- button "L{150}…" \[\+50 chars\] \[ref=uk:e\d+\]\n`).MatchString(s) {
		t.Fatalf("the cut name's ref lacks the prefix:\n%s", s)
	}
}

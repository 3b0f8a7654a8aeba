package tools_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	_ "image/jpeg"
	"image/png"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/tools"
)

func TestHistoryAndReload(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/form.html")
	e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/catalog.html"})
	if out := e.ok("go_back", map[string]any{"sessionId": id}); out["title"] != "Sign in" {
		t.Fatalf("go_back: %v", out)
	}
	if out := e.ok("go_forward", map[string]any{"sessionId": id}); out["title"] != "Catalog" {
		t.Fatalf("go_forward: %v", out)
	}
	body := e.fail(engine.NavigationFailed, "go_forward", map[string]any{"sessionId": id})
	if body["details"].(map[string]any)["reason"] != "no_history" {
		t.Fatalf("forward at the end: %v", body)
	}
	if out := e.ok("reload", map[string]any{"sessionId": id, "ignoreCache": true}); out["title"] != "Catalog" || out["status"].(float64) != 200 {
		t.Fatalf("reload: %v", out)
	}
	if out := e.ok("wait_for_load", map[string]any{"sessionId": id, "state": "networkidle"}); out["title"] != "Catalog" {
		t.Fatalf("wait_for_load: %v", out)
	}
	e.fail(engine.InvalidParameters, "wait_for_load", map[string]any{"sessionId": id, "state": "done"})
}

func TestExtraction(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/catalog.html")
	args := func(kv ...any) map[string]any {
		m := map[string]any{"sessionId": id}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	if out := e.ok("get_text", args("selector", "h1")); out["text"] != "Catalog" {
		t.Fatalf("get_text: %v", out)
	}
	if out := e.ok("get_all_text", args("selector", ".item")); out["count"].(float64) != 3 || out["texts"].([]any)[1] != "Second" {
		t.Fatalf("get_all_text: %v", out)
	}
	if out := e.ok("get_attribute", args("selector", "#head", "name", "data-kind")); out["value"] != "main" || out["exists"] != true {
		t.Fatalf("get_attribute: %v", out)
	}
	if out := e.ok("get_attribute", args("selector", "#head", "name", "nope")); out["value"] != nil || out["exists"] != false {
		t.Fatalf("missing attribute: %v", out)
	}
	if out := e.ok("get_value", args("selector", "#name")); out["value"] != "initial" {
		t.Fatalf("get_value: %v", out)
	}
	out := e.ok("extract_table", args("selector", "#people"))
	rows := out["rows"].([]any)
	if len(rows) != 2 || rows[1].(map[string]any)["Name"] != "Alan" || rows[0].(map[string]any)["Age"] != "36" {
		t.Fatalf("extract_table with header: %v", out)
	}
	out = e.ok("extract_table", args("selector", "#plain"))
	if rows := out["rows"].([]any); len(rows) != 2 || rows[1].([]any)[0] != "c" {
		t.Fatalf("extract_table without header: %v", out)
	}
	e.fail(engine.ElementNotFound, "extract_table", args("selector", "h1"))
	out = e.ok("extract_links", args("selector", "#links"))
	links := out["links"].([]any)
	if len(links) != 3 || links[1].(map[string]any)["href"] != site.URL+"/welcome.html?user=l" || links[0].(map[string]any)["text"] != "Form" {
		t.Fatalf("extract_links: %v", out)
	}
	if out := e.ok("extract_links", args("limit", 1)); out["total"].(float64) != 4 || len(out["links"].([]any)) != 1 {
		t.Fatalf("extract_links page-wide with limit: %v", out)
	}
	out = e.ok("get_page_metadata", args())
	og := out["openGraph"].(map[string]any)
	if out["title"] != "Catalog" || out["lang"] != "en-GB" || out["description"] != "A page with one of everything" ||
		out["canonical"] != site.URL+"/catalog.html" || og["title"] != "Catalog OG" {
		t.Fatalf("get_page_metadata: %v", out)
	}
}

func TestEvaluate(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/catalog.html")
	for script, want := range map[string]any{
		"document.title":                     "Catalog",
		"1 + 2":                              3.0,
		"const a = 20; a * 2":                40.0,
		"await new Promise(r => r('async'))": "async",
		"() => ({n: document.querySelectorAll('.item').length})": map[string]any{"n": 3.0},
		// Expressions that call the function they define run as they are.
		"(() => 1)()":                       1.0,
		"(async () => 42)()":                42.0,
		"(function () { return 'iife' })()": "iife",
	} {
		out := e.ok("evaluate", map[string]any{"sessionId": id, "script": script})
		if got := out["result"]; strings.TrimSpace(strings.ReplaceAll(jsonString(got), " ", "")) != strings.ReplaceAll(jsonString(want), " ", "") {
			t.Errorf("evaluate %q = %v, want %v", script, got, want)
		}
	}
	out := e.ok("evaluate", map[string]any{"sessionId": id, "script": "(a, b) => a + b", "args": []any{2, 5}})
	if out["result"].(float64) != 7 {
		t.Fatalf("function with args: %v", out)
	}
	for script, reason := range map[string]string{
		"throw new Error('boom')":                   "exception",
		"document.body":                             "not_serializable",
		"() => document.body":                       "not_serializable",
		"() => { const o = {}; o.o = o; return o }": "not_serializable",
		"() => { throw new TypeError('x') }":        "exception",
		"this is not js":                            "exception",
		"document.querySelectorAll('.item')":        "not_serializable",
	} {
		body := e.fail(engine.ScriptError, "evaluate", map[string]any{"sessionId": id, "script": script})
		if body["details"].(map[string]any)["reason"] != reason {
			t.Errorf("evaluate %q: %v, want reason %s", script, body, reason)
		}
	}
	e.fail(engine.InvalidParameters, "evaluate", map[string]any{"sessionId": id, "script": "1", "args": []any{1}})
}

func TestElementTools(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/catalog.html")
	out := e.ok("find_element", map[string]any{"sessionId": id, "selector": "#head"})
	if out["tag"] != "h1" || out["text"] != "Catalog" || out["visible"] != true || out["enabled"] != true ||
		out["attributes"].(map[string]any)["data-kind"] != "main" || out["box"].(map[string]any)["width"].(float64) <= 0 {
		t.Fatalf("find_element: %v", out)
	}
	e.fail(engine.ElementNotFound, "find_element", map[string]any{"sessionId": id, "selector": "#none", "timeout": 100})
	out = e.ok("find_elements", map[string]any{"sessionId": id, "selector": ".item", "limit": 2})
	if out["total"].(float64) != 3 || len(out["elements"].([]any)) != 2 {
		t.Fatalf("find_elements: %v", out)
	}
	if out := e.ok("element_exists", map[string]any{"sessionId": id, "selector": "//p[@class='item']"}); out["exists"] != true || out["count"].(float64) != 3 {
		t.Fatalf("element_exists: %v", out)
	}
	if out := e.ok("element_exists", map[string]any{"sessionId": id, "selector": "#none"}); out["exists"] != false {
		t.Fatalf("element_exists none: %v", out)
	}
	if out := e.ok("is_visible", map[string]any{"sessionId": id, "selector": "#later"}); out["value"] != false || out["exists"] != true {
		t.Fatalf("is_visible hidden: %v", out)
	}
	if out := e.ok("is_enabled", map[string]any{"sessionId": id, "selector": "#gone"}); out["value"] != false {
		t.Fatalf("is_enabled disabled: %v", out)
	}
	e.ok("click", map[string]any{"sessionId": id, "selector": "#show"})
	e.ok("wait_for_selector", map[string]any{"sessionId": id, "selector": "#later", "state": "visible"})
	e.ok("click", map[string]any{"sessionId": id, "selector": "#remove"})
	e.ok("wait_for_selector", map[string]any{"sessionId": id, "selector": "#head", "state": "detached", "timeout": 3000})
	body := e.fail(engine.Timeout, "wait_for_selector", map[string]any{"sessionId": id, "selector": "#never", "state": "attached", "timeout": 200})
	if body["details"].(map[string]any)["state"] != "attached" {
		t.Fatalf("wait timeout: %v", body)
	}
	e.fail(engine.InvalidParameters, "wait_for_selector", map[string]any{"sessionId": id, "selector": "#x", "state": "gone"})
	e.fail(engine.InvalidSelector, "get_text", map[string]any{"sessionId": id, "selector": "[[["})
}

func TestFormTools(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/catalog.html")
	e.ok("fill", map[string]any{"sessionId": id, "selector": "#name", "value": "replaced"})
	if out := e.ok("get_value", map[string]any{"sessionId": id, "selector": "#name"}); out["value"] != "replaced" {
		t.Fatalf("fill: %v", out)
	}
	if b := e.fail(engine.ElementNotEditable, "fill", map[string]any{"sessionId": id, "selector": "#gone", "value": "x"}); b["details"].(map[string]any)["reason"] != "disabled" {
		t.Fatalf("fill disabled: %v", b)
	}
	out := e.ok("select", map[string]any{"sessionId": id, "selector": "#color", "values": []any{"Green"}})
	if sel := out["selected"].([]any); len(sel) != 1 || sel[0].(map[string]any)["value"] != "g" {
		t.Fatalf("select by label: %v", out)
	}
	out = e.ok("select", map[string]any{"sessionId": id, "selector": "#many", "values": []any{"1", "Three"}})
	if sel := out["selected"].([]any); len(sel) != 2 {
		t.Fatalf("multi select: %v", out)
	}
	body := e.fail(engine.InvalidParameters, "select", map[string]any{"sessionId": id, "selector": "#color", "values": []any{"purple"}})
	if len(body["details"].(map[string]any)["options"].([]any)) != 3 {
		t.Fatalf("no match lists options: %v", body)
	}
	e.fail(engine.ElementNotEditable, "select", map[string]any{"sessionId": id, "selector": "#name", "values": []any{"x"}})
	// A single select given two values says so, whether or not they exist,
	// and an error lists a few of 300 options, not all.
	body = e.fail(engine.InvalidParameters, "select", map[string]any{"sessionId": id, "selector": "#big", "values": []any{"v1", "v2"}})
	if d := body["details"].(map[string]any); !strings.Contains(body["message"].(string), "selects one option, but 2 values were given") ||
		len(d["options"].([]any)) != 10 || d["optionCount"].(float64) != 300 {
		t.Fatalf("two values for a single select: %v", body)
	}
	body = e.fail(engine.InvalidParameters, "select", map[string]any{"sessionId": id, "selector": "#big", "values": []any{"none"}})
	if b, _ := json.Marshal(body); len(b) > 2000 {
		t.Fatalf("a no-match error on a 300-option select is %d bytes", len(b))
	}
	if v := e.ok("get_value", map[string]any{"sessionId": id, "selector": "#big"})["value"]; v != "v0" {
		t.Fatalf("a refused select changed the value to %v", v)
	}
	// A checked radio cannot be unchecked by a click: uncheck says why.
	body = e.fail(engine.InvalidParameters, "uncheck", map[string]any{"sessionId": id, "selector": "#small"})
	if body["details"].(map[string]any)["reason"] != "radio" {
		t.Fatalf("uncheck a radio: %v", body)
	}
	e.ok("check", map[string]any{"sessionId": id, "selector": "#large"})
	if out := e.ok("get_value", map[string]any{"sessionId": id, "selector": "#small"}); out["checked"] != false {
		t.Fatalf("checking another radio of the group: %v", out)
	}
	e.ok("check", map[string]any{"sessionId": id, "selector": "#agree"})
	if out := e.ok("get_value", map[string]any{"sessionId": id, "selector": "#agree"}); out["checked"] != true {
		t.Fatalf("check: %v", out)
	}
	if out := e.ok("check", map[string]any{"sessionId": id, "selector": "#agree"}); !strings.Contains(out["message"].(string), "already") {
		t.Fatalf("check twice: %v", out)
	}
	e.ok("uncheck", map[string]any{"sessionId": id, "selector": "#agree"})
	if out := e.ok("get_value", map[string]any{"sessionId": id, "selector": "#agree"}); out["checked"] != false {
		t.Fatalf("uncheck: %v", out)
	}
	if b := e.fail(engine.ElementNotClickable, "check", map[string]any{"sessionId": id, "selector": "#stuck"}); b["details"].(map[string]any)["reason"] != "state_unchanged" {
		t.Fatalf("check prevented: %v", b)
	}
	e.fail(engine.ElementNotEditable, "check", map[string]any{"sessionId": id, "selector": "h1"})
	if out := e.ok("scroll", map[string]any{"sessionId": id, "y": 500}); out["scrollY"].(float64) != 500 || out["message"] != "Scrolled by 0,500" {
		t.Fatalf("scroll by: %v", out)
	}
	// Past the page's end the message says how far it really went, and
	// then that it did not move: it said "Scrolled by 0,1000000".
	if out := e.ok("scroll", map[string]any{"sessionId": id, "y": 1000000}); !strings.HasPrefix(out["message"].(string), "Scrolled by 0,") ||
		!strings.Contains(out["message"].(string), "of the 0,1000000 asked: the page's edge stopped it") {
		t.Fatalf("scroll past the end: %v", out)
	}
	if out := e.ok("scroll", map[string]any{"sessionId": id, "y": 300}); !strings.HasPrefix(out["message"].(string), "Did not scroll: the page cannot scroll further that way") {
		t.Fatalf("scroll at the end: %v", out)
	}
	if out := e.ok("scroll", map[string]any{"sessionId": id, "selector": "#bottom"}); out["scrollY"].(float64) <= 500 {
		t.Fatalf("scroll into view: %v", out)
	}
}

func TestScreenshots(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/catalog.html")
	shot := func(name string, args map[string]any) (image.Config, string, map[string]any) {
		t.Helper()
		args["sessionId"] = id
		res, err := e.c.CallTool(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %v", name, err, res)
		}
		meta := decode(t, res)
		img, ok := mcp.AsImageContent(res.Content[len(res.Content)-1])
		if !ok {
			t.Fatalf("%s returned no image content", name)
		}
		b, _ := base64.StdEncoding.DecodeString(img.Data)
		cfg, format, err := image.DecodeConfig(strings.NewReader(string(b)))
		if err != nil {
			t.Fatalf("%s: not an image: %v", name, err)
		}
		if img.MIMEType != "image/"+format || int(meta["bytes"].(float64)) != len(b) {
			t.Fatalf("%s: mime %s for %s, meta %v", name, img.MIMEType, format, meta)
		}
		return cfg, format, meta
	}
	if c, f, _ := shot("screenshot", map[string]any{}); c.Width != 1280 || c.Height != 720 || f != "png" {
		t.Fatalf("viewport shot: %dx%d %s", c.Width, c.Height, f)
	}
	if c, _, _ := shot("screenshot", map[string]any{"fullPage": true}); c.Height <= 3000 {
		t.Fatalf("full page shot is %d high", c.Height)
	}
	if _, f, _ := shot("screenshot", map[string]any{"type": "jpeg", "quality": 50}); f != "jpeg" {
		t.Fatalf("jpeg shot is %s", f)
	}
	if c, _, _ := shot("screenshot_element", map[string]any{"selector": "#people"}); c.Width > 400 || c.Height > 200 {
		t.Fatalf("element shot is %dx%d", c.Width, c.Height)
	}
	e.fail(engine.ElementNotFound, "screenshot_element", map[string]any{"sessionId": id, "selector": "#none"})
	e.fail(engine.InvalidParameters, "screenshot", map[string]any{"sessionId": id, "type": "gif"})
}

func jsonString(v any) string {
	b, _ := jsonMarshal(v)
	return string(b)
}

func TestScreenshotSizeCapRecompresses(t *testing.T) {
	e := newEnvWith(t, sessions.Config{}, tools.Options{MaxScreenshotBytes: 30 << 10})
	id := e.open("/catalog.html")
	res, err := e.c.CallTool(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "screenshot",
		Arguments: map[string]any{"sessionId": id, "fullPage": true}}})
	if err != nil || res.IsError {
		t.Fatalf("capped screenshot failed: %v %v", err, res)
	}
	meta := decode(t, res)
	img, _ := mcp.AsImageContent(res.Content[len(res.Content)-1])
	b, _ := base64.StdEncoding.DecodeString(img.Data)
	if len(b) > 30<<10 || img.MIMEType != "image/jpeg" || !strings.Contains(meta["note"].(string), "cap") {
		t.Fatalf("capped screenshot: %d bytes, %s, %v", len(b), img.MIMEType, meta)
	}
}

// TestScreenshotSizeCapKeepsPNG: the engine encodes a PNG for speed, which
// costs bytes; a PNG over the cap only in that encoding is encoded again
// for size, and stays a PNG of the same pixels, with no note.
func TestScreenshotSizeCapKeepsPNG(t *testing.T) {
	capture := func(e *env, id string) (image.Image, int, map[string]any) {
		t.Helper()
		res, err := e.c.CallTool(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "screenshot",
			Arguments: map[string]any{"sessionId": id}}})
		if err != nil || res.IsError {
			t.Fatalf("screenshot: %v %v", err, res)
		}
		meta := decode(t, res)
		img, _ := mcp.AsImageContent(res.Content[len(res.Content)-1])
		b, _ := base64.StdEncoding.DecodeString(img.Data)
		if img.MIMEType != "image/png" {
			t.Fatalf("screenshot is %s (%d bytes), %v", img.MIMEType, len(b), meta)
		}
		m, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("not a PNG: %v", err)
		}
		return m, len(b), meta
	}
	e := newEnv(t, sessions.Config{})
	fast, n, _ := capture(e, e.open("/catalog.html"))
	// The size encoding is well under 9/10 of the speed one on this page
	// (about 0.6).
	limit := n * 9 / 10
	e = newEnvWith(t, sessions.Config{}, tools.Options{MaxScreenshotBytes: limit})
	small, m, meta := capture(e, e.open("/catalog.html"))
	if m > limit || meta["note"] != nil {
		t.Fatalf("capped at %d (uncapped %d bytes): %d bytes, %v", limit, n, m, meta)
	}
	if !samePixels(fast, small) {
		t.Fatalf("the PNG encoded for size shows other pixels than the one encoded for speed")
	}
}

// samePixels reports whether a and b are the same picture.
func samePixels(a, b image.Image) bool {
	if a.Bounds() != b.Bounds() {
		return false
	}
	for y := a.Bounds().Min.Y; y < a.Bounds().Max.Y; y++ {
		for x := a.Bounds().Min.X; x < a.Bounds().Max.X; x++ {
			r1, g1, b1, a1 := a.At(x, y).RGBA()
			r2, g2, b2, a2 := b.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
				return false
			}
		}
	}
	return true
}

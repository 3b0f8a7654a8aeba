package tools_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
)

// verify.html changes 300 ms after later() is called (through evaluate,
// which does not wait for the page's timers): a status text, a button
// "Done", a list item, the fields' values, the title and the URL.

// short is the timeout of an assertion that must fail: long enough for
// several reads of the page, short next to the tests' patience.
const short = 400

// assertFails calls an assertion that must fail with ASSERTION_FAILED and
// returns its details, which hold expected and actual.
func (e *env) assertFails(name string, args map[string]any) map[string]any {
	e.t.Helper()
	args["timeout"] = short
	body := e.fail(engine.AssertionFailed, name, args)
	d, _ := body["details"].(map[string]any)
	if _, ok := d["expected"]; !ok {
		e.t.Fatalf("%s(%v): ASSERTION_FAILED without expected: %v", name, args, body)
	}
	if _, ok := d["actual"]; !ok {
		e.t.Fatalf("%s(%v): ASSERTION_FAILED without actual: %v", name, args, body)
	}
	msg, _ := body["message"].(string)
	if !strings.Contains(msg, "expected") || !strings.Contains(msg, "the page shows") {
		e.t.Fatalf("%s: the message does not show expected and actual: %q", name, msg)
	}
	return d
}

// passes calls an assertion that must pass, and checks that it says so.
func (e *env) passes(name string, args map[string]any) map[string]any {
	e.t.Helper()
	out := e.ok(name, args)
	if out["success"] != true || out["message"] == "" {
		e.t.Fatalf("%s(%v) = %v, want success with a message", name, args, out)
	}
	return out
}

// later starts verify.html's change, 300 ms from now.
func (e *env) later(id string) {
	e.t.Helper()
	e.ok("evaluate", map[string]any{"sessionId": id, "script": "later()"})
}

// refOf is the ref the page's outline gives the line that matches re.
func (e *env) refOf(id, re string) string {
	e.t.Helper()
	out := e.snapOut(map[string]any{"sessionId": id})
	m := regexp.MustCompile(re + ` \[ref=(e\d+)\]`).FindStringSubmatch(out["snapshot"].(string))
	if m == nil {
		e.t.Fatalf("no ref for %s in the outline:\n%s", re, out["snapshot"])
	}
	return m[1]
}

func TestVerifyElement(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		id := e.open("/verify.html")
		at := func(m map[string]any) map[string]any { m["sessionId"] = id; return m }

		// By role and name, the name's spaces collapsed; by selector.
		e.passes("verify_element", at(map[string]any{"role": "button", "name": "Save"}))
		e.passes("verify_element", at(map[string]any{"role": "heading", "name": "Verify  page"}))
		e.passes("verify_element", at(map[string]any{"role": "listitem"}))
		e.passes("verify_element", at(map[string]any{"selector": "#save"}))
		// Hidden: not rendered, clipped to a pixel, matching nothing.
		e.passes("verify_element", at(map[string]any{"role": "button", "name": "Ghost", "state": "hidden"}))
		e.passes("verify_element", at(map[string]any{"role": "button", "name": "Unseen", "state": "hidden"}))
		e.passes("verify_element", at(map[string]any{"selector": "#ghost", "state": "hidden"}))
		e.passes("verify_element", at(map[string]any{"selector": "#nothing", "state": "hidden"}))

		// False: ASSERTION_FAILED saying what the page shows.
		d := e.assertFails("verify_element", at(map[string]any{"role": "button", "name": "Done"}))
		if d["actual"] != "no element matches" {
			t.Errorf("verify_element button Done: actual = %v, want no element matches", d["actual"])
		}
		d = e.assertFails("verify_element", at(map[string]any{"role": "button", "name": "Save", "state": "hidden"}))
		if a, _ := d["actual"].(string); !strings.Contains(a, `button "Save"`) || !strings.Contains(a, "(visible)") {
			t.Errorf("verify_element button Save hidden: actual = %q, want its visible line", a)
		}
		d = e.assertFails("verify_element", at(map[string]any{"role": "button", "name": "Unseen"}))
		if a, _ := d["actual"].(string); !strings.Contains(a, `button "Unseen"`) || !strings.Contains(a, "(hidden)") {
			t.Errorf("verify_element button Unseen: actual = %q, want its hidden line", a)
		}
		if d = e.assertFails("verify_element", at(map[string]any{"selector": "#save", "state": "hidden"})); d["actual"] != "visible" || d["expected"] != "hidden" {
			t.Errorf("verify_element #save hidden: details = %v", d)
		}
		if d = e.assertFails("verify_element", at(map[string]any{"selector": "#ghost"})); d["actual"] != "hidden" {
			t.Errorf("verify_element #ghost: actual = %v, want hidden", d["actual"])
		}
		if d = e.assertFails("verify_element", at(map[string]any{"selector": "#nothing"})); d["actual"] != "no element matches" {
			t.Errorf("verify_element #nothing: actual = %v", d["actual"])
		}

		// What becomes true within the timeout passes.
		save := e.refOf(id, `button "Save"`)
		e.later(id)
		e.passes("verify_element", at(map[string]any{"role": "button", "name": "Done"}))
		e.passes("verify_element", at(map[string]any{"ref": save, "state": "hidden"}))
		e.passes("verify_element", at(map[string]any{"role": "button", "name": "Save", "state": "hidden"}))
		e.fail(engine.AssertionFailed, "verify_element", at(map[string]any{"ref": save, "timeout": short}))
	})
}

// TestVerifyStaleRef: an assertion on a ref whose element is gone is
// ELEMENT_NOT_FOUND with reason stale_ref, whatever it asserts, even that
// the element is hidden; a ref never given out is ELEMENT_NOT_FOUND too.
func TestVerifyStaleRef(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		id := e.open("/verify.html")
		ref := e.refOf(id, `button "Save"`)
		e.passes("verify_element", map[string]any{"sessionId": id, "ref": ref})
		e.ok("evaluate", map[string]any{"sessionId": id, "script": "document.getElementById('save').remove()"})
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"verify_element", map[string]any{"state": "hidden"}},
			{"verify_element", map[string]any{}},
			{"verify_text", map[string]any{"text": "Save"}},
			{"verify_list", map[string]any{"items": []any{"Save"}}},
			{"verify_value", map[string]any{"value": "Save"}},
		} {
			c.args["sessionId"], c.args["ref"] = id, ref
			body := e.fail(engine.ElementNotFound, c.tool, c.args)
			if d, _ := body["details"].(map[string]any); d["reason"] != "stale_ref" {
				t.Errorf("%s on a stale ref: details = %v, want reason stale_ref", c.tool, body["details"])
			}
		}
		e.fail(engine.ElementNotFound, "verify_element", map[string]any{"sessionId": id, "ref": "e9999", "state": "hidden"})
	})
}

func TestVerifyText(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		id := e.open("/verify.html")
		at := func(m map[string]any) map[string]any { m["sessionId"] = id; return m }

		e.passes("verify_text", at(map[string]any{"text": "Hello world, this"}))
		e.passes("verify_text", at(map[string]any{"regex": `/hello\s+WORLD/i`}))
		e.passes("verify_text", at(map[string]any{"regex": `Banana`}))
		e.passes("verify_text", at(map[string]any{"selector": "#intro", "text": "the verify page"}))
		// Text styled upper case reads as written, as toContainText
		// reads it, and as rendered.
		e.passes("verify_text", at(map[string]any{"text": "Sign in first"}))
		e.passes("verify_text", at(map[string]any{"text": "SIGN IN FIRST"}))
		e.passes("verify_text", at(map[string]any{"selector": "#caps", "regex": "^Sign in"}))

		// Text that is not rendered is not visible text.
		e.assertFails("verify_text", at(map[string]any{"text": "Hidden cherry"}))
		d := e.assertFails("verify_text", at(map[string]any{"text": "Saved!"}))
		if a, _ := d["actual"].(string); !strings.Contains(a, "Hello world, this is the verify page.") || d["expected"] != "Saved!" {
			t.Errorf("verify_text Saved!: details = %v, want the page's text as actual", d)
		}
		d = e.assertFails("verify_text", at(map[string]any{"selector": "#intro", "regex": "^Saved"}))
		if d["actual"] != "Hello world, this is the verify page." {
			t.Errorf("verify_text #intro: actual = %v", d["actual"])
		}
		if d = e.assertFails("verify_text", at(map[string]any{"selector": "#nothing", "text": "x"})); d["actual"] != "no element matches" {
			t.Errorf("verify_text #nothing: actual = %v", d["actual"])
		}

		e.later(id)
		e.passes("verify_text", at(map[string]any{"text": "Saved!"}))
		e.passes("verify_text", at(map[string]any{"selector": "#status", "regex": "^Saved!$"}))

		// Bad input.
		for _, c := range []struct {
			args  map[string]any
			field string
		}{
			{map[string]any{"regex": "(unclosed"}, "regex"},
			{map[string]any{"regex": "/a(/i"}, "regex"},
			{map[string]any{"text": "a", "regex": "a"}, "text"},
			{map[string]any{}, "text"},
			{map[string]any{"text": "a", "selector": "p", "ref": "e1"}, "ref"},
		} {
			body := e.fail(engine.InvalidParameters, "verify_text", at(c.args))
			if d, _ := body["details"].(map[string]any); d["field"] != c.field {
				t.Errorf("verify_text(%v): field = %v, want %s", c.args, d["field"], c.field)
			}
		}
	})
}

func TestVerifyList(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		id := e.open("/verify.html")
		at := func(m map[string]any) map[string]any { m["sessionId"] = id; return m }
		items := func(s ...string) []any {
			out := make([]any, len(s))
			for i, x := range s {
				out[i] = x
			}
			return out
		}

		e.passes("verify_list", at(map[string]any{"selector": "#fruits", "items": items("Apple", "Cherry")}))
		e.passes("verify_list", at(map[string]any{"selector": "#fruits", "items": items("Apple pie", "Banana", "Cherry")}))
		e.passes("verify_list", at(map[string]any{"selector": "#size", "items": items("Small", "Large")}))

		// Out of order, an item that is not rendered, one that is not there.
		for _, want := range [][]any{items("Cherry", "Apple"), items("Hidden cherry"), items("Banana", "Date")} {
			d := e.assertFails("verify_list", at(map[string]any{"selector": "#fruits", "items": want}))
			if got := fmt.Sprint(d["actual"]); got != "[Apple pie Banana Cherry]" {
				t.Errorf("verify_list %v: actual = %v, want the rendered items", want, got)
			}
			if fmt.Sprint(d["expected"]) != fmt.Sprint(want) {
				t.Errorf("verify_list %v: expected = %v", want, d["expected"])
			}
		}
		if d := e.assertFails("verify_list", at(map[string]any{"selector": "#nothing", "items": items("a")})); d["actual"] != "no element matches" {
			t.Errorf("verify_list #nothing: actual = %v", d["actual"])
		}

		e.later(id)
		e.passes("verify_list", at(map[string]any{"selector": "#fruits", "items": items("Banana", "Date")}))

		e.fail(engine.InvalidParameters, "verify_list", at(map[string]any{"selector": "#fruits", "items": items()}))
		e.fail(engine.InvalidParameters, "verify_list", at(map[string]any{"items": items("a")}))
	})
}

func TestVerifyValue(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		id := e.open("/verify.html")
		at := func(m map[string]any) map[string]any { m["sessionId"] = id; return m }
		check := func(sel, value, kind, actual string) {
			t.Helper()
			out := e.passes("verify_value", at(map[string]any{"selector": sel, "value": value}))
			if out["kind"] != kind || out["actual"] != actual {
				t.Errorf("verify_value %s %q: kind %v actual %v, want %s %q", sel, value, out["kind"], out["actual"], kind, actual)
			}
		}
		check("#name", "Ada", "value", "Ada")
		check("#bio", "Line one", "value", "Line one")
		check("#size", "Large", "value", "l")
		check("#size", "l", "value", "l")
		check("#agree", "checked", "checked", "checked")
		check("#news", "false", "checked", "unchecked")
		check("#fast", "true", "checked", "checked")
		check("#editor", "Edit me", "text", "Edit me")

		for _, c := range []struct{ sel, value, actual string }{
			{"#name", "Grace", "Ada"},
			{"#size", "Small", "l"},
			{"#agree", "unchecked", "checked"},
			{"#editor", "Edited", "Edit me"},
			{"#nothing", "x", "no element matches"},
		} {
			d := e.assertFails("verify_value", at(map[string]any{"selector": c.sel, "value": c.value}))
			if d["expected"] != c.value || d["actual"] != c.actual {
				t.Errorf("verify_value %s %q: details = %v, want actual %q", c.sel, c.value, d, c.actual)
			}
		}

		e.later(id)
		check("#name", "Grace", "value", "Grace")
		check("#bio", "Line two", "value", "Line two")
		check("#size", "Small", "value", "s")
		check("#agree", "unchecked", "checked", "unchecked")
		check("#slow", "checked", "checked", "checked")
		check("#fast", "unchecked", "checked", "unchecked")
		check("#editor", "Edited", "text", "Edited")

		body := e.fail(engine.InvalidParameters, "verify_value", at(map[string]any{"selector": "#news", "value": "yes"}))
		if d, _ := body["details"].(map[string]any); d["field"] != "value" {
			t.Errorf("verify_value checkbox yes: details = %v, want field value", body["details"])
		}
		e.fail(engine.ElementNotEditable, "verify_value", at(map[string]any{"selector": "#intro", "value": "x"}))
		e.fail(engine.InvalidParameters, "verify_value", at(map[string]any{"selector": "#name"}))
	})
}

func TestVerifyURLAndTitle(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		id := e.open("/verify.html")
		at := func(m map[string]any) map[string]any { m["sessionId"] = id; return m }
		url := site.URL + "/verify.html"

		e.passes("verify_url", at(map[string]any{"url": url}))
		e.passes("verify_url", at(map[string]any{"regex": `/VERIFY\.html$/i`}))
		e.passes("verify_title", at(map[string]any{"title": "Verify"}))
		e.passes("verify_title", at(map[string]any{"regex": "^Ver"}))

		if d := e.assertFails("verify_url", at(map[string]any{"url": url + "#done"})); d["actual"] != url || d["expected"] != url+"#done" {
			t.Errorf("verify_url: details = %v", d)
		}
		if d := e.assertFails("verify_url", at(map[string]any{"regex": "#done$"})); d["actual"] != url {
			t.Errorf("verify_url regex: details = %v", d)
		}
		if d := e.assertFails("verify_title", at(map[string]any{"title": "Verify: done"})); d["actual"] != "Verify" || d["expected"] != "Verify: done" {
			t.Errorf("verify_title: details = %v", d)
		}

		e.later(id)
		e.passes("verify_url", at(map[string]any{"url": url + "#done"}))
		e.passes("verify_title", at(map[string]any{"title": "Verify:  done"}))
		e.passes("verify_title", at(map[string]any{"regex": "done$"}))

		for _, tool := range []string{"verify_url", "verify_title"} {
			body := e.fail(engine.InvalidParameters, tool, at(map[string]any{"regex": "[a-"}))
			if d, _ := body["details"].(map[string]any); d["field"] != "regex" {
				t.Errorf("%s bad regex: details = %v, want field regex", tool, body["details"])
			}
			e.fail(engine.InvalidParameters, tool, at(map[string]any{}))
		}
		e.fail(engine.InvalidParameters, "verify_url", at(map[string]any{"url": url, "regex": "x"}))
		e.fail(engine.InvalidParameters, "verify_title", at(map[string]any{"title": "Verify", "timeout": 60001}))
	})
}

// TestVerifyKeepsTheView: an assertion reads the page without becoming the
// agent's view of it, so that the next action still answers with all that
// changed since the agent last looked, here a button that appeared while
// verify_element waited for it.
func TestVerifyKeepsTheView(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		id := e.open("/verify.html")
		if view := e.snapshot(id); strings.Contains(view, `button "Done"`) {
			t.Fatalf("the page shows Done before later():\n%s", view)
		}
		e.later(id)
		e.passes("verify_element", map[string]any{"sessionId": id, "role": "button", "name": "Done"})
		e.passes("verify_text", map[string]any{"sessionId": id, "text": "Saved!"})
		_, lines := e.act("check", map[string]any{"sessionId": id, "selector": "#news"})
		if !strings.Contains(lines, `button "Done"`) || !strings.Contains(lines, "Saved!") {
			t.Errorf("check's changes do not hold what appeared since the snapshot:\n%s", lines)
		}
	})
}

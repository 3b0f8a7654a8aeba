package tools_test

import (
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
)

// locatorCases are the elements of testdata/site/locators.html and the
// locator each must get: every strategy, and the fall-through from one to
// the next when a locator would match more than the element.
var locatorCases = []struct {
	name, selector, ts, py, kind string
}{
	{"unique role and name", "button", `page.getByRole('button', { name: 'Save draft' })`,
		`page.get_by_role("button", name="Save draft")`, "role"},
	{"name a substring of another's: exact", `a[href="/docs"]`, `page.getByRole('link', { name: 'Docs', exact: true })`,
		`page.get_by_role("link", name="Docs", exact=True)`, "role"},
	{"the other one", `a[href="/docs/old"]`, `page.getByRole('link', { name: 'Docs (old)' })`,
		`page.get_by_role("link", name="Docs (old)")`, "role"},
	{"two links named alike: CSS path", `a[href="/news/2"]`, `page.locator('#news > a:nth-of-type(2)')`,
		`page.locator("#news > a:nth-of-type(2)")`, "css"},
	{"labelled input: its role and name", "#email", `page.getByRole('textbox', { name: 'Email address' })`,
		`page.get_by_role("textbox", name="Email address")`, "role"},
	{"labelled, no role: label", "[contenteditable]", `page.getByLabel('Comment')`, `page.get_by_label("Comment")`, "label"},
	{"placeholder as the name", "input[type=search]", `page.getByRole('searchbox', { name: 'Search products' })`,
		`page.get_by_role("searchbox", name="Search products")`, "role"},
	{"placeholder only", "input[type=number]", `page.getByPlaceholder('Age')`, `page.get_by_placeholder("Age")`, "placeholder"},
	{"test id", "[data-testid]", `page.getByTestId('cart-total')`, `page.get_by_test_id("cart-total")`, "testid"},
	{"another attribute than the test id's: text", "[data-qa]", `page.getByText('$3.00')`, `page.get_by_text("$3.00")`, "text"},
	{"paragraph: text", "main > p:last-of-type", `page.getByText('Free shipping on orders over $50.')`,
		`page.get_by_text("Free shipping on orders over $50.")`, "text"},
	{"nothing but its place", ".bar > span:nth-of-type(2)", `page.locator('span:nth-of-type(2)')`,
		`page.locator("span:nth-of-type(2)")`, "css"},
	{"a list: its id, not its items' texts run together", "#basket", `page.locator('#basket')`, `page.locator("#basket")`, "css"},
	{"an item with text of its own: text", "#basket > li", `page.getByText('milk (hi)')`, `page.get_by_text("milk (hi)")`, "text"},
	{"a select with no label: its id, not its options' texts", "#size", `page.locator('#size')`, `page.locator("#size")`, "css"},
	{"a textarea with no label: not its first value's text", "textarea", `page.locator('textarea')`, `page.locator("textarea")`, "css"},
	{"a generated id is passed over", "#ember1234 > span", `page.locator('div:nth-of-type(5) > span')`,
		`page.locator("div:nth-of-type(5) > span")`, "css"},
}

// TestGenerateLocator checks generate_locator on every strategy of
// locators.html, on both engines: the exact locator in both languages,
// its parts, and that it is unique.
func TestGenerateLocator(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		id := e.open("/locators.html")
		for _, c := range locatorCases {
			out := e.ok("generate_locator", map[string]any{"sessionId": id, "selector": c.selector})
			if out["locator"] != c.ts || out["python"] != c.py || out["kind"] != c.kind || out["unique"] != true {
				t.Errorf("%s (%s): got %v %v kind=%v unique=%v\nwant %s %s kind=%s unique", c.name, c.selector,
					out["locator"], out["python"], out["kind"], out["unique"], c.ts, c.py, c.kind)
			}
		}
		// A ref names the element as well as a selector does.
		s := e.snap(id, nil)
		out := e.ok("generate_locator", map[string]any{"sessionId": id, "ref": ref(t, s, "button", "Save draft")})
		if out["locator"] != `page.getByRole('button', { name: 'Save draft' })` || out["role"] != "button" || out["name"] != "Save draft" {
			t.Errorf("by ref: %v", out)
		}
	})
}

// TestGenerateLocatorInFrame checks that an element of a same-origin
// iframe gets its frameLocator chain, and is unique in its frame's
// document (the page has a "Save draft" button too).
func TestGenerateLocatorInFrame(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		id := e.open("/locators.html")
		s := e.waitSnap(id, `button "Pay now"`)
		for name, want := range map[string][2]string{
			"Pay now":    {`page.frameLocator('#pay').getByRole('button', { name: 'Pay now' })`, `page.frame_locator("#pay").get_by_role("button", name="Pay now")`},
			"Save draft": {`page.frameLocator('#pay').getByRole('button', { name: 'Save draft' })`, `page.frame_locator("#pay").get_by_role("button", name="Save draft")`},
		} {
			// The "Save draft" after the iframe's line is the frame's.
			i := strings.Index(s, `iframe "Payment"`)
			if i < 0 {
				t.Fatalf("no iframe in:\n%s", s)
			}
			r := ref(t, s[i:], "button", name)
			out := e.ok("generate_locator", map[string]any{"sessionId": id, "ref": r})
			frames, _ := out["frames"].([]any)
			if out["locator"] != want[0] || out["python"] != want[1] || out["unique"] != true || len(frames) != 1 || frames[0] != "#pay" {
				t.Errorf("%s in the frame: %v", name, out)
			}
		}
	})
}

// TestGenerateLocatorCrossOriginFrame checks that an element of a
// cross-origin frame, whose iframe the frame cannot reach, is refused as
// UNSUPPORTED saying why, rather than given a chain that is wrong.
func TestGenerateLocatorCrossOriginFrame(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		id := e.open("/frames.html")
		s := e.waitSnap(id, `button "Inner cross"`)
		body := e.fail(engine.Unsupported, "generate_locator", map[string]any{"sessionId": id, "ref": ref(t, s, "button", "Inner cross")})
		if d, _ := body["details"].(map[string]any); d["reason"] != "cross_origin_frame" {
			t.Errorf("cross-origin frame: %v", body)
		}
		out := e.ok("generate_locator", map[string]any{"sessionId": id, "ref": ref(t, s, "button", "Inner same")})
		if out["locator"] != `page.frameLocator('#same').getByRole('button', { name: 'Inner same' })` {
			t.Errorf("same-origin frame of frames.html: %v", out)
		}
	})
}

// TestGenerateLocatorTestIDAttribute checks that getByTestId follows
// --test-id-attribute: with data-qa, the element that has it gets
// getByTestId, and data-testid is just an attribute.
func TestGenerateLocatorTestIDAttribute(t *testing.T) {
	if err := engine.SetTestIDAttribute("data-qa"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = engine.SetTestIDAttribute(engine.DefaultTestIDAttribute) })
	eachEngine(t, func(t *testing.T, e *env) {
		id := e.open("/locators.html")
		for sel, want := range map[string]string{
			"[data-qa]":     `page.getByTestId('promo')`,
			"[data-testid]": `page.getByText('$12.00')`,
		} {
			if out := e.ok("generate_locator", map[string]any{"sessionId": id, "selector": sel}); out["locator"] != want || out["unique"] != true {
				t.Errorf("%s with --test-id-attribute data-qa: %v, want %s", sel, out, want)
			}
		}
	})
}

// TestGenerateLocatorErrors checks the error paths: a stale ref, a
// selector that matches nothing, and neither or both of selector and ref.
func TestGenerateLocatorErrors(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		id := e.open("/locators.html")
		r := ref(t, e.snap(id, nil), "button", "Save draft")
		e.ok("evaluate", map[string]any{"sessionId": id, "script": "document.querySelector('button').remove()"})
		body := e.fail(engine.ElementNotFound, "generate_locator", map[string]any{"sessionId": id, "ref": r})
		if d, _ := body["details"].(map[string]any); d["reason"] != "stale_ref" {
			t.Errorf("stale ref: %v", body)
		}
		e.fail(engine.ElementNotFound, "generate_locator", map[string]any{"sessionId": id, "selector": "#nothing-here", "timeout": 200})
		e.fail(engine.InvalidParameters, "generate_locator", map[string]any{"sessionId": id})
		e.fail(engine.InvalidParameters, "generate_locator", map[string]any{"sessionId": id, "selector": "button", "ref": r})
	})
}

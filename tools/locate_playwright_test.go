package tools_test

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine/browserpath"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// TestGeneratedLocatorsMatchInPlaywright checks generate_locator against
// Playwright itself: for every element of a few test pages, the locator
// it generates (on Chromium, through the tools) is given to Playwright's
// own engines on another Chromium, which must find that element and
// nothing else; the locators generated on Firefox (engine/pw) too. The page-side checks follow Playwright's rules; this is
// where a difference between them shows.
func TestGeneratedLocatorsMatchInPlaywright(t *testing.T) {
	exe, err := browserpath.FindChromium("", true)
	if err != nil {
		testenv.NoBrowser(t, err)
	}
	pwr, err := playwright.Run(&playwright.RunOptions{DriverDirectory: testenv.PlaywrightDriverDir(), SkipInstallBrowsers: true})
	if err != nil {
		testenv.NoBrowser(t, err)
	}
	t.Cleanup(func() { _ = pwr.Stop() })
	browser, err := pwr.Chromium.Launch(playwright.BrowserTypeLaunchOptions{ExecutablePath: &exe, Headless: playwright.Bool(true), Timeout: playwright.Float(120000)})
	if err != nil {
		t.Fatalf("launching %s through Playwright: %v", exe, err)
	}
	t.Cleanup(func() { _ = browser.Close() })
	page, err := browser.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	page.SetDefaultTimeout(10000)

	eachEngine(t, func(t *testing.T, e *env) {
		pages := []string{"/locators.html", "/form.html", "/roles.html", "/snapshot.html", "/find.html", "/hostile.html",
			"/unseen.html", "/actions.html", "/shadow.html", "/catalog.html"}
		if strings.HasSuffix(t.Name(), "/pw") {
			// Firefox answers more slowly: the pages with the most
			// varied markup.
			pages = []string{"/locators.html", "/roles.html", "/hostile.html", "/shadow.html"}
		}
		matchInPlaywright(t, e, page, pages)
	})
}

// matchInPlaywright generates the locator of every element of the test
// pages with e and checks each in Playwright's page.
func matchInPlaywright(t *testing.T, e *env, page playwright.Page, pages []string) {
	for _, path := range pages {
		id := e.open(path)
		if _, err := page.Goto(site.URL + path); err != nil {
			t.Fatalf("Playwright goto %s: %v", path, err)
		}
		n, err := page.Locator("xpath=//body//*").Count()
		if err != nil || n == 0 {
			t.Fatalf("%s: %d elements, %v", path, n, err)
		}
		for i := 1; i <= n; i++ {
			xp := fmt.Sprintf("(//body//*)[%d]", i)
			out := e.ok("generate_locator", map[string]any{"sessionId": id, "selector": xp})
			if out["unique"] != true {
				t.Errorf("%s %s: %v is not unique", path, xp, out["locator"])
				continue
			}
			same := func(got playwright.ElementHandle) (bool, error) {
				//lint:ignore SA1019 the test compares two elements by identity, which only handles can
				want, err := page.Locator("xpath=" + xp).ElementHandle()
				if err != nil {
					return false, err
				}
				v, err := page.Evaluate("([a, b]) => a === b", []any{got, want})
				return v == true, err
			}
			if msg := matchesInPlaywright(page, out, same); msg != "" {
				t.Errorf("%s %s: %s: %s", path, xp, out["locator"], msg)
			}
		}
		if path == "/shadow.html" {
			matchShadowRefs(t, e, id, page)
		}
	}
}

// matchShadowRefs checks the locators of the elements in shadow roots,
// which XPath does not reach: by every ref of the outline, told apart in
// Playwright's page by what find_element says of them.
func matchShadowRefs(t *testing.T, e *env, id string, page playwright.Page) {
	refs := regexp.MustCompile(`\[ref=(e\d+)\]`).FindAllStringSubmatch(e.snap(id, nil), -1)
	if len(refs) < 4 {
		t.Fatalf("shadow.html: %d refs", len(refs))
	}
	for _, m := range refs {
		out := e.ok("generate_locator", map[string]any{"sessionId": id, "ref": m[1]})
		if out["unique"] != true {
			t.Errorf("shadow.html %s: %v is not unique", m[1], out["locator"])
			continue
		}
		info := e.ok("find_element", map[string]any{"sessionId": id, "ref": m[1]})
		want, _ := json.Marshal(map[string]any{"tag": info["tag"], "attributes": info["attributes"], "text": info["text"]})
		same := func(got playwright.ElementHandle) (bool, error) {
			v, err := got.Evaluate(`el => { const attrs = {}; for (const a of el.attributes) attrs[a.name] = a.value;
				return JSON.stringify({attributes: attrs, tag: el.tagName.toLowerCase(), text: (el.innerText ?? el.textContent ?? "").trim().slice(0, 200)}); }`)
			if err != nil {
				return false, err
			}
			// Compared as JSON values: attributes in any order.
			var g, w any
			if s, _ := v.(string); json.Unmarshal([]byte(s), &g) != nil || json.Unmarshal(want, &w) != nil {
				return false, fmt.Errorf("undecodable description %v", v)
			}
			return reflect.DeepEqual(g, w), nil
		}
		if msg := matchesInPlaywright(page, out, same); msg != "" {
			t.Errorf("shadow.html %s (%s): %s: %s", m[1], want, out["locator"], msg)
		}
	}
}

// matchesInPlaywright builds the locator of a generate_locator result with
// Playwright's API and says what is wrong if it does not find exactly one
// element, the one same says it is ("" if it does).
func matchesInPlaywright(page playwright.Page, out map[string]any, same func(playwright.ElementHandle) (bool, error)) string {
	root := page.Locator(":root")
	if fs, _ := out["frames"].([]any); len(fs) > 0 {
		return "a frame chain on the page itself"
	}
	s := func(k string) string { v, _ := out[k].(string); return v }
	exact := playwright.Bool(out["exact"] == true)
	var l playwright.Locator
	switch s("kind") {
	case "role":
		l = root.GetByRole(playwright.AriaRole(s("role")), playwright.LocatorGetByRoleOptions{Name: s("name"), Exact: exact})
	case "label":
		l = root.GetByLabel(s("value"), playwright.LocatorGetByLabelOptions{Exact: exact})
	case "placeholder":
		l = root.GetByPlaceholder(s("value"), playwright.LocatorGetByPlaceholderOptions{Exact: exact})
	case "testid":
		l = root.GetByTestId(s("value"))
	case "text":
		l = root.GetByText(s("value"), playwright.LocatorGetByTextOptions{Exact: exact})
	case "css":
		l = root.Locator(s("value"))
	default:
		return "unknown kind"
	}
	if nth, _ := out["nth"].(float64); nth > 0 {
		l = l.Nth(int(nth))
	}
	n, err := l.Count()
	if err != nil {
		return err.Error()
	}
	if n != 1 {
		return fmt.Sprintf("Playwright finds %d elements", n)
	}
	//lint:ignore SA1019 the test compares two elements by identity, which only handles can
	got, err := l.ElementHandle()
	if err != nil {
		return "its element: " + err.Error()
	}
	ok, err := same(got)
	if err != nil {
		return err.Error()
	}
	if !ok {
		return "Playwright finds another element"
	}
	return ""
}

package tools_test

import (
	"fmt"
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
			pages = []string{"/locators.html", "/roles.html", "/hostile.html"}
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
			if msg := matchesInPlaywright(page, out, xp); msg != "" {
				t.Errorf("%s %s: %s: %s", path, xp, out["locator"], msg)
			}
		}
	}
}

// matchesInPlaywright builds the locator of a generate_locator result with
// Playwright's API and says what is wrong if it does not find exactly the
// element xp names ("" if it does).
func matchesInPlaywright(page playwright.Page, out map[string]any, xp string) string {
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
	got, err := l.ElementHandle()
	if err != nil {
		return "its element: " + err.Error()
	}
	want, err := page.Locator("xpath=" + xp).ElementHandle()
	if err != nil {
		return "the element: " + err.Error()
	}
	same, err := page.Evaluate("([a, b]) => a === b", []any{got, want})
	if err != nil {
		return err.Error()
	}
	if same != true {
		return "Playwright finds another element"
	}
	return ""
}

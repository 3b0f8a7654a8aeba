package cdp

import (
	"context"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// TestSnapshotRefsEveryInteractive counts, inside the page, every element an
// agent can act on and checks that the full snapshot gave each a ref: links
// with an href, buttons, inputs, selects (and their options), textareas,
// contenteditable elements, elements with an interactive ARIA role, and
// elements with a click handler, whether an onclick attribute or property or
// a listener added with addEventListener (found with the DevTools
// command-line API's getEventListeners, in the page's own world); of those,
// the ones that are visible and enabled. (This file is inside the package
// to reach the page and the ref registry.)
func TestSnapshotRefsEveryInteractive(t *testing.T) {
	e := newTestEngine(t)
	site := testsite.Start()
	defer site.Close()
	ctx := context.Background()
	for _, page := range []string{
		"/peerbench/large.html", "/peerbench/large-gen.html", "/peerbench/login.html", "/peerbench/frames.html",
		"/snapshot.html", "/form.html", "/input.html", "/catalog.html", "/dialogs.html", "/covered.html", "/jslink.html",
		"/tabs.html", "/settle.html", "/mutate.html",
	} {
		t.Run(page, func(t *testing.T) {
			s := openTestTab(t, e, engine.Viewport{Width: 1280, Height: 720}, site.URL+page)
			if _, err := s.Snapshot(ctx, engine.SnapshotRequest{}); err != nil {
				t.Fatal(err)
			}
			var res struct {
				Total    int
				Handlers int
				Missing  []string
			}
			err := s.run(ctx, "check refs", func(ctx context.Context, tg *chromedp.Target) error {
				// The elements with click listeners, by their index in
				// document order: the page's world holds the listeners.
				r, err := cdp.Call(ctx, tg, runtime.Evaluate, runtime.EvaluateParams{
					Expression: `[...document.querySelectorAll("*")].flatMap((el, i) => {
						const ls = getEventListeners(el);
						return ["click", "mousedown", "mouseup", "pointerdown", "pointerup", "dblclick"].some((k) => ls[k] && ls[k].length) ? [i] : [];
					})`,
					IncludeCommandLineAPI: new(true), ReturnByValue: new(true),
				})
				if err := decodeResult(r.Result, r.ExceptionDetails, err, nil); err != nil {
					return err
				}
				return s.evalIn(ctx, &world{t: tg}, `((handlers) => {
					const R = window.__bmcp, all = [...document.querySelectorAll("*")], missing = [];
					const withHandler = new Set(handlers.map((i) => all[i]));
					const ROLES = new Set(["link", "button", "checkbox", "radio", "textbox", "searchbox", "combobox", "listbox", "option",
						"menuitem", "menuitemcheckbox", "menuitemradio", "tab", "switch", "slider", "spinbutton", "treeitem"]);
					const acts = (el) => el.matches("a[href], area[href], button, input:not([type=hidden]), select, option, textarea, [onclick], [contenteditable]:not([contenteditable=false])") ||
						el.onclick || withHandler.has(el) || ROLES.has((el.getAttribute("role") || "").trim().split(/\s+/)[0]);
					const enabled = (el) => !el.matches(":disabled") && el.getAttribute("aria-disabled") !== "true";
					// Options of a closed select are not rendered, yet the
					// snapshot lists them: they count when their select does.
					const shown = (el) => el.localName === "option" ? el.closest("select").checkVisibility({ visibilityProperty: true }) :
						el.checkVisibility({ visibilityProperty: true });
					const els = all.filter((el) => acts(el) && shown(el) && enabled(el) && !el.closest("[aria-hidden=true]"));
					for (const el of els) if (!R.ids.has(el)) missing.push(el.outerHTML.slice(0, 120));
					return { total: els.length, handlers: els.filter((el) => withHandler.has(el)).length, missing };
				})(`+string(r.Result.Value)+`)`, &res)
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Total == 0 || len(res.Missing) > 0 {
				t.Fatalf("%d of %d interactive elements have no ref: %q", len(res.Missing), res.Total, res.Missing)
			}
			t.Logf("%d interactive elements (%d with click listeners), all with refs", res.Total, res.Handlers)
		})
	}
}

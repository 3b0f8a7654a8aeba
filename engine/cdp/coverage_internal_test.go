package cdp

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// TestSnapshotRefsEveryInteractive checks, inside the page, that every
// visible link, button, input, select, option, textarea and element with an
// onclick handler got a ref from the snapshot. (This file is inside the
// package to reach the page.)
func TestSnapshotRefsEveryInteractive(t *testing.T) {
	e := newTestEngine(t)
	site := testsite.Start()
	defer site.Close()
	ctx := context.Background()
	for _, page := range []string{"/snapshot.html", "/form.html", "/peerbench/large.html", "/peerbench/large-gen.html", "/peerbench/login.html"} {
		t.Run(page, func(t *testing.T) {
			s := openTestTab(t, e, engine.Viewport{Width: 1280, Height: 720}, site.URL+page)
			if _, err := s.Snapshot(ctx, engine.SnapshotRequest{}); err != nil {
				t.Fatal(err)
			}
			var res struct {
				Total   int
				Missing []string
			}
			err := s.run(ctx, "check refs", func(ctx context.Context, tg *chromedp.Target) error {
				return s.evalIn(ctx, &world{t: tg}, `(() => {
					const R = window.__bmcp, missing = [];
					const els = [...document.querySelectorAll('a[href], button, input:not([type=hidden]), select, option, textarea, [onclick]')]
						.filter((el) => (el.localName === 'option' || el.checkVisibility({ visibilityProperty: true })) && !el.closest('[aria-hidden=true]'));
					for (const el of els) if (!R.ids.has(el)) missing.push(el.outerHTML.slice(0, 120));
					return { total: els.length, missing };
				})()`, &res)
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Total == 0 || len(res.Missing) > 0 {
				t.Fatalf("%d of %d interactive elements have no ref: %q", len(res.Missing), res.Total, res.Missing)
			}
			t.Logf("%d interactive elements, all with refs", res.Total)
		})
	}
}

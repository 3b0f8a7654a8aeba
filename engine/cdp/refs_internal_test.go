package cdp

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/page"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// TestRefCounterOutlivesLostWalks checks that the page's ref registry only
// counts up: a walk whose answer the engine never read (a call cancelled
// after the script ran) gave refs to elements the engine's counter does not
// know of, and the next snapshot must not give those numbers out again.
func TestRefCounterOutlivesLostWalks(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := openTestTab(t, newTestEngine(t), engine.Viewport{Width: 1280, Height: 720}, site.URL+"/mutate.html")
	ctx := context.Background()
	if _, err := s.Snapshot(ctx, engine.SnapshotRequest{}); err != nil {
		t.Fatal(err)
	}
	// A new element, then a walk that gives it a ref nobody hears of.
	err := s.run(ctx, "lose a walk", func(ctx context.Context, tg *chromedp.Target) error {
		if err := evalJSON(ctx, tg, "prepend()", nil); err != nil {
			return err
		}
		a, _ := json.Marshal(page.SnapshotArgs{Next: s.refs.next})
		return evalJSON(ctx, tg, "("+page.SnapshotScript()+").call(null, "+string(a)+")", nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	// Another new element, then a snapshot: every ref it shows is its own.
	if err := s.run(ctx, "add", func(ctx context.Context, tg *chromedp.Target) error { return evalJSON(ctx, tg, "prepend()", nil) }); err != nil {
		t.Fatal(err)
	}
	r, err := s.Snapshot(ctx, engine.SnapshotRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var ns []int
	for _, m := range regexp.MustCompile(`\[ref=e([0-9]+)\]`).FindAllStringSubmatch(r.Text, -1) {
		n, _ := strconv.Atoi(m[1])
		if slices.Contains(ns, n) {
			t.Fatalf("ref number %d given out twice:\n%s", n, r.Text)
		}
		ns = append(ns, n)
	}
}

// TestClosedTabAnswersAtOnce: when the tab's page is closed behind the
// engine's back (by the user, or by the site), element tools and snapshots
// answer BROWSER_CRASHED at once rather than retrying until their timeout.
func TestClosedTabAnswersAtOnce(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := openTestTab(t, newTestEngine(t), engine.Viewport{Width: 1280, Height: 720}, site.URL+"/form.html")
	ctx := context.Background()
	id := chromedp.FromContext(s.tab).Target.TargetID
	if _, err := chromedp.CallBrowser(s.b.ctx, target.CloseTarget, target.CloseTargetParams{TargetID: id}); err != nil {
		t.Fatal(err)
	}
	// The timeouts are long: a call that waits for them has failed the test.
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	_, err := s.Click(cctx, engine.ClickRequest{Target: engine.Target{Selector: "#count"}, Timeout: 15 * time.Second}.WithDefaults())
	var ee *engine.Error
	if !errors.As(err, &ee) || ee.Code != engine.BrowserCrashed {
		t.Fatalf("Click on a closed tab = %v; want BROWSER_CRASHED", err)
	}
	if _, err := s.Snapshot(cctx, engine.SnapshotRequest{}); !errors.As(err, &ee) || ee.Code != engine.BrowserCrashed {
		t.Fatalf("Snapshot of a closed tab = %v; want BROWSER_CRASHED", err)
	}
}

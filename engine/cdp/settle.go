package cdp

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/page"
)

// installSettle adds engine/page's settle tracker to every document the tab
// loads from now on, before the page's scripts, and to the one it shows
// (a popup's first document ran before the tab was followed: its timers
// from before are not seen).
func installSettle(ctx context.Context, t *chromedp.Target) error {
	_, err := cdp.Call(ctx, t, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{
		Source: page.SettleInitScript(), RunImmediately: new(true),
	})
	return err
}

// settleDOM waits, bounded by until, for the page work the action set off
// (engine/page's settle tracker: its short timers, animation frames and DOM
// changes). A dialog it opens ends the wait (opened). The wait is part of
// settling, not of the action: a page that fails it (frozen, or navigating
// away) only ends it, and only ctx's end is an error.
func (s *session) settleDOM(ctx context.Context, t *chromedp.Target, m mark, until time.Time) (opened bool, err error) {
	left := time.Until(until)
	if left < 0 {
		left = 0
	}
	expr := page.SettleScript(left)
	dctx, cancel := context.WithTimeout(ctx, left+engine.CallGrace)
	defer cancel()
	opened, err = s.raceDialog(dctx, m, func(ctx context.Context) error {
		var out page.SettleOutcome
		return evalJSON(ctx, t, expr, &out)
	})
	if err != nil && ctx.Err() == nil {
		err = nil
	}
	return opened, err
}

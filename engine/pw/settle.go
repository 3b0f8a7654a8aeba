package pw

import (
	"context"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/page"
)

// installSettle adds engine/page's settle tracker to every document of the
// browser context, its popups' too, before the page's scripts.
// Where the browser's file choosers are reported (not Firefox, see
// chooser.go), it adds the count of file inputs clicked too.
func installSettle(bctx playwright.BrowserContext, choosers bool) error {
	if err := bctx.AddInitScript(playwright.Script{Content: playwright.String(page.SettleInitScript())}); err != nil {
		return err
	}
	if !choosers {
		return nil
	}
	return bctx.AddInitScript(playwright.Script{Content: playwright.String(pickScript)})
}

// settleDOM waits, bounded by until, for the page work the action set off
// (engine/page's settle tracker: its short timers, animation frames and DOM
// changes). The wait is part of settling, not of the action: a page that
// fails it (frozen, or navigating away) only ends it, and only ctx's end is
// an error.
func (s *session) settleDOM(ctx context.Context, until time.Time) error {
	left := max(time.Until(until), 0)
	dctx, cancel := context.WithTimeout(ctx, left+engine.CallGrace)
	defer cancel()
	// The same round trip reads (and resets) the page's count of file
	// inputs clicked (pickScript), for settle to wait for their choosers.
	expr := "Promise.resolve(" + page.SettleScript(left) + ").then(() => " + pickedExpr + ")"
	_ = do(dctx, func() error {
		v, err := s.page.MainFrame().Evaluate(expr)
		switch n := v.(type) {
		case int:
			s.picked = s.picked || n > 0
		case float64:
			s.picked = s.picked || n > 0
		}
		return err
	})
	return ctx.Err()
}

// beginSettle makes what a script that acts like a user sets off the
// action's, as input events do (engine.EvalRequest.Settle).
func (s *session) beginSettle(ctx context.Context, frame bool) error {
	return do(ctx, func() error { _, err := s.page.MainFrame().Evaluate(page.SettleBeginScript(frame)); return err })
}

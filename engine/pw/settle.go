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
func installSettle(bctx playwright.BrowserContext) error {
	return bctx.AddInitScript(playwright.Script{Content: playwright.String(page.SettleInitScript())})
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
	expr := page.SettleScript(left)
	_ = do(dctx, func() error { _, err := s.page.MainFrame().Evaluate(expr); return err })
	return ctx.Err()
}

// beginSettle makes what a script that acts like a user sets off the
// action's, as input events do (engine.EvalRequest.Settle).
func (s *session) beginSettle(ctx context.Context, frame bool) error {
	return do(ctx, func() error { _, err := s.page.MainFrame().Evaluate(page.SettleBeginScript(frame)); return err })
}

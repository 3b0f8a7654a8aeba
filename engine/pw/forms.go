package pw

import (
	"context"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/page"
)

// The form actions run engine/page's scripts through evalAction, which
// settles them as actions; engine/cdp runs the same ones.

func (s *session) Fill(ctx context.Context, req engine.FillRequest) (engine.ActionResult, error) {
	return page.Fill(ctx, s.evalAction, req)
}

func (s *session) Select(ctx context.Context, req engine.SelectRequest) (engine.SelectResult, error) {
	return page.Select(ctx, s.evalAction, req)
}

func (s *session) SetChecked(ctx context.Context, req engine.CheckRequest) (engine.CheckResult, error) {
	return page.SetChecked(ctx, s.evalAction, s.Click, req)
}

func (s *session) Scroll(ctx context.Context, req engine.ScrollRequest) (engine.ScrollResult, error) {
	return page.Scroll(ctx, s.evalAction, req)
}

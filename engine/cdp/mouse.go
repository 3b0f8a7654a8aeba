package cdp

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Mouse clicks, moves or drags at viewport coordinates.
func (s *session) Mouse(ctx context.Context, req engine.MouseRequest) (engine.ActionResult, error) {
	btn := input.MouseButton(req.Button)
	var res engine.ActionResult
	err := s.run(ctx, fmt.Sprintf("%s the mouse at %.0f,%.0f", req.Action, req.X, req.Y), func(ctx context.Context, t *chromedp.Target) error {
		var vp struct{ W, H float64 }
		if err := evalJSON(ctx, t, "({W: innerWidth, H: innerHeight})", &vp); err != nil {
			return err
		}
		if err := req.InViewport(vp.W, vp.H); err != nil {
			return err
		}
		m := s.st.mark()
		var err error
		res, err = s.act(ctx, t, m, func(ctx context.Context) error {
			switch req.Action {
			case "move":
				_, err := cdp.Call(ctx, t, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: req.X, Y: req.Y})
				return err
			case "click":
				return mouseClick(ctx, t, req.X, req.Y, btn, req.ClickCount)
			default:
				_, err := chromedp.DragAndDropXY(req.X, req.Y, req.ToX, req.ToY)(ctx, t)
				return err
			}
		})
		return err
	})
	return res, err
}

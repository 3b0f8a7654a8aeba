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
	switch btn {
	case "":
		btn = input.MouseButtonLeft
	case input.MouseButtonLeft, input.MouseButtonRight, input.MouseButtonMiddle:
	default:
		return engine.ActionResult{}, engine.Errorf(engine.InvalidParameters, "button must be left, right or middle, not %q", req.Button).With("field", "button")
	}
	if req.ClickCount <= 0 {
		req.ClickCount = 1
	}
	switch req.Action {
	case "click", "move", "drag":
	default:
		return engine.ActionResult{}, engine.Errorf(engine.InvalidParameters, "mouse action must be click, move or drag, not %q", req.Action).With("field", "action")
	}
	var res engine.ActionResult
	err := s.run(ctx, fmt.Sprintf("%s the mouse at %.0f,%.0f", req.Action, req.X, req.Y), func(ctx context.Context, t *chromedp.Target) error {
		var vp struct{ W, H float64 }
		if err := evalJSON(ctx, t, "({W: innerWidth, H: innerHeight})", &vp); err != nil {
			return err
		}
		for _, p := range [][2]float64{{req.X, req.Y}, {req.ToX, req.ToY}} {
			if p[0] < 0 || p[1] < 0 || p[0] >= vp.W || p[1] >= vp.H {
				return engine.Errorf(engine.InvalidParameters, "point %.0f,%.0f is outside the %.0fx%.0f viewport", p[0], p[1], vp.W, vp.H).
					With("field", "x").With("viewport", map[string]float64{"width": vp.W, "height": vp.H})
			}
			if req.Action != "drag" {
				break
			}
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

package cdp

import (
	"context"
	"encoding/json"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/page"
)

// Hover moves the mouse to the element's visible centre after the same
// checks as a click.
func (s *session) Hover(ctx context.Context, req engine.HoverRequest) (engine.ActionResult, error) {
	var res engine.ActionResult
	err := s.run(ctx, "hover over "+req.Target.String(), func(ctx context.Context, t *chromedp.Target) (err error) {
		m := s.st.mark()
		r, w, err := s.resolveFor(ctx, t, m, "point", req.Target, req.Timeout, false, false, page.GuardHover)
		if err != nil {
			return err
		}
		g := &guardEnd{s: s, w: w}
		defer func() { g.drop(ctx, err) }()
		res, err = s.act(ctx, t, m, func(ctx context.Context) error {
			if _, err := cdp.Call(ctx, t, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: r.X, Y: r.Y}); err != nil {
				return err
			}
			return page.HitError(g.hit(ctx), req.Target, "hover")
		})
		return err
	})
	return res, err
}

// Drag presses the mouse on the source, moves to the target in steps and
// releases; pages that use HTML5 drag and drop get a real drag session.
func (s *session) Drag(ctx context.Context, req engine.DragRequest) (engine.ActionResult, error) {
	var res engine.ActionResult
	err := s.run(ctx, "drag "+req.Source.String(), func(ctx context.Context, t *chromedp.Target) (err error) {
		m := s.st.mark()
		from, w, err := s.resolveFor(ctx, t, m, "point", req.Source, req.Timeout, false, false, page.GuardDown)
		if err != nil {
			return err
		}
		g := &guardEnd{s: s, w: w}
		defer func() { g.drop(ctx, err) }()
		// Point at the target without scrolling the source away: both must
		// be in view at once for a drag. The target must hold still too.
		to, _, err := s.resolveFor(ctx, t, m, "point", req.Target, req.Timeout, true, false, page.GuardDrop)
		if err != nil {
			return err
		}
		if err := evalJSON(ctx, t, "0", nil); err != nil {
			return err
		}
		res, err = s.act(ctx, t, m, func(ctx context.Context) error {
			_, err := chromedp.DragAndDropXY(from.X, from.Y, to.X, to.Y)(ctx, t)
			if err == chromedp.ErrDragOutsideViewport {
				return engine.Errorf(engine.ElementNotClickable, "%s and %s are not both in the viewport", req.Source, req.Target).
					With("reason", "outside_viewport")
			}
			if err != nil {
				return err
			}
			return page.HitError(g.hit(ctx), req.Source, "drag")
		})
		return err
	})
	return res, err
}

// Upload sets the files of an <input type=file> and fires its events.
func (s *session) Upload(ctx context.Context, req engine.UploadRequest) (engine.ActionResult, error) {
	if req.Target.IsZero() {
		return s.answerChooser(ctx, req)
	}
	var res engine.ActionResult
	err := s.run(ctx, "upload to "+req.Target.String(), func(ctx context.Context, t *chromedp.Target) error {
		m := s.st.mark()
		obj, err := s.elementObject(ctx, t, req.Target, req.Timeout,
			`el => el.tagName === "INPUT" && el.type === "file" ? (el.disabled ? "disabled" : el.multiple ? "multiple" : "single") : "not_a_file_input"`)
		if err != nil {
			return err
		}
		defer cdp.Call(ctx, obj.t, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: obj.id})
		switch {
		case obj.check == "not_a_file_input" || obj.check == "disabled":
			return engine.Errorf(engine.ElementNotEditable, "%s is not an enabled file input", req.Target).With("reason", obj.check)
		case obj.check == "single" && len(req.Files) > 1:
			return engine.Errorf(engine.InvalidParameters, "%s takes one file, got %d", req.Target, len(req.Files)).With("field", "files")
		}
		res, err = s.act(ctx, t, m, func(ctx context.Context) error {
			_, err := cdp.Call(ctx, obj.t, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: req.Files, ObjectID: obj.id})
			return err
		})
		return err
	})
	return res, err
}

type elemObject struct {
	id    runtime.RemoteObjectID
	t     *chromedp.Target // the target (page or frame) that owns id
	check string
}

// elementObject finds the target (waiting up to timeout, like every element
// tool) and returns a handle to it with the result of check(el).
func (s *session) elementObject(ctx context.Context, t *chromedp.Target, tg engine.Target, timeout time.Duration, check string) (elemObject, error) {
	if tg.Ref != "" {
		w, obj, err := s.refObject(ctx, t, tg.Ref)
		if err != nil {
			return elemObject{}, err
		}
		out := elemObject{id: obj, t: w.t}
		if err := callOn(ctx, w.t, obj, "function() { return ("+check+")(this) }", nil, &out.check); err != nil {
			return elemObject{}, err
		}
		return out, nil
	}
	// Wait for presence with the shared in-page lookup, then take a handle.
	if _, err := s.evalOn(ctx, t, engine.EvalRequest{Target: &tg, Timeout: timeout, Function: "el => true"}); err != nil {
		return elemObject{}, err
	}
	kind, expr := engine.ParseSelector(tg.Selector)
	q, _ := json.Marshal(expr)
	k := `"css"`
	if kind == engine.XPath {
		k = `"xpath"`
	}
	find := "(" + page.QueryScript() + ")(" + k + ", " + string(q) + ", false)"
	res, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: find})
	if err != nil {
		return elemObject{}, err
	}
	if res.Result == nil || res.Result.ObjectID == "" {
		return elemObject{}, page.ElementError(page.ElementCheck{Error: "not_found"}, tg, timeout)
	}
	c, err := cdp.Call(ctx, t, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: "function() { return (" + check + ")(this) }", ObjectID: res.Result.ObjectID, ReturnByValue: new(true)})
	if err != nil {
		return elemObject{}, err
	}
	out := elemObject{id: res.Result.ObjectID, t: t}
	json.Unmarshal(c.Result.Value, &out.check)
	return out, nil
}

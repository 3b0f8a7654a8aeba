package pw

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/page"
)

// element waits for the target with engine/page's eval script (so that a
// missing element or a bad selector fails as in engine/cdp), runs check on
// it, and returns a handle to the same element with check's answer.
func (s *session) element(ctx context.Context, tg engine.Target, timeout time.Duration, check string) (playwright.ElementHandle, string, error) {
	if tg.Ref != "" {
		return s.refElement(ctx, tg.Ref, check)
	}
	v, err := s.Evaluate(ctx, engine.EvalRequest{Target: &tg, Timeout: timeout, Function: check})
	if err != nil {
		return nil, "", err
	}
	var out string
	_ = json.Unmarshal(v, &out)
	kind, expr := engine.ParseSelector(tg.Selector)
	find := "([k, s]) => (" + page.QueryScript() + ")(k, s, false)"
	k := "css"
	if kind == engine.XPath {
		k = "xpath"
	}
	h, err := call(ctx, func() (playwright.JSHandle, error) { return s.page.EvaluateHandle(find, []string{k, expr}) },
		func(h playwright.JSHandle) { _ = h.Dispose() })
	if err != nil {
		return nil, "", s.classify(err, "find "+tg.String())
	}
	el := h.AsElement()
	if el == nil {
		go func() { _ = h.Dispose() }()
		return nil, "", page.ElementError(page.ElementCheck{Error: "not_found"}, tg, timeout)
	}
	return el, out, nil
}

// Hover moves the mouse to the element's visible centre after the same
// checks as a click.
func (s *session) hoverAction(ctx context.Context, req engine.HoverRequest) (_ engine.ActionResult, err error) {
	if err := s.alive(); err != nil {
		return engine.ActionResult{}, err
	}
	what := "hover over " + req.Target.String()
	m := s.st.mark()
	_, pt, err := s.resolve(ctx, "point", req.Target, req.Timeout, false, false, page.GuardHover)
	if err != nil {
		return engine.ActionResult{}, err
	}
	g := &guardEnd{s: s, tg: req.Target}
	defer func() { g.drop(ctx, err) }()
	err = do(ctx, func() error { return s.page.Mouse().Move(pt.X, pt.Y) })
	if err != nil {
		return engine.ActionResult{}, s.actionErr(err, what, req.Target)
	}
	h := g.hit(ctx)
	if err := page.HitError(h, req.Target, "hover"); err != nil {
		return engine.ActionResult{}, err
	}
	if h.None {
		// No event reached the page: the pointer was at the point already
		// (a hover on the same place of the page before), and Firefox
		// sends nothing for a move that goes nowhere, so the page kept its
		// hover on what had been there, and the target was never hovered.
		// A pixel aside and back is a move.
		err = do(ctx, func() error {
			if err := s.page.Mouse().Move(pt.X+1, pt.Y); err != nil {
				return err
			}
			return s.page.Mouse().Move(pt.X, pt.Y)
		})
		if err != nil {
			return engine.ActionResult{}, s.actionErr(err, what, req.Target)
		}
	}
	return s.settle(ctx, m, engine.DefaultNavigationTimeout)
}

// Press presses a key with modifiers, parsed by engine/page as engine/cdp
// parses them. With a target the key goes through the element, so that Playwright
// waits for a navigation it requests (Enter submitting a form) to commit.
func (s *session) pressAction(ctx context.Context, req engine.PressRequest) (engine.ActionResult, error) {
	mods, key, err := page.ParseKey(req.Key, req.Modifiers)
	if err != nil {
		return engine.ActionResult{}, err
	}
	var names []string
	for _, m := range mods {
		names = append(names, m.Key)
	}
	name := key.Key
	if name == " " {
		name = "Space"
	}
	combo := strings.Join(append(names, name), "+")
	if err := s.alive(); err != nil {
		return engine.ActionResult{}, err
	}
	what := "press " + req.Key
	m := s.st.mark()
	if req.Target == nil {
		err = do(ctx, func() error { return s.page.Keyboard().Press(combo) })
	} else {
		el, _, ferr := s.element(ctx, *req.Target, req.Timeout, "el => { el.focus(); }")
		if ferr != nil {
			return engine.ActionResult{}, ferr
		}
		defer release(el)
		m.navFrom = time.Now()
		err = s.onLocator(ctx, el, func(l playwright.Locator) error {
			return l.Press(combo, playwright.LocatorPressOptions{Timeout: ms(remaining(ctx, req.Timeout+engine.DefaultNavigationTimeout))})
		})
		if err != nil && s.clickedBeforeTimeout(err, m) {
			err = nil
		}
	}
	if err != nil {
		if strings.Contains(err.Error(), "Unknown key") {
			return engine.ActionResult{}, engine.Errorf(engine.InvalidParameters, "unknown key %q: use a key name such as Enter, Tab, ArrowDown, Escape, F5, or one character", req.Key).With("field", "key")
		}
		return engine.ActionResult{}, s.classify(err, what)
	}
	return s.settle(ctx, m, engine.DefaultNavigationTimeout)
}

// Drag presses the mouse on the source, moves to the target in steps and
// releases, as Playwright's own dragTo does; Playwright turns this into a
// real HTML5 drag session where the page uses one.
func (s *session) dragAction(ctx context.Context, req engine.DragRequest) (engine.ActionResult, error) {
	if err := s.alive(); err != nil {
		return engine.ActionResult{}, err
	}
	what := "drag " + req.Source.String()
	m := s.st.mark()
	from, err := s.point(ctx, req.Source, req.Timeout, false, page.GuardDown)
	if err != nil {
		return engine.ActionResult{}, err
	}
	// Point at the target without scrolling the source away: both must be
	// in view at once for a drag. The target must hold still too.
	to, err := s.point(ctx, req.Target, req.Timeout, true, page.GuardDrop)
	if err != nil {
		s.inputHit(ctx, req.Source) // end the source's guard: no input follows
		return engine.ActionResult{}, err
	}
	vp, err := s.viewport(ctx)
	if err != nil {
		s.inputHit(ctx, req.Source)
		return engine.ActionResult{}, err
	}
	for _, p := range [][2]float64{from, to} {
		if p[0] < 0 || p[1] < 0 || p[0] >= vp[0] || p[1] >= vp[1] {
			s.inputHit(ctx, req.Source)
			return engine.ActionResult{}, engine.Errorf(engine.ElementNotClickable, "%s and %s are not both in the viewport", req.Source, req.Target).
				With("reason", "outside_viewport")
		}
	}
	if err := s.drag(ctx, from, to); err != nil {
		s.inputHit(ctx, req.Source)
		return engine.ActionResult{}, s.classify(err, what)
	}
	if err := page.HitError(s.inputHit(ctx, req.Source), req.Source, "drag"); err != nil {
		return engine.ActionResult{}, err
	}
	return s.settle(ctx, m, engine.DefaultNavigationTimeout)
}

// point is the viewport point where a click on tg would land, after
// engine/cdp's checks; force skips the checks and the scrolling, and guard
// is as for resolve.
func (s *session) point(ctx context.Context, tg engine.Target, timeout time.Duration, force bool, guard string) ([2]float64, error) {
	_, pt, err := s.resolve(ctx, "point", tg, timeout, force, false, guard)
	if err != nil {
		return [2]float64{}, err
	}
	return [2]float64{pt.X, pt.Y}, nil
}

func (s *session) viewport(ctx context.Context) ([2]float64, error) {
	v, err := s.Evaluate(ctx, engine.EvalRequest{Function: "() => [innerWidth, innerHeight]"})
	if err != nil {
		return [2]float64{}, err
	}
	var vp [2]float64
	err = json.Unmarshal(v, &vp)
	return vp, err
}

// drag moves the mouse from one viewport point to another with the button
// held down.
func (s *session) drag(ctx context.Context, from, to [2]float64) error {
	if s.e.cfg.Browser == Firefox {
		if err := s.noNativeDrag(ctx, from); err != nil {
			return err
		}
	}
	mouse := s.page.Mouse()
	steps := 10
	return do(ctx, func() error {
		if err := mouse.Move(from[0], from[1]); err != nil {
			return err
		}
		if err := mouse.Down(); err != nil {
			return err
		}
		if err := mouse.Move(to[0], to[1], playwright.MouseMoveOptions{Steps: &steps}); err != nil {
			return err
		}
		return mouse.Up()
	})
}

// noNativeDrag refuses, on Firefox, a drag that starts on an HTML5
// draggable element (draggable="true", a link or an image): WebDriver BiDi
// input actions in Firefox never start a native drag session, so the
// page's dragstart and drop handlers would not run and the drag would
// silently do nothing. Drags that pages implement with mouse events work.
func (s *session) noNativeDrag(ctx context.Context, p [2]float64) error {
	v, err := s.Evaluate(ctx, engine.EvalRequest{Function: `(x, y) => {
		for (let n = document.elementFromPoint(x, y); n; n = n.parentElement) if (n.draggable) return true;
		return false; }`, Args: []any{p[0], p[1]}})
	if err != nil {
		return err
	}
	if string(v) == "true" {
		return unsupported(Firefox, "HTML5 drag and drop",
			"WebDriver BiDi input actions in Firefox do not start a native drag session, so dragstart and drop never fire")
	}
	return nil
}

// Upload sets the files of an <input type=file> and fires its events.
func (s *session) Upload(ctx context.Context, req engine.UploadRequest) (engine.ActionResult, error) {
	if req.Target.IsZero() {
		return s.answerChooser(ctx, req)
	}
	if err := s.alive(); err != nil {
		return engine.ActionResult{}, err
	}
	m := s.st.mark()
	el, check, err := s.element(ctx, req.Target, req.Timeout,
		`el => el.tagName === "INPUT" && el.type === "file" ? (el.disabled ? "disabled" : el.multiple ? "multiple" : "single") : "not_a_file_input"`)
	if err != nil {
		return engine.ActionResult{}, err
	}
	defer release(el)
	switch {
	case check == "not_a_file_input" || check == "disabled":
		return engine.ActionResult{}, engine.Errorf(engine.ElementNotEditable, "%s is not an enabled file input", req.Target).With("reason", check)
	case check == "single" && len(req.Files) > 1:
		return engine.ActionResult{}, engine.Errorf(engine.InvalidParameters, "%s takes one file, got %d", req.Target, len(req.Files)).With("field", "files")
	}
	err = s.onLocator(ctx, el, func(l playwright.Locator) error {
		return l.SetInputFiles(req.Files, playwright.LocatorSetInputFilesOptions{Timeout: ms(remaining(ctx, req.Timeout))})
	})
	if err != nil {
		return engine.ActionResult{}, s.actionErr(err, "upload to "+req.Target.String(), req.Target)
	}
	return s.settle(ctx, m, engine.DefaultNavigationTimeout)
}

var mouseButtons = map[string]*playwright.MouseButton{
	engine.ButtonLeft: playwright.MouseButtonLeft, engine.ButtonRight: playwright.MouseButtonRight, engine.ButtonMiddle: playwright.MouseButtonMiddle,
}

// Mouse clicks, moves or drags at viewport coordinates.
func (s *session) mouseAction(ctx context.Context, req engine.MouseRequest) (engine.ActionResult, error) {
	btn := mouseButtons[req.Button]
	if req.Action == "click" && req.ClickCount > 1 && s.e.cfg.Browser == Firefox {
		return engine.ActionResult{}, unsupported(Firefox, "clickCount > 1 (double and triple clicks)",
			"Playwright's WebDriver BiDi backend sends each click as its own action, so Firefox counts every one as a single click").
			With("field", "clickCount")
	}
	if err := s.alive(); err != nil {
		return engine.ActionResult{}, err
	}
	vp, err := s.viewport(ctx)
	if err != nil {
		return engine.ActionResult{}, err
	}
	if err := req.InViewport(vp[0], vp[1]); err != nil {
		return engine.ActionResult{}, err
	}
	what := fmt.Sprintf("%s the mouse at %.0f,%.0f", req.Action, req.X, req.Y)
	m := s.st.mark()
	switch req.Action {
	case "move":
		err = do(ctx, func() error { return s.page.Mouse().Move(req.X, req.Y) })
	case "click":
		err = do(ctx, func() error {
			return s.page.Mouse().Click(req.X, req.Y, playwright.MouseClickOptions{Button: btn, ClickCount: &req.ClickCount})
		})
	case "drag":
		err = s.drag(ctx, [2]float64{req.X, req.Y}, [2]float64{req.ToX, req.ToY})
	}
	if err != nil {
		return engine.ActionResult{}, s.classify(err, what)
	}
	return s.settle(ctx, m, engine.DefaultNavigationTimeout)
}

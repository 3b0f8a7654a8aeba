package tools

import (
	"context"
	"fmt"

	"github.com/seed4af8c199/browsermcp/engine"
)

// FillIn is the input of fill.
type FillIn struct {
	ElementIn
	Value string `json:"value" size:"1048576"`
}

func fill(d *Deps) Tool {
	return sessionTool(d, "fill", "Replace a field's value.", pageAction,
		func(ctx context.Context, s engine.Session, in FillIn) (ActionOut, error) {
			tg := in.target()
			res, err := s.Fill(ctx, engine.FillRequest{Target: tg, Value: in.Value, Timeout: in.timeout(s)})
			if err != nil {
				return ActionOut{}, err
			}
			return actionOut("Filled "+tg.String(), res), nil
		})
}

// Option is one <option>.
type Option = engine.Option

// SelectIn is the input of select.
type SelectIn struct {
	ElementIn
	Values []string `json:"values" jsonschema:"Option values or labels"`
}

func (SelectIn) aliases() map[string]string { return map[string]string{"value": "values"} }

func (in SelectIn) validate() error {
	if len(in.Values) == 0 {
		return invalid("values", "values must list at least one option value or label")
	}
	return in.ElementIn.validate()
}

// SelectOut is the result of select: the options now selected, and what
// the change caused, as for click.
type SelectOut struct {
	Selected []Option `json:"selected"`
	ActionOut
}

func selectOption(d *Deps) Tool {
	return sessionTool(d, "select", "Select <select> options by value or label.", pageAction,
		func(ctx context.Context, s engine.Session, in SelectIn) (SelectOut, error) {
			tg := in.target()
			r, err := s.Select(ctx, engine.SelectRequest{Target: tg, Values: in.Values, Timeout: in.timeout(s)})
			if err != nil {
				return SelectOut{}, err
			}
			msg := fmt.Sprintf("Selected %d option(s) in %s", len(r.Selected), tg)
			return SelectOut{Selected: r.Selected, ActionOut: actionOut(msg, r.ActionResult)}, nil
		})
}

// checkTool clicks a checkbox or radio like a user when its state differs
// from want; the engine verifies the new state.
func checkTool(d *Deps, name, desc string, want bool) Tool {
	return sessionTool(d, name, desc, pageAction,
		func(ctx context.Context, s engine.Session, in ElementIn) (ActionOut, error) {
			tg := in.target()
			r, err := s.SetChecked(ctx, engine.CheckRequest{Target: tg, Checked: want, Timeout: in.timeout(s)})
			if err != nil {
				return ActionOut{}, err
			}
			msg := fmt.Sprintf("%sed %s", name, tg)
			if !r.Changed {
				msg = fmt.Sprintf("%s was already %s", tg, name+"ed")
			}
			// What the click caused (a navigation, a tab, a download) is
			// reported as for click.
			return actionOut(msg, r.ActionResult), nil
		})
}

func check(d *Deps) Tool {
	return checkTool(d, "check", "Check a checkbox or radio.", true)
}
func uncheck(d *Deps) Tool {
	return checkTool(d, "uncheck", "Uncheck a checkbox.", false)
}

// ScrollIn is the input of scroll.
type ScrollIn struct {
	SessionArg
	TargetArg
	X int `json:"x,omitempty" range:"-1000000,1000000"`
	Y int `json:"y,omitempty" range:"-1000000,1000000"`
}

func (in ScrollIn) validate() error { return validTarget(in.Selector, in.Ref, false) }

// ScrollOut is the result of scroll: the page's scroll position, and
// what the scroll caused, as for click.
type ScrollOut struct {
	ScrollX float64 `json:"scrollX"`
	ScrollY float64 `json:"scrollY"`
	ActionOut
}

func scroll(d *Deps) Tool {
	return sessionTool(d, "scroll", "Scroll the page by x,y pixels, or an element into view.", pageAction,
		func(ctx context.Context, s engine.Session, in ScrollIn) (ScrollOut, error) {
			req := engine.ScrollRequest{X: in.X, Y: in.Y}
			msg := fmt.Sprintf("Scrolled by %d,%d", in.X, in.Y)
			if in.given() {
				tg := in.target()
				req.Target = &tg
				msg = "Scrolled " + tg.String() + " into view"
			}
			r, err := s.Scroll(ctx, req)
			if err != nil {
				return ScrollOut{}, err
			}
			return ScrollOut{ScrollX: r.ScrollX, ScrollY: r.ScrollY, ActionOut: actionOut(msg, r.ActionResult)}, nil
		})
}

package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"strings"

	"github.com/seed4af8c199/browsermcp/engine"
)

// FillIn is the input of fill.
type FillIn struct {
	ElementIn
	Value string `json:"value" size:"1048576"`
}

// fillJS sets a field's value the way a paste would (native setter, so
// frameworks see it) and fires input and change.
//
//go:embed js/fill.js
var fillJS string

// formResult is what the form functions answer.
type formResult struct {
	Error    string   `json:"error"`
	Selected []Option `json:"selected"`
	Options  []Option `json:"options"`
	Total    int      `json:"total"`
	Checked  bool     `json:"checked"`
	Radio    bool     `json:"radio"`
}

// quoteList quotes the first few of an agent's values for a message, each
// clipped, and says how many there were in all.
func quoteList(vs []string) string {
	const n = 5
	q := make([]string, 0, n)
	for _, v := range vs[:min(n, len(vs))] {
		q = append(q, strconv.Quote(clip(v)))
	}
	s := strings.Join(q, ", ")
	if len(vs) > n {
		s += fmt.Sprintf(" (and %d more)", len(vs)-n)
	}
	return s
}

// settled marks req as a user's action: the engine waits for what it
// started (requests, timers, DOM changes) before it answers, as after a
// click.
func settled(req engine.EvalRequest) engine.EvalRequest {
	req.Settle = true
	return req
}

func notEditable(tg engine.Target, reason string) error {
	return engine.Errorf(engine.ElementNotEditable, "%s cannot take a value: %s", tg, reason).With("reason", reason).With("selector", tg.Selector)
}

func fill(d *Deps) Tool {
	return sessionTool(d, "fill", "Replace a field's value.", pageAction,
		func(ctx context.Context, s engine.Session, in FillIn) (SuccessOut, error) {
			r, err := evalInto[formResult](ctx, s, settled(in.req(s, fillJS, in.Value)))
			if err == nil && r.Error != "" {
				err = notEditable(in.target(), r.Error)
			}
			return SuccessOut{Success: err == nil, Message: "Filled " + in.target().String()}, err
		})
}

// Option is one <option>.
type Option struct {
	Value string `json:"value" size:"1048576"`
	Label string `json:"label"`
}

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

// SelectOut is the result of select.
type SelectOut struct {
	Selected []Option `json:"selected"`
	SessionMeta
}

//go:embed js/select_options.js
var selectOptionsJS string

func selectOption(d *Deps) Tool {
	return sessionTool(d, "select", "Select <select> options by value or label.", pageAction,
		func(ctx context.Context, s engine.Session, in SelectIn) (SelectOut, error) {
			r, err := evalInto[formResult](ctx, s, settled(in.req(s, selectOptionsJS, in.Values)))
			switch {
			case err != nil:
				return SelectOut{}, err
			case r.Error == "single":
				return SelectOut{}, engine.Errorf(engine.InvalidParameters, "%s selects one option, but %d values were given", in.target(), len(in.Values)).
					With("field", "values").With("options", r.Options).With("optionCount", r.Total).
					Suggest("Give one value or label; only a <select multiple> takes several.")
			case r.Error == "no_match":
				return SelectOut{}, engine.Errorf(engine.InvalidParameters, "no option of %s has value or label %s", in.target(), quoteList(in.Values)).
					With("field", "values").With("options", r.Options).With("optionCount", r.Total)
			case r.Error != "":
				return SelectOut{}, notEditable(in.target(), r.Error)
			}
			return SelectOut{Selected: r.Selected}, nil
		})
}

// checkboxStateJS reads whether the element, or the checkbox or radio in
// it, is checked.
//
//go:embed js/checkbox_state.js
var checkboxStateJS string

// checkTool clicks a checkbox or radio like a user when its state differs
// from want, then verifies the new state.
func checkTool(d *Deps, name, desc string, want bool) Tool {
	return sessionTool(d, name, desc, pageAction,
		func(ctx context.Context, s engine.Session, in ElementIn) (ActionOut, error) {
			tg := in.target()
			r, err := evalInto[formResult](ctx, s, in.req(s, checkboxStateJS))
			if err != nil {
				return ActionOut{}, err
			}
			if r.Error != "" {
				return ActionOut{}, notEditable(tg, r.Error)
			}
			if r.Checked == want {
				return ActionOut{Success: true, Message: fmt.Sprintf("%s was already %s", tg, name+"ed")}, nil
			}
			if r.Radio && !want {
				// A click never unchecks a radio: checking another one of
				// its group does.
				return ActionOut{}, engine.Errorf(engine.InvalidParameters, "%s is a checked radio button; a radio is unchecked only by checking another one of its group", tg).
					With("field", "selector").With("reason", "radio").Suggest("Use check on the radio button that should be selected instead.")
			}
			click, err := s.Click(ctx, engine.ClickRequest{Target: tg, Timeout: in.timeout(s)})
			if err != nil {
				return ActionOut{}, err
			}
			if r, err = evalInto[formResult](ctx, s, in.req(s, checkboxStateJS)); err != nil {
				return ActionOut{}, err
			}
			if r.Checked != want {
				return ActionOut{}, engine.Errorf(engine.ElementNotClickable, "clicking %s did not %s it (the page prevented it)", tg, name).
					With("reason", "state_unchanged").With("selector", tg.Selector)
			}
			// What the click caused (a console error, a download) is
			// reported as for click.
			return actionOut(fmt.Sprintf("%sed %s", name, tg), click), nil
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

// ScrollOut is the result of scroll.
type ScrollOut struct {
	ScrollX float64 `json:"scrollX"`
	ScrollY float64 `json:"scrollY"`
	SessionMeta
}

var (
	//go:embed js/scroll_by.js
	scrollByJS string
	//go:embed js/scroll_into_view.js
	scrollIntoViewJS string
)

func scroll(d *Deps) Tool {
	return sessionTool(d, "scroll", "Scroll the page by x,y pixels, or an element into view.", pageAction,
		func(ctx context.Context, s engine.Session, in ScrollIn) (ScrollOut, error) {
			req := engine.EvalRequest{Function: scrollByJS, Args: []any{in.X, in.Y}}
			if in.given() {
				tg := in.target()
				req = engine.EvalRequest{Target: &tg, Timeout: engine.DefaultActionTimeout, Function: scrollIntoViewJS}
			}
			// The page's scroll handlers run with the next frame: wait
			// for it, then for what they started (an infinite list's
			// fetch and the items it adds).
			req = settled(req)
			req.Frame = true
			return evalInto[ScrollOut](ctx, s, req)
		})
}

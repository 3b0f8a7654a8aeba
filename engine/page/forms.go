package page

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// The form actions run these scripts on their element through an engine's
// Act, which settles what they set off as an action's; Fill, Select,
// SetChecked and Scroll turn their answers into results and errors, the
// same for every engine.

var (
	// fillJS sets a field's value the way a paste would (the native
	// setter, so frameworks see it) and fires input and change.
	//
	//go:embed js/fill.js
	fillJS string
	// selectJS selects options by value or label and fires input and
	// change.
	//
	//go:embed js/select.js
	selectJS string
	// checkedJS reads whether the element, or the checkbox or radio in
	// it, is checked.
	//
	//go:embed js/checked.js
	checkedJS string
	//go:embed js/scroll_by.js
	scrollByJS string
	//go:embed js/scroll_into_view.js
	scrollIntoViewJS string
)

// Act runs req's function in the page as Evaluate does. With req.Settle it
// is a user's action: the engine waits, as after input events, for what
// the function set off (a navigation bounded by navTimeout, requests, the
// page work they start), and returns what that was. A function that opened
// a dialog, which holds it, answers no value: the result's Dialog says
// why.
type Act func(ctx context.Context, req engine.EvalRequest, navTimeout time.Duration) (json.RawMessage, engine.ActionResult, error)

// formAnswer is what the form scripts answer.
type formAnswer struct {
	Error    string          `json:"error"`
	Selected []engine.Option `json:"selected"`
	Options  []engine.Option `json:"options"`
	Total    int             `json:"total"`
	Checked  bool            `json:"checked"`
	Radio    bool            `json:"radio"`
	ScrollX  float64         `json:"scrollX"`
	ScrollY  float64         `json:"scrollY"`
	MovedX   float64         `json:"movedX"`
	MovedY   float64         `json:"movedY"`
}

// run acts with req and decodes the script's answer.
func (act Act) run(ctx context.Context, req engine.EvalRequest, navTimeout time.Duration) (formAnswer, engine.ActionResult, error) {
	var a formAnswer
	raw, res, err := act(ctx, req, navTimeout)
	if err != nil || (raw == nil && res.Dialog != nil) {
		// A script held by the dialog it opened has not answered yet:
		// the dialog is the answer.
		return a, res, err
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return a, res, engine.Wrap(engine.BrowserError, err, "decoding the page's answer: "+err.Error())
	}
	return a, res, nil
}

// NotEditable is the error of a form action on an element that cannot take
// its value, for reason (disabled, readonly, not_a_text_field, …).
func NotEditable(tg engine.Target, reason string) error {
	return engine.Errorf(engine.ElementNotEditable, "%s cannot take a value: %s", tg, reason).With("reason", reason).With("selector", tg.Selector)
}

// Fill is engine.Session's Fill on an engine's Act.
func Fill(ctx context.Context, act Act, req engine.FillRequest) (engine.ActionResult, error) {
	tg := req.Target
	a, res, err := act.run(ctx, engine.EvalRequest{Target: &tg, Function: fillJS, Args: []any{req.Value}, Timeout: req.Timeout, Settle: true}, req.NavigationTimeout)
	if err == nil && a.Error != "" {
		err = NotEditable(tg, a.Error)
	}
	return res, err
}

// Select is engine.Session's Select on an engine's Act.
func Select(ctx context.Context, act Act, req engine.SelectRequest) (engine.SelectResult, error) {
	tg := req.Target
	a, res, err := act.run(ctx, engine.EvalRequest{Target: &tg, Function: selectJS, Args: []any{req.Values}, Timeout: req.Timeout, Settle: true}, req.NavigationTimeout)
	switch {
	case err != nil:
		return engine.SelectResult{}, err
	case a.Error == "single":
		return engine.SelectResult{}, engine.Errorf(engine.InvalidParameters, "%s selects one option, but %d values were given", tg, len(req.Values)).
			With("field", "values").With("options", a.Options).With("optionCount", a.Total).
			Suggest("Give one value or label; only a <select multiple> takes several.")
	case a.Error == "no_match":
		return engine.SelectResult{}, engine.Errorf(engine.InvalidParameters, "no option of %s has value or label %s", tg, quoteList(req.Values)).
			With("field", "values").With("options", a.Options).With("optionCount", a.Total)
	case a.Error != "":
		return engine.SelectResult{}, NotEditable(tg, a.Error)
	}
	return engine.SelectResult{ActionResult: res, Selected: a.Selected}, nil
}

// quoteList quotes the first few of an agent's values for a message, each
// clipped, and says how many there were in all.
func quoteList(vs []string) string {
	const n = 5
	q := make([]string, 0, n)
	for _, v := range vs[:min(n, len(vs))] {
		q = append(q, strconv.Quote(engine.Clip(v, 64)))
	}
	s := strings.Join(q, ", ")
	if len(vs) > n {
		s += fmt.Sprintf(" (and %d more)", len(vs)-n)
	}
	return s
}

// SetChecked is engine.Session's SetChecked on an engine's Act and its
// Click: it reads the state, clicks like a user when it differs from the
// one asked for, then reads it again.
func SetChecked(ctx context.Context, act Act, click func(context.Context, engine.ClickRequest) (engine.ActionResult, error), req engine.CheckRequest) (engine.CheckResult, error) {
	tg := req.Target
	name := "check"
	if !req.Checked {
		name = "uncheck"
	}
	state := engine.EvalRequest{Target: &tg, Function: checkedJS, Timeout: req.Timeout}
	a, _, err := act.run(ctx, state, 0)
	if err != nil {
		return engine.CheckResult{}, err
	}
	if a.Error != "" {
		return engine.CheckResult{}, NotEditable(tg, a.Error)
	}
	if a.Checked == req.Checked {
		return engine.CheckResult{}, nil
	}
	if a.Radio && !req.Checked {
		// A click never unchecks a radio: checking another one of its
		// group does.
		return engine.CheckResult{}, engine.Errorf(engine.InvalidParameters, "%s is a checked radio button; a radio is unchecked only by checking another one of its group", tg).
			With("field", "selector").With("reason", "radio").Suggest("Use check on the radio button that should be selected instead.")
	}
	res, err := click(ctx, engine.ClickRequest{Target: tg, Timeout: req.Timeout, NavigationTimeout: req.NavigationTimeout}.WithDefaults())
	if err != nil {
		return engine.CheckResult{}, err
	}
	if res.Navigated || (res.Dialog != nil && res.Dialog.Handled == "") {
		// The change left the page (a form it submitted), or a dialog
		// holds it: the state cannot be read again, and what happened is
		// the answer.
		return engine.CheckResult{ActionResult: res, Changed: true}, nil
	}
	if a, _, err = act.run(ctx, state, 0); err != nil {
		return engine.CheckResult{}, err
	}
	if a.Checked != req.Checked {
		return engine.CheckResult{}, engine.Errorf(engine.ElementNotClickable, "clicking %s did not %s it (the page prevented it)", tg, name).
			With("reason", "state_unchanged").With("selector", tg.Selector)
	}
	return engine.CheckResult{ActionResult: res, Changed: true}, nil
}

// Scroll is engine.Session's Scroll on an engine's Act. The page's scroll
// handlers run with the next frame: it waits for that, then for what they
// started (an infinite list's fetch and the items it adds).
func Scroll(ctx context.Context, act Act, req engine.ScrollRequest) (engine.ScrollResult, error) {
	ev := engine.EvalRequest{Function: scrollByJS, Args: []any{req.X, req.Y}, Settle: true, Frame: true}
	if req.Target != nil {
		tg := *req.Target
		ev = engine.EvalRequest{Target: &tg, Timeout: req.Timeout, Function: scrollIntoViewJS, Settle: true, Frame: true}
	}
	a, res, err := act.run(ctx, ev, req.NavigationTimeout)
	if err != nil {
		return engine.ScrollResult{}, err
	}
	return engine.ScrollResult{ActionResult: res, ScrollX: a.ScrollX, ScrollY: a.ScrollY, MovedX: a.MovedX, MovedY: a.MovedY}, nil
}

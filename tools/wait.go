package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// maxWaitTime bounds wait_for's time, in seconds.
const maxWaitTime = 30

// WaitForIn is the input of wait_for: exactly one of text, textGone and
// selector, or time alone.
type WaitForIn struct {
	SessionArg
	Text     string  `json:"text,omitempty"`
	TextGone string  `json:"textGone,omitempty"`
	Selector string  `json:"selector,omitempty"`
	Time     float64 `json:"time,omitempty" jsonschema:"Seconds, max 30" range:"0,30"`
	Timeout  int     `json:"timeout,omitempty" range:"0,300000"`
}

func (in WaitForIn) validate() error {
	n := 0
	for _, s := range []string{in.Text, in.TextGone, in.Selector} {
		if s != "" {
			n++
		}
	}
	switch {
	case n > 1 || (n == 1 && in.Time != 0):
		return engine.Errorf(engine.InvalidParameters, "give exactly one of text, textGone, selector and time").
			With("field", "text").With("fields", []string{"text", "textGone", "selector", "time"})
	case n == 0 && in.Time == 0:
		return engine.Errorf(engine.InvalidParameters, "give text, textGone or selector to wait for, or time to wait").
			With("field", "text").With("fields", []string{"text", "textGone", "selector", "time"})
	case in.Time < 0 || in.Time > maxWaitTime:
		return invalid("time", "time must be between 0 and %d seconds, got %g", maxWaitTime, in.Time)
	}
	return nil
}

//go:embed js/wait_text.js
var waitTextJS string

func waitFor(d *Deps) Tool {
	return sessionTool(d, "wait_for", "Wait for visible text, its absence, a visible element, or time.", readOnly,
		func(ctx context.Context, s engine.Session, in WaitForIn) (SuccessOut, error) {
			timeout := ms(in.Timeout)
			if timeout == 0 {
				timeout = engine.TimeoutsOf(s).Action
			}
			var what, done string
			var err error
			switch {
			case in.Time > 0:
				d := time.Duration(in.Time * float64(time.Second))
				t := time.NewTimer(d)
				defer t.Stop()
				select {
				case <-t.C:
				case <-ctx.Done():
					return SuccessOut{}, ctx.Err()
				}
				return SuccessOut{Success: true, Message: fmt.Sprintf("Waited %g s", in.Time)}, nil
			case in.Selector != "":
				what, done = fmt.Sprintf("%q to be visible", in.Selector), fmt.Sprintf("%q is visible", in.Selector)
				tg := engine.Target{Selector: in.Selector}
				_, err = s.Evaluate(ctx, engine.EvalRequest{Target: &tg, State: "visible", Timeout: timeout, Function: reachedJS})
			default:
				text, gone := in.Text, false
				what, done = fmt.Sprintf("text %q to appear", text), fmt.Sprintf("Text %q is visible", text)
				if in.TextGone != "" {
					text, gone = in.TextGone, true
					what, done = fmt.Sprintf("text %q to disappear", text), fmt.Sprintf("Text %q is gone", text)
				}
				var raw json.RawMessage
				raw, err = s.Evaluate(ctx, engine.EvalRequest{Function: waitTextJS, Args: []any{text, gone, timeout.Milliseconds()}, Timeout: timeout})
				if err == nil && string(raw) != "true" {
					err = engine.Errorf(engine.Timeout, "timed out")
				}
			}
			if err != nil {
				if e := engine.AsError(err); e.Code == engine.Timeout {
					e.Message = fmt.Sprintf("waited %d ms for %s in vain", timeout.Milliseconds(), what)
					e.With("waitedFor", what).With("timeoutMs", timeout.Milliseconds())
				}
				return SuccessOut{}, err
			}
			return SuccessOut{Success: true, Message: done}, nil
		})
}

// WaitForSelectorIn is the input of wait_for_selector.
type WaitForSelectorIn struct {
	SessionArg
	TargetArg
	State   string `json:"state,omitempty" jsonschema:"Default visible,enum=attached,enum=detached,enum=visible,enum=hidden"`
	Timeout int    `json:"timeout,omitempty" range:"0,300000"`
}

func (in WaitForSelectorIn) validate() error {
	if err := in.TargetArg.validate(); err != nil {
		return err
	}
	return oneOf("state", in.State, "attached", "detached", "visible", "hidden")
}

// reachedJS is all wait_for_selector runs once the element is in its
// state: the engine's wait is the work.
//
//go:embed js/reached.js
var reachedJS string

func waitForSelector(d *Deps) Tool {
	return sessionTool(d, "wait_for_selector", "Wait for an element's state.", readOnly,
		func(ctx context.Context, s engine.Session, in WaitForSelectorIn) (SuccessOut, error) {
			state, timeout := in.State, in.Timeout
			if state == "" {
				state = "visible"
			}
			if timeout == 0 {
				timeout = 5000
			}
			tg := in.target()
			_, err := s.Evaluate(ctx, engine.EvalRequest{Target: &tg, State: state, Timeout: ms(timeout), Function: reachedJS})
			if err != nil {
				if e := engine.AsError(err); e.Code == engine.Timeout {
					e.Message = fmt.Sprintf("%s did not become %s within %d ms", tg, state, timeout)
					e.With("state", state).With("selector", tg.Selector)
				}
				return SuccessOut{}, err
			}
			return SuccessOut{Success: true, Message: fmt.Sprintf("%s is %s", tg, state)}, nil
		})
}

// WaitForLoadIn is the input of wait_for_load.
type WaitForLoadIn struct {
	SessionArg
	State   string `json:"state,omitempty" jsonschema:"Default load,enum=load,enum=domcontentloaded,enum=networkidle"`
	Timeout int    `json:"timeout,omitempty" range:"0,300000"`
}

func (in WaitForLoadIn) validate() error {
	return oneOf("state", in.State, "load", "domcontentloaded", "networkidle")
}

func waitForLoad(d *Deps) Tool {
	return sessionTool(d, "wait_for_load", "Wait until the page reaches a load state.", readOnly,
		func(ctx context.Context, s engine.Session, in WaitForLoadIn) (PageOut, error) {
			r, err := s.WaitForLoad(ctx, engine.WaitUntil(in.State), ms(in.Timeout))
			return navOut(r).PageOut, err
		})
}

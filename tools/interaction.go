package tools

import (
	"context"
	"fmt"

	"github.com/seed4af8c199/browsermcp/engine"
)

// TargetArg names one element; exactly one of its fields is given.
type TargetArg struct {
	Selector string `json:"selector,omitempty"`
}

func (t TargetArg) target() engine.Target { return engine.Target{Selector: t.Selector} }

func (t TargetArg) validate() error {
	if t.Selector == "" {
		return invalid("selector", "selector must not be empty")
	}
	return nil
}

// ActionOut is the result of element actions.
type ActionOut struct {
	Success   bool   `json:"success"`
	Message   string `json:"message"`
	Navigated bool   `json:"navigated,omitempty" jsonschema:"The action loaded a new page"`
	URL       string `json:"url,omitempty" jsonschema:"Page URL after a navigation"`
	SessionMeta
}

func actionOut(msg string, r engine.ActionResult) ActionOut {
	out := ActionOut{Success: true, Message: msg, Navigated: r.Navigated}
	if r.Navigated {
		out.URL = r.URL
		out.Message += "; the page navigated to " + r.URL
	}
	return out
}

// ClickIn is the input of click.
type ClickIn struct {
	SessionArg
	TargetArg
	Timeout    int  `json:"timeout,omitempty"`
	Force      bool `json:"force,omitempty" jsonschema:"Skip actionability checks"`
	ClickCount int  `json:"clickCount,omitempty" jsonschema:"2: double-click"`
}

func (in ClickIn) validate() error {
	if err := in.TargetArg.validate(); err != nil {
		return err
	}
	if err := nonNegative("timeout", in.Timeout); err != nil {
		return err
	}
	return nonNegative("clickCount", in.ClickCount)
}

func click(d *Deps) Tool {
	return sessionTool(d, "click", "Click an element like a user (scroll, hit-test, mouse events).", pageAction,
		func(ctx context.Context, s engine.Session, in ClickIn) (ActionOut, error) {
			r, err := s.Click(ctx, engine.ClickRequest{Target: in.target(), Timeout: ms(in.Timeout), Force: in.Force, ClickCount: in.ClickCount})
			if err != nil {
				return ActionOut{}, err
			}
			return actionOut("Clicked "+in.target().String(), r), nil
		})
}

// TypeIn is the input of type.
type TypeIn struct {
	SessionArg
	TargetArg
	Text    string `json:"text" jsonschema:"\n presses Enter"`
	Delay   int    `json:"delay,omitempty" jsonschema:"ms between keys"`
	Timeout int    `json:"timeout,omitempty"`
	Clear   bool   `json:"clear,omitempty" jsonschema:"Empty the field first"`
}

func (in TypeIn) validate() error {
	if err := in.TargetArg.validate(); err != nil {
		return err
	}
	if err := nonNegative("delay", in.Delay); err != nil {
		return err
	}
	return nonNegative("timeout", in.Timeout)
}

func typeText(d *Deps) Tool {
	return sessionTool(d, "type", "Type into a text field with real key events.", pageAction,
		func(ctx context.Context, s engine.Session, in TypeIn) (ActionOut, error) {
			r, err := s.Type(ctx, engine.TypeRequest{Target: in.target(), Text: in.Text, Delay: ms(in.Delay), Timeout: ms(in.Timeout), Clear: in.Clear})
			if err != nil {
				return ActionOut{}, err
			}
			return actionOut(fmt.Sprintf("Typed %d characters into %s", len([]rune(in.Text)), in.target()), r), nil
		})
}

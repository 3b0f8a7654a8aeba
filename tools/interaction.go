package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/seed4af8c199/browsermcp/engine"
)

// TargetArg names one element for an element tool: exactly one of a
// selector or a ref from a snapshot.
type TargetArg struct {
	Selector string `json:"selector,omitempty"`
	Ref      string `json:"ref,omitempty"`
}

func (t TargetArg) target() engine.Target { return engine.Target{Selector: t.Selector, Ref: t.Ref} }

func (t TargetArg) validate() error { return validTarget(t.Selector, t.Ref, true) }

// given reports whether an optional target was named.
func (t TargetArg) given() bool { return t.Selector != "" || t.Ref != "" }

// validTarget checks that at most one (exactly one when required) of
// selector and ref is given.
func validTarget(selector, ref string, required bool) error {
	switch {
	case selector != "" && ref != "":
		return engine.Errorf(engine.InvalidParameters, "give either selector or ref, not both").
			With("field", "ref").With("fields", []string{"selector", "ref"})
	case required && selector == "" && ref == "":
		return engine.Errorf(engine.InvalidParameters, "give selector (CSS or XPath) or ref (from a snapshot) to name the element").
			With("field", "selector").With("fields", []string{"selector", "ref"})
	}
	return nil
}

// ActionOut is the result of element actions.
type ActionOut struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
	// URL is set only when the action loaded a new page, so its presence
	// says the page navigated.
	URL   string `json:"url,omitempty" jsonschema:"The new page's URL when the action navigated"`
	Title string `json:"title,omitempty" jsonschema:"The new page's title when the action navigated"`
	// Dialog is the JavaScript dialog the action opened; unless handled is
	// set, the page waits for handle_dialog.
	Dialog *engine.Dialog `json:"dialog,omitempty" jsonschema:"Dialog the action opened; call handle_dialog unless it says handled"`
	// FileChooser is set when the action opened a native file chooser,
	// which waits for upload_file without a selector or ref (the message
	// says so; no description here, to keep the output schemas short).
	FileChooser bool `json:"fileChooser,omitempty"`
	// NewTabs are the tabs the action opened; the current tab stays.
	NewTabs []engine.NewTab `json:"newTabs,omitempty" jsonschema:"Tabs the action opened (index for tabs select, url)"`
	// Downloads are the files the action downloaded, saved in the
	// session's download directory, which goes with the session.
	Downloads []engine.Download `json:"downloads,omitempty" jsonschema:"Files the action downloaded: suggestedName, path, bytes, state"`
	// ConsoleErrors counts console errors since the last action's result.
	ConsoleErrors int `json:"consoleErrors,omitempty" jsonschema:"Console errors and uncaught exceptions since the last action"`
	// Changes is what the action changed on the page (changes.go).
	Changes *ChangesOut `json:"changes,omitempty" jsonschema:"What changed on the page"`
	SessionMeta
}

func actionOut(msg string, r engine.ActionResult) ActionOut {
	out := ActionOut{Success: true, Message: msg, Dialog: r.Dialog}
	if r.Navigated {
		out.URL, out.Title = r.URL, r.Title
		out.Message += "; the page navigated to " + r.URL
		if r.Title != "" {
			out.Message += fmt.Sprintf(" (%q)", r.Title)
		}
	}
	out.NewTabs, out.Downloads, out.ConsoleErrors = r.NewTabs, r.Downloads, r.ConsoleErrors
	for _, t := range r.NewTabs {
		out.Message += fmt.Sprintf("; it opened tab %d (%s)", t.Index, t.URL)
	}
	for _, d := range r.Downloads {
		switch d.State {
		case engine.DownloadCompleted:
			out.Message += fmt.Sprintf("; it downloaded %q (%d bytes) to %s", d.SuggestedName, d.Bytes, d.Path)
		case engine.DownloadInProgress:
			out.Message += fmt.Sprintf("; its download of %q was still running", d.SuggestedName)
		default:
			out.Message += fmt.Sprintf("; its download of %q failed: %s", d.SuggestedName, d.Error)
		}
	}
	if n := r.ConsoleErrors; n > 0 {
		out.Message += fmt.Sprintf("; the page logged %d console error(s)", n)
	}
	if fc := r.FileChooser; fc != nil {
		out.FileChooser = true
		kind := "a file"
		if fc.Multiple {
			kind = "files"
		}
		out.Message += "; a file chooser opened: call upload_file with paths in files and no selector or ref to choose " + kind + ", or files: [] to cancel; it blocks the page until then"
	}
	if d := r.Dialog; d != nil {
		if d.Handled != "" {
			out.Message += fmt.Sprintf("; a %s dialog (%q) opened and was %s", d.Type, d.Message, d.Handled)
		} else {
			out.Message += fmt.Sprintf("; a %s dialog opened (%q) and blocks the page: call handle_dialog", d.Type, d.Message)
		}
	}
	return out
}

// ClickIn is the input of click.
type ClickIn struct {
	SessionArg
	TargetArg
	Timeout    int    `json:"timeout,omitempty" range:"0,300000"`
	Force      bool   `json:"force,omitempty" jsonschema:"Skip actionability checks"`
	ClickCount int    `json:"clickCount,omitempty" jsonschema:"2: double-click" range:"0,3"`
	Button     string `json:"button,omitempty" jsonschema:"left (default), right or middle"`
}

func (in ClickIn) validate() error {
	return in.TargetArg.validate()
}

// ClickOut is the result of click: an action's, and with force the element
// that received the click.
type ClickOut struct {
	ActionOut
	ReceivedBy string `json:"receivedBy,omitempty"`
}

func click(d *Deps) Tool {
	return sessionTool(d, "click", "Click like a user: scroll, hit-test, mouse events.", pageAction,
		func(ctx context.Context, s engine.Session, in ClickIn) (ClickOut, error) {
			if d.noScript {
				if err := refuseScriptURL(ctx, s, in.target(), ms(in.Timeout)); err != nil {
					return ClickOut{}, err
				}
			}
			r, err := s.Click(ctx, engine.ClickRequest{Target: in.target(), Timeout: ms(in.Timeout), Force: in.Force, ClickCount: in.ClickCount, Button: in.Button})
			if err != nil {
				return ClickOut{}, err
			}
			msg := "Clicked " + in.target().String()
			if r.ReceivedBy != "" {
				msg += " (" + r.ReceivedBy + " received it)"
			}
			return ClickOut{ActionOut: actionOut(msg, r), ReceivedBy: r.ReceivedBy}, nil
		})
}

// TypeIn is the input of type.
type TypeIn struct {
	SessionArg
	TargetArg
	Text    string `json:"text" jsonschema:"\n presses Enter" size:"1048576"`
	Delay   int    `json:"delay,omitempty" jsonschema:"ms between keys" range:"0,1000"`
	Timeout int    `json:"timeout,omitempty" range:"0,300000"`
	Clear   bool   `json:"clear,omitempty" jsonschema:"Empty the field first"`
}

// maxTimeout is the longest timeout a tool takes, the top of the range of
// every timeout argument.
const maxTimeout = 5 * time.Minute

func (in TypeIn) validate() error {
	if err := in.TargetArg.validate(); err != nil {
		return err
	}
	// Delays that alone outlast the longest call could only time out.
	if n := time.Duration(utf8.RuneCountInString(in.Text)); n*ms(in.Delay) > maxTimeout {
		return invalid("delay", "typing %d characters with a delay of %d ms takes %s, longer than a call may take (%s); lower delay or type less at a time",
			n, in.Delay, (n * ms(in.Delay)).Round(time.Second), maxTimeout)
	}
	return nil
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

// scriptURLOf finds the URL a click on an element would follow: the href
// of its link, or the action of the form its submit button submits.
const scriptURLOf = `el => {
  const a = el.closest('a[href], area[href]');
  if (a) return a.href;
  const b = el.closest('button, input');
  if (b && b.form && /^(submit|image)$/i.test(b.type)) return b.hasAttribute('formaction') ? b.formAction : b.form.action;
  return '';
}`

// refuseScriptURL refuses a click that would follow a javascript: URL while
// script evaluation is disabled: such a URL runs script in the page, which
// is what the setting forbids the agent. The page's own scripts still run;
// only the agent's click is refused.
func refuseScriptURL(ctx context.Context, s engine.Session, t engine.Target, timeout time.Duration) error {
	if timeout == 0 {
		// The click waits this long for its element; so does the check.
		timeout = engine.TimeoutsOf(s).Action
	}
	raw, err := s.Evaluate(ctx, engine.EvalRequest{Target: &t, Function: scriptURLOf, Timeout: timeout})
	if err != nil {
		return err
	}
	var u string
	if json.Unmarshal(raw, &u) != nil || engine.CheckURL(u, "") == nil {
		return nil
	}
	u = engine.Clip(u, 200)
	reason := "script evaluation is disabled (security.enableScriptEvaluation is false), and a javascript: URL runs script"
	return engine.Errorf(engine.NavigationBlocked, "click on %s refused: it would follow a javascript: URL; %s", t, reason).
		With("url", u).With("reason", reason)
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
			if !in.given() {
				msg = scrollMessage(in.X, in.Y, r)
			}
			return ScrollOut{ScrollX: r.ScrollX, ScrollY: r.ScrollY, ActionOut: actionOut(msg, r.ActionResult)}, nil
		})
}

// scrollMessage says how far a scroll by x,y moved the page: a scroll
// that the page's edge stopped, wholly or in part, says so, rather than
// claim the distance asked.
func scrollMessage(x, y int, r engine.ScrollResult) string {
	switch {
	case r.MovedX == 0 && r.MovedY == 0 && (x != 0 || y != 0):
		return fmt.Sprintf("Did not scroll: the page cannot scroll further that way (it is at %g,%g)", r.ScrollX, r.ScrollY)
	case r.MovedX != float64(x) || r.MovedY != float64(y):
		return fmt.Sprintf("Scrolled by %g,%g of the %d,%d asked: the page's edge stopped it (it is at %g,%g)", r.MovedX, r.MovedY, x, y, r.ScrollX, r.ScrollY)
	}
	return fmt.Sprintf("Scrolled by %d,%d", x, y)
}

func hover(d *Deps) Tool {
	return sessionTool(d, "hover", "Move the mouse over an element.", pageAction,
		func(ctx context.Context, s engine.Session, in ElementIn) (ActionOut, error) {
			r, err := s.Hover(ctx, engine.HoverRequest{Target: in.target(), Timeout: in.timeout(s)})
			return actionOut("Hovered over "+in.target().String(), r), err
		})
}

// PressIn is the input of press.
type PressIn struct {
	SessionArg
	Key       string   `json:"key" jsonschema:"e.g. Enter, ArrowDown, a, Control+A"`
	Modifiers []string `json:"modifiers,omitempty" jsonschema:"Alt, Control, Meta, Shift"`
	TargetArg
}

func (in PressIn) validate() error {
	if in.Key == "" {
		return invalid("key", "key must not be empty")
	}
	return validTarget(in.Selector, in.Ref, false)
}

func press(d *Deps) Tool {
	return sessionTool(d, "press", "Press a key or combination, in the element if given.", pageAction,
		func(ctx context.Context, s engine.Session, in PressIn) (ActionOut, error) {
			req := engine.PressRequest{Key: in.Key, Modifiers: in.Modifiers}
			if in.given() {
				tg := in.target()
				req.Target = &tg
			}
			r, err := s.Press(ctx, req)
			return actionOut("Pressed "+strings.Join(append(append([]string{}, in.Modifiers...), in.Key), "+"), r), err
		})
}

// DragIn is the input of drag_and_drop.
type DragIn struct {
	SessionArg
	Source  string `json:"source" jsonschema:"Selector or ref" ref:"either"`
	Target  string `json:"target" jsonschema:"Selector or ref" ref:"either"`
	Timeout int    `json:"timeout,omitempty" range:"0,300000"`
}

func (in DragIn) validate() error {
	if in.Source == "" {
		return invalid("source", "source must not be empty")
	}
	if in.Target == "" {
		return invalid("target", "target must not be empty")
	}
	return nil
}

func dragAndDrop(d *Deps) Tool {
	return sessionTool(d, "drag_and_drop", "Drag one element onto another with the mouse.", pageAction,
		func(ctx context.Context, s engine.Session, in DragIn) (ActionOut, error) {
			src, dst := engine.TargetOf(in.Source), engine.TargetOf(in.Target)
			r, err := s.Drag(ctx, engine.DragRequest{Source: src, Target: dst, Timeout: ms(in.Timeout)})
			return actionOut(fmt.Sprintf("Dragged %s onto %s", src, dst), r), err
		})
}

package engine

import (
	"context"
	"encoding/json"
	"time"
)

// Interactor holds the user-input actions beyond click and type. Each acts
// like a user (real input events), then waits for what it started.
type Interactor interface {
	Hover(ctx context.Context, req HoverRequest) (ActionResult, error)
	Press(ctx context.Context, req PressRequest) (ActionResult, error)
	Drag(ctx context.Context, req DragRequest) (ActionResult, error)
	Upload(ctx context.Context, req UploadRequest) (ActionResult, error)
	// Mouse acts at viewport coordinates, for agents that work from
	// screenshots.
	Mouse(ctx context.Context, req MouseRequest) (ActionResult, error)
	// Fill replaces a field's value as a paste would, firing input and
	// change.
	Fill(ctx context.Context, req FillRequest) (ActionResult, error)
	// Select selects options of a <select> by value or label, firing
	// input and change.
	Select(ctx context.Context, req SelectRequest) (SelectResult, error)
	// SetChecked checks or unchecks a checkbox or radio with a click, when
	// its state differs, and verifies the new state.
	SetChecked(ctx context.Context, req CheckRequest) (CheckResult, error)
	// Scroll scrolls the page by X,Y pixels, or an element into view.
	Scroll(ctx context.Context, req ScrollRequest) (ScrollResult, error)
}

// MouseRequest is a pointer action at CSS pixel coordinates of the viewport.
type MouseRequest struct {
	Action     string // "click", "move" or "drag"
	X, Y       float64
	ToX, ToY   float64 // drag only
	Button     string  // left (default), right, middle
	ClickCount int
}

// HoverRequest moves the mouse over an element.
type HoverRequest struct {
	Target  Target
	Timeout time.Duration
}

// PressRequest presses a key, e.g. "Enter", "ArrowDown", "a", with
// modifiers such as "Control" or "Shift". Key may also carry them:
// "Control+A". With a Target the element is focused first.
type PressRequest struct {
	Target    *Target
	Key       string
	Modifiers []string
	Timeout   time.Duration
}

// DragRequest drags Source onto Target with the mouse (and HTML5 drag and
// drop where the page uses it).
type DragRequest struct {
	Source, Target Target
	Timeout        time.Duration
}

// UploadRequest sets the files of a file input. Paths must exist. A zero
// Target answers the file chooser an action opened (ActionResult's
// FileChooser): Files fill it, and no Files cancel it, as a user closing
// the chooser would (the input gets a cancel event). With no chooser
// waiting, a zero Target is INVALID_PARAMETERS (NoFileChooser).
type UploadRequest struct {
	Target  Target
	Files   []string
	Timeout time.Duration
}

// Box is an element's box in page CSS pixels.
type Box struct{ X, Y, W, H float64 }

// ElementBox scrolls the target into view and returns its box, through the
// engine's Evaluate; an element with nothing to show is ELEMENT_NOT_FOUND
// with reason zero_size. Every engine's element screenshot starts here.
func ElementBox(ctx context.Context, eval func(context.Context, EvalRequest) (json.RawMessage, error), tg *Target) (Box, error) {
	raw, err := eval(ctx, EvalRequest{Target: tg, Timeout: DefaultActionTimeout,
		Function: `el => { el.scrollIntoView({block: "center", inline: "center", behavior: "instant"});
			const r = el.getBoundingClientRect();
			return {x: r.left + scrollX, y: r.top + scrollY, w: r.width, h: r.height}; }`})
	if err != nil {
		return Box{}, err
	}
	var b Box
	if err := json.Unmarshal(raw, &b); err != nil {
		return Box{}, err
	}
	if b.W == 0 || b.H == 0 {
		return Box{}, Errorf(ElementNotFound, "element %s has no visible box to capture", tg).With("reason", "zero_size")
	}
	return b, nil
}

package page

import (
	_ "embed"
	"fmt"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

//go:embed js/element.js
var elementJS string

// ElementScript returns js/element.js, the in-page function that resolves a
// target and checks it for an action. Every engine evaluates it, so that
// they find the same element and fail with the same codes and details.
func ElementScript() string { return elementJSQ }

var elementJSQ = withQuery(elementJS)

//go:embed js/hit.js
var hitJS string

// The guards an element check can set on the input that follows it (its
// argument "guard"). The first event of that input must reach the target;
// when another element would receive it, the guard stops the input before
// the page sees it, and HitScript tells the engine.
const (
	GuardClick = "click" // a click, double click or any button
	GuardHover = "hover" // a mouse move onto the element
	GuardDown  = "down"  // the press that starts a drag
	// GuardDrop guards nothing (the dragged element is under the pointer
	// at the drop), but waits for a still box even for a forced check,
	// as a drag's target is checked.
	GuardDrop = "drop"
)

// HitScript returns js/hit.js, the in-page function that ends the guard the
// element check set in its world and returns what it saw, as a Hit. The
// engine calls it in the same world, right after the input.
func HitScript() string { return hitJS }

// Hit is what HitScript returns: whether the first event of the guarded
// input reached the target (OK), another element (Missed), or no window
// of the check's world at all (None: the page handled nothing there, or a
// navigation replaced the document).
type Hit struct {
	None, OK, Missed bool
	// Blocked says the input was stopped before the page's handlers saw
	// it: nothing was clicked. A forced action is never blocked.
	Blocked bool
	// Unseen says no event of the input reached the guard's windows, and a
	// hit-test at the point after it found another element there: the
	// input went to that element (a cross-origin frame that covered the
	// target as it arrived), where no guard could stop it.
	Unseen bool
	// Reason is "moved" when the target was no longer under the point when
	// the input arrived, or "covered" when something else was on top.
	Reason     string
	Element    string
	ReceivedBy string
	Hit        string
	HitText    string
	CoveredBy  string
	Event      string
}

// HitError is the error of an action whose guarded input missed its target
// (h.Missed), or nil. A blocked input is ELEMENT_NOT_CLICKABLE with the
// reason (moved or covered), naming the element that would have received
// it, and wraps engine.ErrInputBlocked: nothing happened, and Bound tries
// the action again while its timeout lasts. A forced input that was sent
// is MissedClick's error: it happened, on that element.
func HitError(h Hit, tg engine.Target, action string) error {
	if !h.Missed {
		return nil
	}
	if h.Unseen {
		return unseenHit(h, tg, action)
	}
	if !h.Blocked {
		return MissedClick(ElementCheck{Element: h.Element, ReceivedBy: h.ReceivedBy, CoveredBy: h.CoveredBy, Hit: h.Hit, HitText: h.HitText}, tg)
	}
	by := named(h.ReceivedBy, h.HitText)
	why := "it moved away from the point before the " + action + " arrived"
	if h.Reason == "covered" {
		why = "something covered it when the " + action + " arrived"
	}
	e := engine.Wrap(engine.ElementNotClickable, engine.ErrInputBlocked,
		fmt.Sprintf("element %s did not get the %s: %s, and %s would have received it; the %s was stopped, nothing was clicked", h.Element, action, why, by, action)).
		With("reason", h.Reason).With("element", h.Element).With("receivedBy", h.ReceivedBy).With("clicked", false)
	if h.HitText != "" {
		e.With("hitText", Text(h.HitText))
	}
	if h.CoveredBy != "" {
		e.With("coveredBy", h.CoveredBy).With("hit", h.Hit)
	}
	e.Suggest("Wait for the page to stop moving (take a snapshot), then act again.")
	return withTarget(e, tg)
}

// unseenHit is HitError's error for an input that went to another element
// than its target where the guard could not see it (h.Unseen): it
// happened, so it is not retried, and says clicked: true.
func unseenHit(h Hit, tg engine.Target, action string) error {
	why := "it had moved away from the point"
	if h.Reason == "covered" {
		why = "it covered the target"
	}
	e := engine.Errorf(engine.ElementNotClickable, "the %s went to %s, which was at the point when the %s arrived (%s), and element %s did not receive it",
		action, named(h.ReceivedBy, h.HitText), action, why, h.Element).
		With("reason", h.Reason).With("element", h.Element).With("receivedBy", h.ReceivedBy).With("clicked", true).
		Suggest("Take a snapshot first: the " + action + " may have changed the page. Close or wait out what covers the target, then act again.")
	// Acting again would act again: the caller must look first.
	e.Retryable = false
	if h.CoveredBy != "" {
		e.With("coveredBy", h.CoveredBy).With("hit", h.Hit)
	}
	if h.HitText != "" {
		e.With("hitText", Text(h.HitText))
	}
	return withTarget(e, tg)
}

// named is an element's description with its text, when it shows any:
// a#continue ("Continue shopping"). The text is the page's: quoted as a
// snapshot quotes it (Quote), it holds no bracket a ref could be read
// from; details.hitText is written as outline text (Text) for the same
// reason.
func named(desc, text string) string {
	if text == "" {
		return desc
	}
	return desc + " (" + Quote(text) + ")"
}

// withTarget adds the target's selector or ref to e's details.
func withTarget(e *engine.Error, tg engine.Target) *engine.Error {
	if tg.Selector != "" {
		e.With("selector", tg.Selector)
	}
	if tg.Ref != "" {
		e.With("ref", tg.Ref)
	}
	return e
}

// ElementCheck is what ElementScript returns, decoded from JSON.
type ElementCheck struct {
	X, Y      float64
	OK        bool
	Error     string
	Reason    string
	Element   string
	CoveredBy string
	Hit       string
	// HitText is a snippet of the text of the element the point hits.
	HitText string
	Message string
	// ReceivedBy describes the element a click at (X, Y) lands on: the
	// target itself, or with Missed (only when forced) what covers it.
	ReceivedBy string
	Missed     bool
}

// MissedClick is the error of a forced click that was sent but landed on
// another element than its target (r.Missed): the element named by
// r.ReceivedBy got it, and its handlers ran. It is ELEMENT_NOT_CLICKABLE
// with reason covered, as an unforced click on a covered element is, and
// says that the click happened.
func MissedClick(r ElementCheck, tg engine.Target) error {
	cover := named(r.ReceivedBy, r.HitText)
	if r.CoveredBy != "" && r.CoveredBy != r.ReceivedBy {
		cover = fmt.Sprintf("%s (inside %s, which covers it)", cover, r.CoveredBy)
	}
	e := engine.Errorf(engine.ElementNotClickable, "the forced click on %s was sent, but %s received it, not the target", r.Element, cover).
		With("reason", "covered").With("element", r.Element).With("receivedBy", r.ReceivedBy).With("clicked", true).
		Suggest("Close or remove the element that covers the target, then click again without force; take a snapshot first: the click may have changed the page.")
	// Clicking again would click again: the caller must look first.
	e.Retryable = false
	if r.CoveredBy != "" {
		e.With("coveredBy", r.CoveredBy).With("hit", r.Hit)
	}
	if r.HitText != "" {
		e.With("hitText", Text(r.HitText))
	}
	return withTarget(e, tg)
}

// Through takes the answer c of the element check's frame climb (op
// "frame") in the world above r's: its point becomes r's, and when a
// forced click there would land on something other than the frame, that is
// what receives it.
func (r *ElementCheck) Through(c ElementCheck) {
	r.X, r.Y = c.X, c.Y
	if c.Missed && !r.Missed {
		r.Missed, r.ReceivedBy, r.CoveredBy, r.Hit, r.HitText = true, c.ReceivedBy, c.CoveredBy, c.Hit, c.HitText
	}
}

// ElementError classifies a failed ElementCheck into the engine error every
// engine returns for it; it returns nil when the check passed.
func ElementError(r ElementCheck, tg engine.Target, timeout time.Duration) error {
	var e *engine.Error
	switch r.Error {
	case "":
		return nil
	case "not_found":
		e = engine.Errorf(engine.ElementNotFound, "no element matches %s (waited %d ms)", tg, timeout.Milliseconds()).
			With("timeout", timeout.Milliseconds())
	case "invalid_selector":
		e = engine.Errorf(engine.InvalidSelector, "invalid selector %q: %s", tg.Selector, r.Message).
			With("field", "selector").With("reason", r.Message).
			Suggest("Use a valid CSS selector, or XPath starting with / or ( or xpath=.")
	case "not_clickable":
		msg := fmt.Sprintf("element %s is not clickable: %s", r.Element, reasonText(r.Reason))
		if r.CoveredBy != "" {
			msg = fmt.Sprintf("element %s is covered by %s, which would receive the click", r.Element, named(r.CoveredBy, r.HitText))
			if r.Hit != "" && r.Hit != r.CoveredBy {
				msg = fmt.Sprintf("element %s is covered by %s (its %s would receive the click)", r.Element, r.CoveredBy, named(r.Hit, r.HitText))
			}
		}
		if r.Reason == "not_stable" {
			msg = fmt.Sprintf("element %s is not clickable: it kept moving (an animation, a transition or a script moves it) and did not hold still for two animation frames within %d ms", r.Element, timeout.Milliseconds())
		}
		e = engine.Errorf(engine.ElementNotClickable, "%s", msg).With("reason", r.Reason).With("element", r.Element)
		if r.CoveredBy != "" {
			e.With("coveredBy", r.CoveredBy).With("hit", r.Hit)
		}
		if r.HitText != "" {
			e.With("hitText", Text(r.HitText))
		}
		if r.Reason == "not_stable" {
			e.With("timeout", timeout.Milliseconds()).Suggest("Wait until the element stops moving (an animation that never ends keeps it moving); force:true clicks where it is now.")
		}
	case "not_editable":
		e = engine.Errorf(engine.ElementNotEditable, "element %s cannot be typed into: %s", r.Element, reasonText(r.Reason)).
			With("reason", r.Reason).With("element", r.Element)
	default:
		e = engine.Errorf(engine.BrowserError, "unexpected element check result %q", r.Error)
	}
	return withTarget(e, tg)
}

func reasonText(r string) string {
	switch r {
	case "hidden":
		return "it is hidden"
	case "zero_size":
		return "it has zero size"
	case "disabled":
		return "it is disabled"
	case "outside_viewport":
		return "it is outside the viewport"
	case "readonly":
		return "it is read-only"
	case "not_a_text_field":
		return "it is not a text field, textarea or contenteditable element"
	case "not_focusable":
		return "it cannot take focus"
	}
	return r
}

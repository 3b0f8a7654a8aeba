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

// ElementCheck is what ElementScript returns, decoded from JSON.
type ElementCheck struct {
	X, Y      float64
	OK        bool
	Error     string
	Reason    string
	Element   string
	CoveredBy string
	Hit       string
	Message   string
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
	cover := r.ReceivedBy
	if r.CoveredBy != "" && r.CoveredBy != r.ReceivedBy {
		cover = fmt.Sprintf("%s (inside %s, which covers it)", r.ReceivedBy, r.CoveredBy)
	}
	e := engine.Errorf(engine.ElementNotClickable, "the forced click on %s was sent, but %s received it, not the target", r.Element, cover).
		With("reason", "covered").With("element", r.Element).With("receivedBy", r.ReceivedBy).With("clicked", true).
		Suggest("Close or remove the element that covers the target, then click again without force; take a snapshot first: the click may have changed the page.")
	// Clicking again would click again: the caller must look first.
	e.Retryable = false
	if r.CoveredBy != "" {
		e.With("coveredBy", r.CoveredBy).With("hit", r.Hit)
	}
	if tg.Selector != "" {
		e.With("selector", tg.Selector)
	}
	if tg.Ref != "" {
		e.With("ref", tg.Ref)
	}
	return e
}

// Through takes the answer c of the element check's frame climb (op
// "frame") in the world above r's: its point becomes r's, and when a
// forced click there would land on something other than the frame, that is
// what receives it.
func (r *ElementCheck) Through(c ElementCheck) {
	r.X, r.Y = c.X, c.Y
	if c.Missed && !r.Missed {
		r.Missed, r.ReceivedBy, r.CoveredBy, r.Hit = true, c.ReceivedBy, c.CoveredBy, c.Hit
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
			msg = fmt.Sprintf("element %s is covered by %s, which would receive the click", r.Element, r.CoveredBy)
			if r.Hit != "" && r.Hit != r.CoveredBy {
				msg = fmt.Sprintf("element %s is covered by %s (its %s would receive the click)", r.Element, r.CoveredBy, r.Hit)
			}
		}
		e = engine.Errorf(engine.ElementNotClickable, "%s", msg).With("reason", r.Reason).With("element", r.Element)
		if r.CoveredBy != "" {
			e.With("coveredBy", r.CoveredBy).With("hit", r.Hit)
		}
	case "not_editable":
		e = engine.Errorf(engine.ElementNotEditable, "element %s cannot be typed into: %s", r.Element, reasonText(r.Reason)).
			With("reason", r.Reason).With("element", r.Element)
	default:
		e = engine.Errorf(engine.BrowserError, "unexpected element check result %q", r.Error)
	}
	if tg.Selector != "" {
		e.With("selector", tg.Selector)
	}
	if tg.Ref != "" {
		e.With("ref", tg.Ref)
	}
	return e
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

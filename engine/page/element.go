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
		e = engine.Errorf(engine.InvalidParameters, "invalid selector %q: %s", tg.Selector, r.Message).
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

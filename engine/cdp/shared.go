package cdp

import (
	"encoding/json"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// ElementScript returns js/element.js, the in-page function that resolves a
// target and checks it for an action. engine/pw evaluates the same script so
// that both engines find the same element and fail with the same codes and
// details.
func ElementScript() string { return elementJS }

// ElementCheck is what ElementScript returns, decoded from JSON.
type ElementCheck = elemResult

// ElementError classifies a failed ElementCheck into the engine error every
// engine returns for it; it returns nil when the check passed.
func ElementError(r ElementCheck, tg engine.Target, timeout time.Duration) error {
	return elemError(r, tg, timeout)
}

// EvalScript returns js/eval.js, the in-page runner of engine.EvalRequest
// functions. engine/pw evaluates the same script so that results, waits and
// failures match.
func EvalScript() string { return evalJS }

// EvalOutcome is what EvalScript returns, decoded from JSON.
type EvalOutcome = evalOut

// EvalResult turns an EvalOutcome into the JSON result or the engine error
// every engine returns for it.
func EvalResult(r EvalOutcome, tg engine.Target, timeout time.Duration) (json.RawMessage, error) {
	return decodeEval(r, tg, timeout)
}

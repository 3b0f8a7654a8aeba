package cdp

import (
	"encoding/json"
	"strings"
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

// ParseKey parses a key such as "Control+Shift+A" plus extra modifiers as
// engine/cdp's Press does, with the same INVALID_PARAMETERS errors, and
// returns the modifiers and the key as DOM key names ("Control", "Enter",
// " ", "a").
func ParseKey(key string, extra []string) (mods []string, name string, err error) {
	ms, k, err := parseKey(key, extra)
	if err != nil {
		return nil, "", err
	}
	for _, m := range ms {
		mods = append(mods, modifierBits[strings.ToLower(m)].key)
	}
	return mods, k.Key, nil
}

package page

import (
	_ "embed"
	"encoding/json"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

//go:embed js/eval.js
var evalJS string

// EvalScript returns js/eval.js, the in-page runner of engine.EvalRequest
// functions. Every engine evaluates it, so that results, waits and failures
// match.
func EvalScript() string { return evalJSQ }

var evalJSQ = withQuery(evalJS)

// EvalOutcome is what EvalScript returns, decoded from JSON.
type EvalOutcome struct {
	JSON    *string `json:"json"`
	Error   string  `json:"error"`
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Timeout bool    `json:"timeout"`
}

// EvalResult turns an EvalOutcome into the JSON result or the engine error
// every engine returns for it.
func EvalResult(r EvalOutcome, tg engine.Target, timeout time.Duration) (json.RawMessage, error) {
	if r.Timeout {
		return nil, engine.Errorf(engine.Timeout, "%s did not become the requested state within %d ms", tg, timeout.Milliseconds()).
			With("timeout", timeout.Milliseconds())
	}
	switch r.Error {
	case "":
		if r.JSON == nil {
			return json.RawMessage("null"), nil
		}
		return json.RawMessage(*r.JSON), nil
	case "not_found", "invalid_selector":
		return nil, ElementError(ElementCheck{Error: r.Error, Message: r.Message}, tg, timeout)
	case "not_serializable":
		return nil, engine.Errorf(engine.ScriptError, "the script returned a %s, which is not JSON", r.Type).
			With("reason", "not_serializable").With("type", r.Type)
	default:
		return nil, engine.Errorf(engine.ScriptError, "the script threw: %s", r.Message).With("reason", "exception")
	}
}

package page

import (
	_ "embed"
	"strings"

	"github.com/seed4af8c199/browsermcp/engine"
)

//go:embed js/storage.js
var storageJS string

// StorageScript returns js/storage.js, the in-page function of an
// engine.StorageRequest, called with StorageArgs. Every engine runs it in
// the frame of the request's origin, so that results and refusals match.
func StorageScript() string { return strings.TrimSpace(storageJS[strings.Index(storageJS, "(a) =>"):]) }

// StorageArgs is the argument of StorageScript for req.
func StorageArgs(req engine.StorageRequest) map[string]any {
	return map[string]any{"session": req.Session, "action": req.Action, "key": req.Key, "value": req.Value}
}

// StorageOutcome is what StorageScript returns, decoded from JSON.
type StorageOutcome struct {
	engine.StorageResult
	Error   string `json:"error"`
	Message string `json:"message"`
}

// StorageResult turns a StorageOutcome in origin into the result, or the
// error every engine returns when the page refused.
func StorageResult(o StorageOutcome, req engine.StorageRequest, origin string) (engine.StorageResult, error) {
	switch o.Error {
	case "":
		o.StorageResult.Origin = origin
		return o.StorageResult, nil
	case "QuotaExceededError":
		return engine.StorageResult{}, engine.Errorf(engine.ResourceExhausted, "%s of %s is full: %s", req.Area(), origin, engine.Clip(o.Message, 300)).
			With("reason", "quota").With("field", "value")
	default:
		return engine.StorageResult{}, engine.Errorf(engine.BrowserError, "the page refused access to %s of %s: %s: %s", req.Area(), origin, o.Error, engine.Clip(o.Message, 300)).
			With("reason", "refused")
	}
}

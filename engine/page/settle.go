package page

import (
	_ "embed"
	"encoding/json"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

//go:embed js/settle.js
var settleJS string

// SettleInitScript returns the settle tracker (js/settle.js) as a script
// that installs itself: both engines add it to every document of a session,
// in the main world, before the page's own scripts run. Timers longer than
// engine.SettleDOMMax are never waited for.
func SettleInitScript() string {
	return "(" + settleJS + ")({max: " + itoa(engine.SettleDOMMax) + "});"
}

// SettleBeginScript begins a generation explicitly, before a script that
// acts like a user (engine.EvalRequest.Settle); frame makes the settle that
// follows wait for the next frame first, when the script's effects (scroll
// events) come with it.
func SettleBeginScript(frame bool) string {
	f := "false"
	if frame {
		f = "true"
	}
	return `(() => { const t = window[Symbol.for("browsermcp.settle")]; if (t) t.begin(` + f + `); return 0; })()`
}

// SettleScript returns an expression whose promise resolves (to a
// SettleOutcome) when the work the action set off in the page is quiet:
// nothing it scheduled pending and, once something asynchronous happened,
// engine.SettleDOMQuiet without a change, at most max after it starts. A
// document without the tracker resolves at once.
func SettleScript(max time.Duration) string {
	a, _ := json.Marshal(map[string]int64{"quiet": engine.SettleDOMQuiet.Milliseconds(), "max": max.Milliseconds()})
	return `(() => { const t = window[Symbol.for("browsermcp.settle")]; return t ? t.settle(` + string(a) + `) : {untracked: true}; })()`
}

// SettleOutcome is what SettleScript resolves to.
type SettleOutcome struct {
	// Waited is how long the page was waited for, in ms.
	Waited int `json:"waited"`
	// Capped: the wait ended at its bound with work still going on.
	Capped bool `json:"capped"`
	// Pending counts the timers and frames still pending then.
	Pending int `json:"pending"`
	// Untracked: the document has no tracker (it was loaded before the
	// session could add it).
	Untracked bool `json:"untracked"`
}

func itoa(d time.Duration) string {
	b, _ := json.Marshal(d.Milliseconds())
	return string(b)
}

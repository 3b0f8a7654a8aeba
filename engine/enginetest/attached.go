package enginetest

import (
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
)

// RunSnapshots runs the parts of the suite that snapshots and their refs
// touch: the outline and its options, refs and the actions on them (click,
// type, hover, press, evaluate), stale refs, frames, refs across tabs,
// shadow DOM, and the changes after actions. It is for an engine whose snapshots take another path than
// the one Run already covers, such as engine/cdp attached to a Chromium
// started without our switches, where the snapshot script computes roles
// and names itself. newEngine is as for Run.
func RunSnapshots(t *testing.T, newEngine func(t *testing.T) engine.Engine) {
	h := &harness{site: startSite(t)}
	h.eng = bound{newEngine(t)}
	h.eng.Start()
	t.Cleanup(func() { h.eng.Close() })
	t.Run("Snapshot", h.testSnapshot)
	t.Run("RefsAcrossTabs", h.testRefsAcrossTabs)
	t.Run("Shadow", h.testShadow)
	t.Run("Changes", h.testChanges)
}

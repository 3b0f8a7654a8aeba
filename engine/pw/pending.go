package pw

import (
	"context"

	"github.com/seed4af8c199/browsermcp/engine"
)

// What the Playwright engine does not implement yet answers UNSUPPORTED
// naming the engine and browser, so an agent learns at once to use the cdp
// engine with Chromium for it; nothing fakes a result. The conformance suite
// accepts exactly this answer.
//
// Snapshot is not implemented: engine/cdp's js/snapshot.js reads roles and
// names from Chromium's Element.computedRole (absent on Firefox), splices
// cross-origin frames walked in their own worlds, and its refs must then
// resolve in every element action; none of that is wired here yet, and
// Playwright's ariaSnapshot has no stable per-element refs.

func (s *session) notYet(feature string) *engine.Error {
	return engine.Errorf(engine.Unsupported, "%s is not implemented by the playwright engine yet (browser %s)", feature, s.e.cfg.Browser).
		With("browser", s.e.cfg.Browser).With("engine", "playwright").
		Suggest("Use --engine cdp with Chromium for this tool.")
}

func (s *session) Snapshot(context.Context, engine.SnapshotRequest) (engine.SnapshotResult, error) {
	return engine.SnapshotResult{}, s.notYet("snapshot")
}

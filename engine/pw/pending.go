package pw

import (
	"context"

	"github.com/seed4af8c199/browsermcp/engine"
)

// The catalogue methods below are not implemented by the Playwright engine
// yet. Each answers UNSUPPORTED naming the engine and browser, so an agent
// learns at once to use the cdp engine with Chromium for them; none fakes a
// result. The conformance suite asserts exactly this answer.

func (s *session) notYet(feature string) *engine.Error {
	return engine.Errorf(engine.Unsupported, "%s is not implemented by the playwright engine yet (browser %s)", feature, s.e.cfg.Browser).
		With("browser", s.e.cfg.Browser).With("engine", "playwright").
		Suggest("Use --engine cdp with Chromium for this tool.")
}

func (s *session) Snapshot(context.Context, engine.SnapshotRequest) (engine.SnapshotResult, error) {
	return engine.SnapshotResult{}, s.notYet("snapshot")
}

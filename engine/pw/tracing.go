package pw

import (
	"context"

	"github.com/seed4af8c199/browsermcp/engine"
)

// StartTracing answers UNSUPPORTED (engine.Tracer). Firefox has no Chrome
// trace at all; Chromium under Playwright would need the trace's stream
// read through a CDPSession beside Playwright's own, which the cdp engine
// does natively.
func (t *tabbed) StartTracing(ctx context.Context, req engine.TraceRequest) error {
	b := t.e.cfg.Browser
	if b != Chromium {
		return unsupported(b, "start_tracing", "a performance trace is Chrome's (the DevTools protocol's Tracing domain), which "+b+" (playwright) does not record")
	}
	return engine.Errorf(engine.Unsupported, "start_tracing is not supported by the playwright engine, even on chromium: it records Chrome traces only with the cdp engine").
		With("browser", b).With("engine", "playwright").
		Suggest("Start browsermcp with --engine cdp to record traces of Chromium.")
}

// StopTracing answers NO_RECORDING: no trace ever starts here.
func (t *tabbed) StopTracing(ctx context.Context) (engine.Recorded, error) {
	return engine.Recorded{}, engine.Errorf(engine.NoRecording, "no trace is recording on this session; call start_tracing first")
}

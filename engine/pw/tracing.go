package pw

import (
	"context"
	"encoding/base64"
	"strings"
	"sync"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit"
)

// tracer is the trace a session runs on one of its tabs, on Chromium:
// Tracing.start through the tab's DevTools session (shared.devtoolsFor),
// as engine/cdp does natively, its stream read with IO.read into the
// file. kit.TraceRun keeps its bounds and its one stop.
type tracer struct {
	*kit.TraceRun
	tab *session
	// complete takes the Tracing.tracingComplete event's parameters.
	complete chan map[string]any
}

// StartTracing starts a trace of the current tab (engine.Tracer).
// Firefox has no Chrome trace: it answers UNSUPPORTED naming it.
func (t *tabbed) StartTracing(ctx context.Context, req engine.TraceRequest) error {
	if b := t.e.cfg.Browser; b != Chromium {
		return tracingUnsupported(b, "start_tracing")
	}
	if err := t.trace.Begin(); err != nil {
		return err
	}
	started := false
	defer func() {
		if !started {
			t.trace.Release()
		}
	}()
	s := t.tabs.Current()
	if err := s.alive(); err != nil {
		return err
	}
	cs, err := s.sh.devtoolsFor(ctx, s.bctx, s.page)
	if err != nil {
		return s.classify(err, "open a DevTools session for the trace")
	}
	tr := &tracer{tab: s, complete: make(chan map[string]any, 1)}
	full := make(chan struct{})
	var fullOnce sync.Once
	onUsage := func(p any) {
		m, _ := p.(map[string]any)
		pf, _ := m["percentFull"].(float64)
		v, _ := m["value"].(float64)
		if max(pf, v) >= kit.TraceBufferFull {
			fullOnce.Do(func() { close(full) })
		}
	}
	onComplete := func(p any) {
		m, _ := p.(map[string]any)
		select {
		case tr.complete <- m:
		default:
		}
	}
	cs.On("Tracing.bufferUsage", onUsage)
	cs.On("Tracing.tracingComplete", onComplete)
	cats, kb := kit.TraceConfig(req)
	err = do(ctx, func() error {
		_, err := cs.Send("Tracing.start", map[string]any{
			"transferMode": "ReturnAsStream", "streamFormat": "json", "bufferUsageReportingInterval": kit.TraceBufferUsageMs,
			"traceConfig": map[string]any{"recordMode": "recordUntilFull", "traceBufferSizeInKb": kb, "includedCategories": cats},
		})
		return err
	})
	forget := func() {
		cs.RemoveListener("Tracing.bufferUsage", onUsage)
		cs.RemoveListener("Tracing.tracingComplete", onComplete)
	}
	if err != nil {
		forget()
		if strings.Contains(err.Error(), "already been started") {
			return kit.TraceBusy(err)
		}
		return s.classify(err, "start tracing")
	}
	tr.TraceRun = kit.StartTraceRun(req, kit.TraceEnds{Full: full, Crash: s.st.crash.Done(), Gone: s.b.Gone()},
		func(ctx context.Context) (int64, bool, error) { return tr.end(ctx, cs) },
		func() {
			forget()
			t.trace.Clear(tr.TraceRun)
		})
	started = true
	t.trace.Set(s, tr.TraceRun)
	return nil
}

// StopTracing ends the trace and writes its file (engine.Tracer).
// Firefox, which has none to stop, answers UNSUPPORTED naming it.
func (t *tabbed) StopTracing(ctx context.Context) (engine.Recorded, error) {
	if b := t.e.cfg.Browser; b != Chromium {
		return engine.Recorded{}, tracingUnsupported(b, "stop_tracing")
	}
	return t.trace.Stop(ctx)
}

// tracingUnsupported is the error of the tracing tools on a browser
// other than Chromium.
func tracingUnsupported(browser, tool string) *engine.Error {
	return unsupported(browser, tool, "a performance trace is Chrome's (the DevTools protocol's Tracing domain), which "+browser+" (playwright) does not record")
}

// devtools is the part of a CDP session a trace's end needs.
type devtoolsSender interface {
	Send(method string, params map[string]any) (any, error)
}

// end sends Tracing.end, waits for tracingComplete and copies the stream
// into the file.
func (tr *tracer) end(ctx context.Context, cs devtoolsSender) (int64, bool, error) {
	s := tr.tab
	if err := s.alive(); err != nil {
		return 0, false, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.st.crash, cancel)
	defer stop()
	if err := do(ctx, func() error { _, err := cs.Send("Tracing.end", nil); return err }); err != nil {
		return 0, false, s.classify(err, "end the trace")
	}
	var ev map[string]any
	select {
	case ev = <-tr.complete:
	case <-ctx.Done():
		return 0, false, s.classify(ctx.Err(), "wait for the trace to complete")
	}
	handle, _ := ev["stream"].(string)
	if handle == "" {
		return 0, false, engine.Errorf(engine.BrowserError, "the browser ended the trace without its data")
	}
	defer func() {
		cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), engine.CleanupTimeout)
		defer ccancel()
		_ = do(cctx, func() error { _, err := cs.Send("IO.close", map[string]any{"handle": handle}); return err })
	}()
	r := &kit.StreamReader{Next: func() ([]byte, bool, error) {
		res, err := call(ctx, func() (any, error) { return cs.Send("IO.read", map[string]any{"handle": handle, "size": 1 << 20}) }, nil)
		if err != nil {
			return nil, false, s.classify(err, "read the trace")
		}
		m, _ := res.(map[string]any)
		data, _ := m["data"].(string)
		eof, _ := m["eof"].(bool)
		if b64, _ := m["base64Encoded"].(bool); b64 {
			b, err := base64.StdEncoding.DecodeString(data)
			return b, eof, err
		}
		return []byte(data), eof, nil
	}}
	return kit.WriteTrace(tr.Path(), r, tr.MaxBytes())
}

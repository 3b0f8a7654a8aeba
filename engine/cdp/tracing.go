package cdp

import (
	"context"
	"errors"
	"strings"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	cdpio "github.com/chromedp/cdproto/io"
	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit"
)

// tracer is the trace a session runs on one of its tabs: Tracing.start on
// that tab's target, the events kept by the browser until Tracing.end
// (ReturnAsStream), then read from the stream into the file. kit.TraceRun
// keeps its bounds and its one stop, and t.trace (a kit.TraceSlot) the
// session's one trace.
type tracer struct {
	*kit.TraceRun
	tab *session
}

// StartTracing starts a trace of the current tab (engine.Tracer).
func (t *tabbed) StartTracing(ctx context.Context, req engine.TraceRequest) error {
	if err := t.trace.Begin(); err != nil {
		return err
	}
	s := t.tabs.Current()
	cats, kb := kit.TraceConfig(req)
	// Subscribed before the start, so that no report of a full buffer is
	// missed; the subscription ends with the trace.
	wctx, wcancel := context.WithCancel(s.tab)
	usage := chromedp.Events(wctx, tracing.BufferUsage)
	err := s.run(ctx, "start tracing", func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, tracing.Start, tracing.StartParams{
			TransferMode:                 tracing.StartTransferModeReturnAsStream,
			StreamFormat:                 tracing.StreamFormatJSON,
			BufferUsageReportingInterval: kit.TraceBufferUsageMs,
			TraceConfig: &tracing.TraceConfig{
				RecordMode:          tracing.TraceConfigRecordModeRecordUntilFull,
				TraceBufferSizeInKb: float64(kb),
				IncludedCategories:  cats,
			},
		})
		var ce *cdproto.Error
		if errors.As(err, &ce) && strings.Contains(ce.Message, "already been started") {
			return kit.TraceBusy(err)
		}
		return err
	})
	if err != nil {
		wcancel()
		t.trace.Release()
		return err
	}
	full := make(chan struct{})
	go func() {
		for ev, err := range usage {
			if err != nil {
				return
			}
			if max(ev.PercentFull, ev.Value) >= kit.TraceBufferFull {
				close(full)
				return
			}
		}
	}()
	tr := &tracer{tab: s}
	tr.TraceRun = kit.StartTraceRun(req, kit.TraceEnds{Full: full, Crash: s.st.crash.Done(), Gone: s.b.Gone()}, tr.end, func() {
		wcancel()
		t.trace.Clear(tr.TraceRun)
	})
	t.trace.Set(s, tr.TraceRun)
	return nil
}

// StopTracing ends the trace and writes its file (engine.Tracer).
func (t *tabbed) StopTracing(ctx context.Context) (engine.Recorded, error) {
	return t.trace.Stop(ctx)
}

// end sends Tracing.end, waits for tracingComplete and copies the stream
// into the file; cut reports a trace cut at its size bound.
func (tr *tracer) end(ctx context.Context) (n int64, cut bool, err error) {
	s := tr.tab
	if err := s.alive(); err != nil {
		return 0, false, err
	}
	c, cancel := s.bind(ctx)
	defer cancel()
	stop := context.AfterFunc(s.st.crash, cancel)
	defer stop()
	done := chromedp.Events(c, tracing.TracingComplete)
	if _, err := chromedp.Call(c, tracing.End, cdp.Empty{}); err != nil {
		return 0, false, s.classify(err, "end the trace")
	}
	var ev tracing.EventTracingComplete
	for e, err := range done {
		if err != nil {
			return 0, false, s.classify(err, "wait for the trace to complete")
		}
		ev = e
		break
	}
	if ev.Stream == "" {
		return 0, false, engine.Errorf(engine.BrowserError, "the browser ended the trace without its data")
	}
	tg := chromedp.FromContext(c).Target
	defer func() {
		cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), engine.CleanupTimeout)
		defer ccancel()
		_, _ = cdp.Call(cctx, tg, cdpio.Close, cdpio.CloseParams{Handle: ev.Stream})
	}()
	r := &kit.StreamReader{Next: func() ([]byte, bool, error) {
		res, err := cdp.Call(c, tg, cdpio.Read, cdpio.ReadParams{Handle: ev.Stream, Size: 1 << 20})
		if err != nil {
			return nil, false, s.classify(err, "read the trace")
		}
		return res.Data, res.EOF, nil
	}}
	return kit.WriteTrace(tr.Path(), r, tr.MaxBytes())
}

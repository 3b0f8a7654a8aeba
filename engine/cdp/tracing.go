package cdp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

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
// (ReturnAsStream), then read from the stream into the file. It stops by
// itself when its buffer is full, its time is up, or its tab or browser
// goes away.
type tracer struct {
	t       *tabbed
	tab     *session
	req     engine.TraceRequest
	started time.Time
	// quit stops the watcher; watched closes when it has returned.
	quit, watched chan struct{}

	once     sync.Once
	finished chan struct{}
	rec      engine.Recorded
	err      error
}

// traceBufferUsageMs is how often the browser reports how full the trace
// buffer is, which stops a trace at its size bound.
const traceBufferUsageMs = 500

// StartTracing starts a trace of the current tab (engine.Tracer).
func (t *tabbed) StartTracing(ctx context.Context, req engine.TraceRequest) error {
	t.traceMu.Lock()
	defer t.traceMu.Unlock()
	if t.trace != nil {
		return engine.Errorf(engine.RecordingActive, "a trace is already recording on this session, into %s; call stop_tracing first", t.trace.req.Path).
			With("path", t.trace.req.Path)
	}
	s := t.tabs.Current()
	cats := engine.TraceCategories
	if req.Screenshots {
		cats = append(cats[:len(cats):len(cats)], engine.TraceScreenshotCategory)
	}
	kb := max(req.Limits.MaxBytes/1024, 64)
	tr := &tracer{t: t, tab: s, req: req, quit: make(chan struct{}), watched: make(chan struct{}), finished: make(chan struct{})}
	// Subscribed before the start, so that no report of a full buffer is
	// missed; the subscription ends with the watcher.
	wctx, wcancel := context.WithCancel(s.tab)
	usage := chromedp.Events(wctx, tracing.BufferUsage)
	err := s.run(ctx, "start tracing", func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, tracing.Start, tracing.StartParams{
			TransferMode:                 tracing.StartTransferModeReturnAsStream,
			StreamFormat:                 tracing.StreamFormatJSON,
			BufferUsageReportingInterval: traceBufferUsageMs,
			TraceConfig: &tracing.TraceConfig{
				RecordMode:          tracing.TraceConfigRecordModeRecordUntilFull,
				TraceBufferSizeInKb: float64(kb),
				IncludedCategories:  cats,
			},
		})
		var ce *cdproto.Error
		if errors.As(err, &ce) && strings.Contains(ce.Message, "already been started") {
			// Chrome records one trace at a time, for the whole browser.
			return engine.Wrap(engine.RecordingActive, err, "another session of this browser is recording a trace, and Chrome records one at a time").
				With("scope", "browser").Suggest("Call start_tracing again once the other session's trace has stopped.")
		}
		return err
	})
	if err != nil {
		wcancel()
		return err
	}
	tr.started = time.Now()
	t.trace = tr
	go tr.watch(wcancel, usage)
	return nil
}

// watch stops the trace by itself: at its time bound, when the browser
// says its buffer is full, or when its tab or browser went away.
func (tr *tracer) watch(cancel context.CancelFunc, usage func(yield func(tracing.EventBufferUsage, error) bool)) {
	defer close(tr.watched)
	defer cancel()
	full := make(chan struct{})
	go func() {
		for ev, err := range usage {
			if err != nil {
				return
			}
			if max(ev.PercentFull, ev.Value) >= 0.99 {
				close(full)
				return
			}
		}
	}()
	timer := time.NewTimer(tr.req.Limits.MaxDuration)
	defer timer.Stop()
	var reason string
	select {
	case <-tr.quit:
		return
	case <-timer.C:
		reason = engine.StoppedByMaxDuration
	case <-full:
		reason = engine.StoppedByMaxBytes
	case <-tr.tab.st.crash.Done():
		reason = engine.StoppedByCrash
	case <-tr.tab.b.Gone():
		reason = engine.StoppedByCrash
	}
	// On its own goroutine: the stop waits for this one to return.
	go tr.stopBy(reason)
}

// stopBy stops the trace for reason and tells the tool layer, unless its
// stop_tracing call or another reason stopped it first.
func (tr *tracer) stopBy(reason string) {
	ctx, cancel := context.WithTimeout(context.Background(), engine.TraceStopTimeout)
	defer cancel()
	won := false
	tr.once.Do(func() { won = true; tr.finish(ctx, reason) })
	<-tr.finished
	if won && tr.req.Stopped != nil {
		tr.req.Stopped(tr.rec)
	}
}

// StopTracing ends the trace and writes its file (engine.Tracer). When
// the trace was stopping by itself, it waits for that and answers its
// file, with StoppedBy saying why.
func (t *tabbed) StopTracing(ctx context.Context) (engine.Recorded, error) {
	t.traceMu.Lock()
	tr := t.trace
	t.traceMu.Unlock()
	if tr == nil {
		return engine.Recorded{}, engine.Errorf(engine.NoRecording, "no trace is recording on this session; call start_tracing first")
	}
	tr.once.Do(func() { tr.finish(ctx, "") })
	select {
	case <-tr.finished:
	case <-ctx.Done():
		return engine.Recorded{}, engine.Wrap(engine.Timeout, ctx.Err(), "the trace was still being written by its own stop")
	}
	return tr.rec, tr.err
}

// finishTrace finishes the session's trace as it closes, or as the
// traced tab closes: the file is written whole.
func (t *tabbed) finishTrace(reason string, only *session) {
	t.traceMu.Lock()
	tr := t.trace
	t.traceMu.Unlock()
	if tr == nil || (only != nil && tr.tab != only) {
		return
	}
	tr.stopBy(reason)
}

// finish ends the trace once, for reason ("" for stop_tracing), and sets
// its result.
func (tr *tracer) finish(ctx context.Context, reason string) {
	defer close(tr.finished)
	defer func() {
		tr.t.traceMu.Lock()
		if tr.t.trace == tr {
			tr.t.trace = nil
		}
		tr.t.traceMu.Unlock()
	}()
	close(tr.quit)
	<-tr.watched
	tr.rec = engine.Recorded{Kind: engine.RecordTrace, StoppedBy: reason}
	if reason == engine.StoppedByCrash {
		// The browser held the events: there is nothing to write.
		_ = os.Remove(tr.req.Path)
		tr.rec.Duration = time.Since(tr.started)
		return
	}
	n, cut, err := tr.end(ctx)
	tr.rec.Duration = time.Since(tr.started)
	if err != nil {
		_ = os.Remove(tr.req.Path)
		if reason != "" {
			tr.rec.StoppedBy = engine.StoppedByCrash
			return
		}
		tr.err = err
		return
	}
	tr.rec.Path, tr.rec.Bytes = tr.req.Path, n
	if cut && reason == "" {
		tr.rec.StoppedBy = engine.StoppedByMaxBytes
	}
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
	r := &streamReader{read: func() ([]byte, bool, error) {
		res, err := cdp.Call(c, tg, cdpio.Read, cdpio.ReadParams{Handle: ev.Stream, Size: 1 << 20})
		if err != nil {
			return nil, false, s.classify(err, "read the trace")
		}
		return res.Data, res.EOF, nil
	}}
	n, cut, err = kit.WriteTrace(tr.req.Path, r, tr.req.Limits.MaxBytes)
	if err != nil {
		var e *engine.Error
		if !errors.As(err, &e) {
			err = engine.Wrap(engine.BrowserError, err, fmt.Sprintf("could not write the trace: %v", err))
		}
	}
	return n, cut, err
}

// streamReader reads a browser's IO stream as an io.Reader.
type streamReader struct {
	read func() (data []byte, eof bool, err error)
	buf  []byte
	eof  bool
}

func (r *streamReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if r.eof {
			return 0, io.EOF
		}
		data, eof, err := r.read()
		if err != nil {
			return 0, err
		}
		r.buf, r.eof = data, eof
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

package kit

import (
	"context"
	"io"
	"os"
	"sync"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// TraceRun is the life of one running trace, which the engines share: its
// bounds (a timer, the browser's report of a full buffer), its one stop
// (by its stop call, by itself, or by the session's close), and the
// request's Stopped callback for a stop it made by itself. The engine
// gives it End, which ends the browser's trace and writes the file.
type TraceRun struct {
	req engine.TraceRequest
	// end ends the browser's trace and writes req.Path; cut says the
	// file was cut at its size bound.
	end func(ctx context.Context) (n int64, cut bool, err error)
	// done runs once the trace has stopped, before its result is told:
	// the engine frees the session's slot for the next trace.
	done    func()
	started time.Time
	quit    chan struct{}
	watched chan struct{}

	once     sync.Once
	finished chan struct{}
	rec      engine.Recorded
	err      error
}

// TraceEnds are what stops a trace by itself: its buffer full (Full
// closes), its tab's renderer crashed or its browser gone (Crash or Gone
// closes).
type TraceEnds struct {
	Full, Crash, Gone <-chan struct{}
}

// StartTraceRun watches a trace the browser has started: it stops at
// req.Limits.MaxDuration or when one of ends closes.
func StartTraceRun(req engine.TraceRequest, ends TraceEnds, end func(context.Context) (int64, bool, error), done func()) *TraceRun {
	r := &TraceRun{req: req, end: end, done: done, started: time.Now(), quit: make(chan struct{}), watched: make(chan struct{}), finished: make(chan struct{})}
	go r.watch(ends)
	return r
}

// Path is the trace's file.
func (r *TraceRun) Path() string { return r.req.Path }

// MaxBytes is the most the trace's file may hold.
func (r *TraceRun) MaxBytes() int64 { return r.req.Limits.MaxBytes }

func (r *TraceRun) watch(ends TraceEnds) {
	defer close(r.watched)
	timer := time.NewTimer(r.req.Limits.MaxDuration)
	defer timer.Stop()
	var reason string
	select {
	case <-r.quit:
		return
	case <-timer.C:
		reason = engine.StoppedByMaxDuration
	case <-ends.Full:
		reason = engine.StoppedByMaxBytes
	case <-ends.Crash:
		reason = engine.StoppedByCrash
	case <-ends.Gone:
		reason = engine.StoppedByCrash
	}
	// On its own goroutine: the stop waits for this one to return.
	go r.StopBy(reason)
}

// StopBy stops the trace for reason (a StoppedBy* reason) and tells the
// request's Stopped, unless its stop call or another reason stopped it
// first; it returns once the trace has stopped.
func (r *TraceRun) StopBy(reason string) {
	ctx, cancel := context.WithTimeout(context.Background(), engine.TraceStopTimeout)
	defer cancel()
	won := false
	r.once.Do(func() { won = true; r.finish(ctx, reason) })
	<-r.finished
	if won && r.req.Stopped != nil {
		r.req.Stopped(r.rec)
	}
}

// Stop is the stop call's: it ends the trace and writes its file. When
// the trace was stopping by itself, it waits for that and answers its
// file, with StoppedBy saying why.
func (r *TraceRun) Stop(ctx context.Context) (engine.Recorded, error) {
	r.once.Do(func() { r.finish(ctx, "") })
	select {
	case <-r.finished:
	case <-ctx.Done():
		return engine.Recorded{}, engine.Wrap(engine.Timeout, ctx.Err(), "the trace was still being written by its own stop")
	}
	return r.rec, r.err
}

// finish ends the trace once, for reason ("" for the stop call), and
// sets its result.
func (r *TraceRun) finish(ctx context.Context, reason string) {
	defer close(r.finished)
	defer r.done()
	close(r.quit)
	<-r.watched
	r.rec = engine.Recorded{Kind: engine.RecordTrace, StoppedBy: reason}
	if reason == engine.StoppedByCrash {
		// The browser held the events: there is nothing to write.
		_ = os.Remove(r.req.Path)
		r.rec.Duration = time.Since(r.started)
		return
	}
	n, cut, err := r.end(ctx)
	r.rec.Duration = time.Since(r.started)
	if err != nil {
		_ = os.Remove(r.req.Path)
		if reason != "" {
			r.rec.StoppedBy = engine.StoppedByCrash
			return
		}
		r.err = err
		return
	}
	r.rec.Path, r.rec.Bytes = r.req.Path, n
	if cut && reason == "" {
		r.rec.StoppedBy = engine.StoppedByMaxBytes
	}
}

// TraceConfig is the Tracing.start parameters of req, as the DevTools
// protocol names them: the Performance panel's categories, the stream
// transfer, a buffer of the size bound, and reports of its use.
func TraceConfig(req engine.TraceRequest) (cats []string, bufferKB int64) {
	return req.Categories(), max(req.Limits.MaxBytes/1024, 64)
}

// TraceBufferUsageMs is how often the browser reports how full the trace
// buffer is, which stops a trace at its size bound; TraceBufferFull is
// the share of it that counts as full.
const (
	TraceBufferUsageMs = 500
	TraceBufferFull    = 0.99
)

// StreamReader reads a browser's IO stream (IO.read) as an io.Reader:
// Next reads the next piece.
type StreamReader struct {
	Next func() (data []byte, eof bool, err error)
	buf  []byte
	eof  bool
}

func (r *StreamReader) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if r.eof {
			return 0, io.EOF
		}
		data, eof, err := r.Next()
		if err != nil {
			return 0, err
		}
		r.buf, r.eof = data, eof
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// TraceSlot is a session's one trace, as the engines keep it: Begin holds
// it while a start runs, and Stop and Finish act on what it holds. Tab is
// the engine's tab, which a trace records. The zero TraceSlot is empty.
type TraceSlot[Tab comparable] struct {
	mu  sync.Mutex
	run *TraceRun
	tab Tab
}

// Begin takes the slot for a start, which must end with Set or Release:
// RECORDING_ACTIVE while a trace runs on the session.
func (s *TraceSlot[Tab]) Begin() error {
	s.mu.Lock()
	if s.run != nil {
		path := s.run.Path()
		s.mu.Unlock()
		return engine.Errorf(engine.RecordingActive, "a trace is already recording on this session, into %s; call stop_tracing first", path).
			With("path", path)
	}
	return nil
}

// Set ends a start that made r on tab: the slot holds it until r stops.
func (s *TraceSlot[Tab]) Set(tab Tab, r *TraceRun) {
	s.run, s.tab = r, tab
	s.mu.Unlock()
}

// Release ends a start that failed.
func (s *TraceSlot[Tab]) Release() { s.mu.Unlock() }

// Clear empties the slot once r has stopped (StartTraceRun's done).
func (s *TraceSlot[Tab]) Clear(r *TraceRun) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.run == r {
		var zero Tab
		s.run, s.tab = nil, zero
	}
}

// held is the running trace and its tab, or nil.
func (s *TraceSlot[Tab]) held() (*TraceRun, Tab) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.run, s.tab
}

// Stop is stop_tracing's: NO_RECORDING when no trace runs.
func (s *TraceSlot[Tab]) Stop(ctx context.Context) (engine.Recorded, error) {
	r, _ := s.held()
	if r == nil {
		return engine.Recorded{}, engine.Errorf(engine.NoRecording, "no trace is recording on this session; call start_tracing first")
	}
	return r.Stop(ctx)
}

// Finish finishes the running trace for reason, as its session closes
// (only is the zero Tab) or as the tab only closes, if it records that
// tab: the file is written whole.
func (s *TraceSlot[Tab]) Finish(reason string, only Tab) {
	r, tab := s.held()
	var zero Tab
	if r != nil && (only == zero || tab == only) {
		r.StopBy(reason)
	}
}

// TraceBusy is the error of a start while another session of the browser
// traces: Chrome records one trace at a time, for the whole browser.
func TraceBusy(err error) error {
	return engine.Wrap(engine.RecordingActive, err, "another session of this browser is recording a trace, and Chrome records one at a time").
		With("scope", "browser").Suggest("Call start_tracing again once the other session's trace has stopped.")
}

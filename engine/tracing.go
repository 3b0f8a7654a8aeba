package engine

import (
	"context"
	"time"
)

// Tracer records a Chrome performance trace of the session's current tab,
// the file Chrome DevTools' Performance panel and Perfetto load: a JSON
// object {"traceEvents": [...], ...}.
type Tracer interface {
	// StartTracing starts a trace of the current tab into req.Path. It
	// stops by itself at req.Limits (the trace buffer's size, a timer)
	// and, finishing the file, when the session closes; req.Stopped says
	// so. A browser that cannot trace answers UNSUPPORTED naming it.
	StartTracing(ctx context.Context, req TraceRequest) error
	// StopTracing ends the trace and writes its file. With no trace
	// running it answers NO_RECORDING.
	StopTracing(ctx context.Context) (Recorded, error)
}

// TraceRequest starts a trace.
type TraceRequest struct {
	RecordingRequest
	// Screenshots adds the page's frames (DevTools' filmstrip) to the
	// trace; they make it several times larger.
	Screenshots bool
}

// TraceCategories are the categories a trace records: those Chrome
// DevTools' Performance panel records.
var TraceCategories = []string{
	"devtools.timeline",
	"disabled-by-default-devtools.timeline",
	"disabled-by-default-devtools.timeline.frame",
	"v8.execute",
	"blink.user_timing",
	"loading",
	"latencyInfo",
	"toplevel",
	"disabled-by-default-devtools.timeline.stack",
	"disabled-by-default-v8.cpu_profiler",
}

// TraceScreenshotCategory is the category of the filmstrip's frames.
const TraceScreenshotCategory = "disabled-by-default-devtools.screenshot"

// Categories are the categories r records: TraceCategories, and the
// filmstrip's with Screenshots.
func (r TraceRequest) Categories() []string {
	if r.Screenshots {
		return append(TraceCategories[:len(TraceCategories):len(TraceCategories)], TraceScreenshotCategory)
	}
	return TraceCategories
}

// TraceStopTimeout bounds StopTracing: the browser flushes its buffer and
// the file is read from it in pieces, up to RecordingLimits.MaxBytes.
const TraceStopTimeout = 2 * time.Minute

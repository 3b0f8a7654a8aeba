package tools

import (
	"context"
	"fmt"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// StartTracingIn is the input of start_tracing.
type StartTracingIn struct {
	SessionArg
	Screenshots bool `json:"screenshots,omitempty" jsonschema:"Add the page's frames (a filmstrip); the file grows several times"`
	Keep        bool `json:"keep,omitempty" jsonschema:"Keep the file after the session ends"`
}

// StartTracingOut is the result of start_tracing.
type StartTracingOut struct {
	Path          string   `json:"path" jsonschema:"The file the trace will be written to"`
	Categories    []string `json:"categories"`
	MaxBytes      int64    `json:"maxBytes"`
	MaxDurationMs int64    `json:"maxDurationMs"`
	Message       string   `json:"message"`
	SessionMeta
}

// StopTracingOut is the result of stop_tracing.
type StopTracingOut struct {
	Path       string `json:"path" jsonschema:"The trace: open it in Chrome DevTools' Performance panel or ui.perfetto.dev"`
	Bytes      int64  `json:"bytes"`
	DurationMs int64  `json:"durationMs"`
	Kept       bool   `json:"kept,omitempty"`
	// StoppedBy is set when the trace had stopped by itself (a bound),
	// or was cut at its size bound.
	StoppedBy string       `json:"stoppedBy,omitempty"`
	Summary   TraceSummary `json:"summary"`
	Message   string       `json:"message"`
	SessionMeta
}

func startTracing(d *Deps) Tool {
	t := sessionTool(d, "start_tracing", "Record a Chrome performance trace of the current tab until stop_tracing (Chromium only).", local,
		func(ctx context.Context, s engine.Session, in StartTracingIn) (StartTracingOut, error) {
			id := engine.SessionIDFrom(ctx)
			req, err := d.recs.begin(id, engine.RecordTrace, "json", in.Keep)
			if err != nil {
				return StartTracingOut{}, err
			}
			treq := engine.TraceRequest{RecordingRequest: req, Screenshots: in.Screenshots}
			if err := s.StartTracing(ctx, treq); err != nil {
				d.recs.abandon(id, engine.RecordTrace)
				return StartTracingOut{}, err
			}
			return StartTracingOut{Path: req.Path, Categories: treq.Categories(), MaxBytes: req.Limits.MaxBytes, MaxDurationMs: req.Limits.MaxDuration.Milliseconds(),
				Message: fmt.Sprintf("Tracing the current tab into %s; it stops by itself after %s or %d MiB. Act on the page, then call stop_tracing.",
					req.Path, req.Limits.MaxDuration, req.Limits.MaxBytes>>20)}, nil
		})
	return inGroup(Devtools, t)
}

func stopTracing(d *Deps) Tool {
	t := sessionTool(d, "stop_tracing", "Stop the trace, write its file, and summarize it: long tasks, slowest scripts, layout shifts.", local,
		func(ctx context.Context, s engine.Session, in PageIn) (StopTracingOut, error) {
			id := engine.SessionIDFrom(ctx)
			cur, err := d.recs.end(id, engine.RecordTrace)
			if err != nil {
				return StopTracingOut{}, noRecording(err, func() error { _, err := s.StopTracing(ctx); return err })
			}
			rec := engine.Recorded{}
			if cur.done != nil {
				// It stopped by itself (a bound, its tab closed): the
				// engine has nothing to stop, and the file is whole.
				if cur.done.Path == "" {
					return StopTracingOut{}, cur.doneErr(engine.RecordTrace)
				}
				rec = *cur.done
			} else {
				rec, err = s.StopTracing(ctx)
				if fin, ok := d.recs.raced(id, engine.RecordTrace, cur, err); ok {
					if fin.done.Path == "" {
						return StopTracingOut{}, fin.doneErr(engine.RecordTrace)
					}
					rec, err = *fin.done, nil
				}
				if err != nil {
					return StopTracingOut{}, err
				}
			}
			if rec.Path == "" {
				return StopTracingOut{}, engine.Errorf(engine.BrowserCrashed, "the trace could not be finished (%s): its tab or browser went away, and its file was removed", rec.StoppedBy)
			}
			sum, err := summarizeTrace(ctx, rec.Path)
			if err != nil {
				return StopTracingOut{}, engine.Wrap(engine.BrowserError, err, "the trace was written to "+rec.Path+", but could not be read back: "+err.Error()).With("path", rec.Path)
			}
			out := StopTracingOut{Path: rec.Path, Bytes: rec.Bytes, DurationMs: rec.Duration.Milliseconds(), Kept: cur.keep, StoppedBy: rec.StoppedBy, Summary: sum}
			out.Message = fmt.Sprintf("Trace of %s written to %s (%d bytes). %s", rec.Duration.Round(time.Millisecond), rec.Path, rec.Bytes, sum.paragraph())
			switch rec.StoppedBy {
			case "":
			case engine.StoppedByMaxBytes:
				out.Message += " The trace reached its size bound (--recording-max-size): the events after it are left out."
			default:
				out.Message += " " + selfStopped(engine.RecordTrace, &rec, d.recs.limits.WithDefaults())
			}
			return out, nil
		})
	return inGroup(Devtools, t)
}

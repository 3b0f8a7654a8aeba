package kit_test

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit"
)

// fakeTrace starts a TraceRun whose end writes a small file, and counts
// the calls of its end, its done and its Stopped.
func fakeTrace(t *testing.T, limits engine.RecordingLimits, ends kit.TraceEnds) (run *kit.TraceRun, path string, stopped chan engine.Recorded, endCalls, doneCalls *atomic.Int32) {
	path = filepath.Join(t.TempDir(), "trace.json")
	stopped = make(chan engine.Recorded, 2)
	endCalls, doneCalls = new(atomic.Int32), new(atomic.Int32)
	req := engine.TraceRequest{RecordingRequest: engine.RecordingRequest{Path: path, Limits: limits.WithDefaults(),
		Stopped: func(r engine.Recorded) { stopped <- r }}}
	run = kit.StartTraceRun(req, ends, func(context.Context) (int64, bool, error) {
		endCalls.Add(1)
		return 2, false, os.WriteFile(path, []byte("{}"), 0o600)
	}, func() { doneCalls.Add(1) })
	return run, path, stopped, endCalls, doneCalls
}

func TestTraceRunStops(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	t.Run("by its call", func(t *testing.T) {
		run, path, stopped, ends, done := fakeTrace(t, engine.RecordingLimits{}, kit.TraceEnds{})
		rec, err := run.Stop(ctx)
		if err != nil || rec.Path != path || rec.Bytes != 2 || rec.StoppedBy != "" {
			t.Fatalf("Stop = %+v, %v", rec, err)
		}
		again, _ := run.Stop(ctx)
		run.StopBy(engine.StoppedBySessionEnd)
		if again != rec || ends.Load() != 1 || done.Load() != 1 || len(stopped) != 0 {
			t.Fatalf("a second stop changed the trace: %+v, end %d, done %d, Stopped %d", again, ends.Load(), done.Load(), len(stopped))
		}
	})

	t.Run("at its time bound", func(t *testing.T) {
		run, path, stopped, _, _ := fakeTrace(t, engine.RecordingLimits{MaxDuration: time.Millisecond}, kit.TraceEnds{})
		select {
		case r := <-stopped:
			if r.StoppedBy != engine.StoppedByMaxDuration || r.Path != path {
				t.Fatalf("Stopped = %+v", r)
			}
		case <-ctx.Done():
			t.Fatal("the time bound did not stop the trace")
		}
		// The stop call after it answers the same file, saying why.
		if rec, err := run.Stop(ctx); err != nil || rec.StoppedBy != engine.StoppedByMaxDuration || rec.Path != path {
			t.Fatalf("Stop after the bound = %+v, %v", rec, err)
		}
	})

	t.Run("when its buffer is full", func(t *testing.T) {
		full := make(chan struct{})
		_, _, stopped, _, _ := fakeTrace(t, engine.RecordingLimits{}, kit.TraceEnds{Full: full})
		close(full)
		if r := <-stopped; r.StoppedBy != engine.StoppedByMaxBytes {
			t.Fatalf("Stopped = %+v", r)
		}
	})

	t.Run("when its browser is gone", func(t *testing.T) {
		gone := make(chan struct{})
		_, path, stopped, ends, _ := fakeTrace(t, engine.RecordingLimits{}, kit.TraceEnds{Gone: gone})
		close(gone)
		if r := <-stopped; r.StoppedBy != engine.StoppedByCrash || r.Path != "" || ends.Load() != 0 {
			t.Fatalf("Stopped = %+v, end called %d times", r, ends.Load())
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Fatalf("the crashed trace's file is there: %v", err)
		}
	})
}

func TestTraceSlot(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var slot kit.TraceSlot[*int]
	if _, err := slot.Stop(ctx); engine.CodeOf(err) != engine.NoRecording {
		t.Fatalf("Stop of an empty slot = %v, want NO_RECORDING", err)
	}
	tab, other := new(int), new(int)
	if err := slot.Begin(); err != nil {
		t.Fatal(err)
	}
	run, path, stopped, _, _ := fakeTrace(t, engine.RecordingLimits{}, kit.TraceEnds{})
	slot.Set(tab, run)
	if err := slot.Begin(); engine.CodeOf(err) != engine.RecordingActive {
		t.Fatalf("Begin while a trace runs = %v, want RECORDING_ACTIVE", err)
	}
	// Another tab's close leaves the trace running; its own tab's close
	// finishes it, whole.
	slot.Finish(engine.StoppedByTabClosed, other)
	if len(stopped) != 0 {
		t.Fatal("another tab's close stopped the trace")
	}
	slot.Finish(engine.StoppedByTabClosed, tab)
	if r := <-stopped; r.StoppedBy != engine.StoppedByTabClosed || r.Path != path {
		t.Fatalf("Stopped = %+v", r)
	}
	// The run's done clears the slot for the next start.
	slot.Clear(run)
	if err := slot.Begin(); err != nil {
		t.Fatalf("Begin once the trace stopped = %v", err)
	}
	slot.Release()
	// The session's close (the zero tab) finishes whatever runs.
	if err := slot.Begin(); err != nil {
		t.Fatal(err)
	}
	run2, _, stopped2, _, _ := fakeTrace(t, engine.RecordingLimits{}, kit.TraceEnds{})
	slot.Set(other, run2)
	slot.Finish(engine.StoppedBySessionEnd, nil)
	if r := <-stopped2; r.StoppedBy != engine.StoppedBySessionEnd {
		t.Fatalf("Stopped at the session's close = %+v", r)
	}
}

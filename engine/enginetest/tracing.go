package enginetest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// testTracing checks engine.Tracer: a trace of the current tab into the
// file the request names, valid JSON with the Performance panel's events;
// one at a time (RECORDING_ACTIVE), none to stop (NO_RECORDING); a Close
// finishes a running trace and says so through Stopped. A browser that
// cannot trace answers UNSUPPORTED naming it, to a stop too, and leaves
// nothing behind.
func (h *harness) testTracing(t *testing.T) {
	s := h.open(t, "/vitals.html")
	dir := t.TempDir()
	stopped := make(chan engine.Recorded, 1)
	req := func(name string) engine.TraceRequest {
		return engine.TraceRequest{RecordingRequest: engine.RecordingRequest{Path: filepath.Join(dir, name),
			Stopped: func(r engine.Recorded) { stopped <- r }}}
	}
	_, stopErr := s.StopTracing(ctx(t))
	err := s.StartTracing(ctx(t), req("a.json"))
	if !supported(t, err) {
		wantError(t, stopErr, engine.Unsupported, nil)
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			t.Fatalf("an unsupported trace left files: %v", entries)
		}
		return
	}
	if err != nil {
		t.Fatalf("StartTracing: %v", err)
	}
	wantError(t, stopErr, engine.NoRecording, nil)
	wantError(t, s.StartTracing(ctx(t), req("b.json")), engine.RecordingActive, nil)
	click(t, s, engine.ClickRequest{Target: sel("#slow")})
	rec, err := s.StopTracing(ctx(t))
	if err != nil {
		t.Fatalf("StopTracing: %v", err)
	}
	if rec.Kind != engine.RecordTrace || rec.Path != filepath.Join(dir, "a.json") || rec.StoppedBy != "" || rec.Duration <= 0 {
		t.Fatalf("StopTracing = %+v, want the trace a.json, stopped by the call", rec)
	}
	wantTrace(t, rec)
	select {
	case r := <-stopped:
		t.Fatalf("Stopped was called for a trace StopTracing stopped: %+v", r)
	default:
	}

	// Closing the traced tab finishes its trace, and says so.
	if _, err := s.Tabs(ctx(t), engine.TabsRequest{Action: "new", URL: h.site.url("/vitals.html")}); err != nil {
		t.Fatalf("Tabs new: %v", err)
	}
	if err := s.StartTracing(ctx(t), req("tab.json")); err != nil {
		t.Fatalf("StartTracing on the new tab: %v", err)
	}
	one := 1
	if _, err := s.Tabs(ctx(t), engine.TabsRequest{Action: "close", Index: &one}); err != nil {
		t.Fatalf("Tabs close: %v", err)
	}
	select {
	case r := <-stopped:
		if r.StoppedBy != engine.StoppedByTabClosed || r.Path != filepath.Join(dir, "tab.json") {
			t.Fatalf("Stopped after its tab closed = %+v, want tab.json stopped by tab_closed", r)
		}
		wantTrace(t, r)
	case <-time.After(patience):
		t.Fatal("closing the traced tab did not finish its trace")
	}

	// A Close finishes the trace that runs, and says so.
	other := h.open(t, "/vitals.html")
	if err := other.StartTracing(ctx(t), req("c.json")); err != nil {
		t.Fatalf("StartTracing: %v", err)
	}
	if err := other.Close(ctx(t)); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case r := <-stopped:
		if r.StoppedBy != engine.StoppedBySessionEnd || r.Path != filepath.Join(dir, "c.json") {
			t.Fatalf("Stopped after Close = %+v, want c.json stopped by session_end", r)
		}
		wantTrace(t, r)
	case <-time.After(patience):
		t.Fatal("Close did not finish the trace: Stopped was not called")
	}
}

// wantTrace checks that rec's file is a trace DevTools loads.
func wantTrace(t *testing.T, rec engine.Recorded) {
	t.Helper()
	b, err := os.ReadFile(rec.Path)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(b)) != rec.Bytes {
		t.Errorf("Bytes = %d, the file has %d", rec.Bytes, len(b))
	}
	var tr struct {
		TraceEvents []struct {
			Cat string `json:"cat"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatalf("the trace is not JSON: %v", err)
	}
	for _, ev := range tr.TraceEvents {
		if strings.Contains(ev.Cat, "devtools.timeline") {
			return
		}
	}
	t.Fatalf("the trace's %d events hold no devtools.timeline event", len(tr.TraceEvents))
}

package enginetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// RendererCrash checks that a session survives its page's renderer crash:
// calls answer BROWSER_CRASHED (reason renderer_crashed) until a navigate,
// which opens a new page in the same browser context, keeps the cookies,
// and says so (NavigateResult.Recovered). crash makes the renderer of the
// session's current tab crash; it is engine-specific (no page can crash
// its own renderer), which is why this is not part of Run.
func RendererCrash(t *testing.T, newEngine func(t *testing.T) engine.Engine, crash func(t *testing.T, s engine.Session)) {
	h := &harness{site: startSite(t), eng: bound{newEngine(t)}}
	h.eng.Start()
	t.Cleanup(func() { h.eng.Close() })

	s := h.open(t, "/welcome.html?user=before")
	other := h.session(t) // a session the crash must not touch
	h.navigate(t, other, "/form.html")
	if _, err := s.Evaluate(ctx(t), engine.EvalRequest{Expression: `document.cookie = "kept=yes; path=/"; true`}); err != nil {
		t.Fatal(err)
	}
	crash(t, s)
	testenv.Eventually(t, "calls on the crashed tab to answer BROWSER_CRASHED", func() (bool, error) {
		_, err := s.Snapshot(ctx(t), engine.SnapshotRequest{})
		var e *engine.Error
		return errors.As(err, &e) && e.Code == engine.BrowserCrashed && e.Details["reason"] == "renderer_crashed" && e.Retryable &&
			strings.Contains(e.Suggestion, "navigate"), fmt.Errorf("a snapshot answered %v", err)
	})

	res := h.navigate(t, s, "/welcome.html?user=after")
	if res.Recovered == "" || res.Title == "" || !strings.Contains(res.URL, "user=after") {
		t.Fatalf("navigate after the crash = %+v; want the page, and Recovered saying a new page was opened", res)
	}
	raw, err := s.Evaluate(ctx(t), engine.EvalRequest{Expression: `document.cookie`})
	var cookies string
	if err != nil || json.Unmarshal(raw, &cookies) != nil || !strings.Contains(cookies, "kept=yes") {
		t.Fatalf("cookies after recovery = %s, %v; want kept=yes", raw, err)
	}
	tabs, err := s.Tabs(ctx(t), engine.TabsRequest{Action: "list"})
	if err != nil || len(tabs.Tabs) != 1 || !strings.Contains(tabs.Tabs[0].URL, "user=after") {
		t.Fatalf("tabs after recovery = %+v, %v; want the one new page", tabs, err)
	}
	if res := h.navigate(t, s, "/form.html"); res.Recovered != "" {
		t.Fatalf("a second navigate says %q; only the first after a crash recovers", res.Recovered)
	}
	if _, err := other.Snapshot(ctx(t), engine.SnapshotRequest{}); err != nil {
		t.Fatalf("another session after the crash: %v", err)
	}
}

// TraceCrash checks that a trace whose tab's renderer crashes stops by
// itself, its file removed (Recorded.Path ""), says so through Stopped,
// and leaves the session free to trace again. crash is as for
// RendererCrash; the engine must trace (Chromium).
func TraceCrash(t *testing.T, newEngine func(t *testing.T) engine.Engine, crash func(t *testing.T, s engine.Session)) {
	h := &harness{site: startSite(t), eng: bound{newEngine(t)}}
	h.eng.Start()
	t.Cleanup(func() { h.eng.Close() })
	s := h.open(t, "/vitals.html")
	file := filepath.Join(t.TempDir(), "trace.json")
	stopped := make(chan engine.Recorded, 1)
	if err := s.StartTracing(ctx(t), engine.TraceRequest{RecordingRequest: engine.RecordingRequest{Path: file,
		Stopped: func(r engine.Recorded) { stopped <- r }}}); err != nil {
		t.Fatal(err)
	}
	crash(t, s)
	select {
	case r := <-stopped:
		if r.StoppedBy != engine.StoppedByCrash || r.Path != "" {
			t.Fatalf("Stopped after the crash = %+v, want no file, stopped by crash", r)
		}
	case <-time.After(patience):
		t.Fatal("the crash did not stop the trace")
	}
	if ents, _ := os.ReadDir(filepath.Dir(file)); len(ents) > 0 {
		t.Fatalf("the crashed trace left files: %v", ents)
	}
	_, err := s.StopTracing(ctx(t))
	wantError(t, err, engine.NoRecording, nil)
}

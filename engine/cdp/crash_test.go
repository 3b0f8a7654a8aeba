package cdp_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/cdp"
	"github.com/seed4af8c199/browsermcp/engine/enginetest"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// TestRendererCrash: a crashed renderer costs the page, not the session.
func TestRendererCrash(t *testing.T) {
	path := testenv.Chromium(t)
	enginetest.RendererCrash(t, func(t *testing.T) engine.Engine {
		return cdp.New(cdp.Config{ExecPath: path, Headless: true, Viewport: enginetest.Viewport, Policy: enginetest.Policy})
	}, func(t *testing.T, s engine.Session) {
		if err := cdp.CrashRenderer(s); err != nil {
			t.Fatal(err)
		}
	})
}

// TestTraceRendererCrash: a trace whose tab's renderer crashes stops by
// itself, its file removed (Recorded.Path ""), and says so.
func TestTraceRendererCrash(t *testing.T) {
	path := testenv.Chromium(t)
	e := cdp.New(cdp.Config{ExecPath: path, Headless: true, Viewport: enginetest.Viewport, Policy: enginetest.Policy})
	e.Start()
	t.Cleanup(func() { e.Close() })
	site := testsite.Start()
	t.Cleanup(site.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := e.NewSession(ctx, engine.SessionOptions{Viewport: enginetest.Viewport})
	if err != nil {
		t.Fatal(err)
	}
	s = engine.Bound(s)
	defer s.Close(context.Background())
	if _, err := s.Navigate(ctx, engine.NavigateRequest{URL: site.URL + "/vitals.html"}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "trace.json")
	stopped := make(chan engine.Recorded, 1)
	if err := s.StartTracing(ctx, engine.TraceRequest{RecordingRequest: engine.RecordingRequest{Path: file,
		Stopped: func(r engine.Recorded) { stopped <- r }}}); err != nil {
		t.Fatal(err)
	}
	if err := cdp.CrashRenderer(s); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-stopped:
		if r.StoppedBy != engine.StoppedByCrash || r.Path != "" {
			t.Fatalf("Stopped after the crash = %+v, want no file, stopped by crash", r)
		}
	case <-ctx.Done():
		t.Fatal("the crash did not stop the trace")
	}
	if ents, _ := os.ReadDir(filepath.Dir(file)); len(ents) > 0 {
		t.Fatalf("the crashed trace left files: %v", ents)
	}
	_, err = s.StopTracing(ctx)
	var ee *engine.Error
	if !errors.As(err, &ee) || ee.Code != engine.NoRecording {
		t.Fatalf("StopTracing after the crash = %v, want NO_RECORDING", err)
	}
}

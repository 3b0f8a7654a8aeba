package cdp_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/cdp"
	"github.com/seed4af8c199/browsermcp/engine/enginetest"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// TestHARBrowserCrash: a HAR whose browser goes away is removed, never
// left half-written, and Stopped says so with no file.
func TestHARBrowserCrash(t *testing.T) {
	e := cdp.New(cdp.Config{ExecPath: testenv.Chromium(t), Headless: true, Viewport: enginetest.Viewport})
	e.Start()
	t.Cleanup(func() { e.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := e.NewSession(ctx, engine.SessionOptions{Viewport: enginetest.Viewport})
	if err != nil {
		t.Fatal(err)
	}
	s = engine.Bound(s)
	defer s.Close(context.Background())
	path := filepath.Join(t.TempDir(), "crash.har")
	stopped := make(chan engine.Recorded, 1)
	req := engine.HARRequest{RecordingRequest: engine.RecordingRequest{Path: path, Stopped: func(r engine.Recorded) { stopped <- r }}}
	if err := s.StartHAR(ctx, req); err != nil {
		t.Fatal(err)
	}
	if err := cdp.CrashBrowser(s); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-stopped:
		if r.StoppedBy != engine.StoppedByCrash || r.Path != "" {
			t.Fatalf("Stopped(%+v), want crash with no file", r)
		}
	case <-ctx.Done():
		t.Fatal("the browser's crash did not stop the HAR")
	}
	if files, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*")); len(files) != 0 {
		t.Fatalf("files left after the crash: %v", files)
	}
	if _, err := s.StopHAR(ctx); engine.CodeOf(err) != engine.NoRecording {
		t.Fatalf("StopHAR after the crash = %v, want NO_RECORDING", err)
	}
}

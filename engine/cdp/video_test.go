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
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// TestVideoRendererCrash: a video whose tab's renderer crashes stops by
// itself with the frames it has, finished into a file ffprobe reads, and
// says so (StoppedByCrash).
func TestVideoRendererCrash(t *testing.T) {
	path := testenv.Chromium(t)
	testenv.FFprobe(t)
	site := testsite.Start()
	defer site.Close()
	e := cdp.New(cdp.Config{ExecPath: path, Headless: true, Viewport: enginetest.Viewport, Policy: enginetest.Policy})
	e.Start()
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := e.NewSession(ctx, engine.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s = engine.Bound(s)
	defer s.Close(ctx)
	if _, err := s.Navigate(ctx, engine.NavigateRequest{URL: site.URL + "/animation.html"}); err != nil {
		t.Fatal(err)
	}
	got := make(chan engine.Recorded, 1)
	err = s.StartVideo(ctx, engine.VideoRequest{RecordingRequest: engine.RecordingRequest{
		Path: filepath.Join(t.TempDir(), "v.webm"), Stopped: func(r engine.Recorded) { got <- r }}})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	if err := cdp.CrashRenderer(s); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-got:
		if r.StoppedBy != engine.StoppedByCrash || r.Path == "" {
			t.Fatalf("Stopped got %+v, want the crash and the finished file", r)
		}
		if v := testenv.Probe(t, r.Path); v.Format != "matroska,webm" || v.Duration <= 0 {
			t.Errorf("ffprobe reads %+v", v)
		}
	case <-ctx.Done():
		t.Fatal("the crash did not stop the video")
	}
	if _, err := s.StopVideo(ctx); engine.CodeOf(err) != engine.NoRecording {
		t.Errorf("StopVideo after the crash: %v, want NO_RECORDING", err)
	}
}

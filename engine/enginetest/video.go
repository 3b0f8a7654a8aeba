package enginetest

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// testVideo records a tab, selects another during the recording (the video
// stays on its tab), and closes a recorded tab (the recording stops by
// itself, its file finished). An engine whose browser cannot record
// answers UNSUPPORTED naming it, to a stop too.
func (h *harness) testVideo(t *testing.T) {
	s := h.open(t, "/animation.html")
	start := func(name string, stopped func(engine.Recorded)) (string, error) {
		path := filepath.Join(t.TempDir(), name)
		return path, s.StartVideo(ctx(t), engine.VideoRequest{Chapters: true,
			RecordingRequest: engine.RecordingRequest{Path: path, Stopped: stopped}})
	}
	path, err := start("a.webm", func(r engine.Recorded) { t.Errorf("the first video stopped by itself: %+v", r) })
	if !supported(t, err) {
		if _, err := s.StopVideo(ctx(t)); engine.CodeOf(err) != engine.Unsupported {
			t.Errorf("StopVideo where videos are unsupported: %v, want UNSUPPORTED", err)
		}
		return
	}
	testenv.FFprobe(t)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := start("b.webm", nil); engine.CodeOf(err) != engine.RecordingActive {
		t.Errorf("a second StartVideo: %v, want RECORDING_ACTIVE", err)
	}
	tabs(t, s, engine.TabsRequest{Action: "new", URL: h.site.url("/welcome.html")})
	s.VideoChapter("after the new tab")
	time.Sleep(500 * time.Millisecond)
	res, err := s.StopVideo(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if res.Path != path || res.Frames < 2 || res.Kind != engine.RecordVideo {
		t.Errorf("StopVideo = %+v", res)
	}
	if v := testenv.Probe(t, path); v.Format != "matroska,webm" || !slices.Equal(v.Chapters, []string{"after the new tab"}) {
		t.Errorf("ffprobe reads %+v", v)
	}

	// The new tab is current: record it, then close it.
	got := make(chan engine.Recorded, 1)
	if _, err := start("c.webm", func(r engine.Recorded) { got <- r }); err != nil {
		t.Fatal(err)
	}
	tabs(t, s, engine.TabsRequest{Action: "close"})
	select {
	case r := <-got:
		if r.StoppedBy != engine.StoppedByTabClosed || r.Path == "" {
			t.Fatalf("the closed tab's video: %+v", r)
		}
		if v := testenv.Probe(t, r.Path); v.Format != "matroska,webm" {
			t.Errorf("ffprobe reads %+v", v)
		}
	case <-time.After(patience):
		t.Fatal("closing the recorded tab did not stop its video")
	}
	if _, err := s.StopVideo(ctx(t)); engine.CodeOf(err) != engine.NoRecording {
		t.Errorf("StopVideo after the tab closed: %v, want NO_RECORDING", err)
	}
}

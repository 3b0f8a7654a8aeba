package cdp

import (
	"context"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit/video"
)

// ackTimeout bounds one frame's acknowledgement and the screencast's stop.
const ackTimeout = 5 * time.Second

// StartVideo records the current tab from Chromium's screencast: the
// browser sends a JPEG frame each time the page paints, and one at the
// start. The recording stays on this tab when another is selected, and
// stops by itself (StoppedByTabClosed) when it closes.
func (t *tabbed) StartVideo(ctx context.Context, req engine.VideoRequest) error {
	if err := t.video.Begin(); err != nil {
		return err
	}
	// The slot holds the recording once it runs, and is released if it
	// does not.
	var started *video.Recording
	defer func() {
		if started != nil {
			t.video.Set(started)
		} else {
			t.video.Release()
		}
	}()
	if _, err := video.FFmpeg(); err != nil {
		return err
	}
	s := t.tabs.Current()
	if err := s.alive(); err != nil {
		return err
	}
	// Frames go to the recording once it runs; until then the first one
	// is kept, and every one is acknowledged once it runs.
	var mu sync.Mutex
	var rec *video.Recording
	var first []byte
	var early []int64
	got := make(chan struct{})
	lctx, lcancel := context.WithCancel(s.tab)
	tgt := chromedp.FromContext(s.tab).Target
	ack := func(id int64) {
		c, cancel := context.WithTimeout(lctx, ackTimeout)
		defer cancel()
		cdp.Call(c, tgt, page.ScreencastFrameAck, page.ScreencastFrameAckParams{SessionID: id})
	}
	stopCast := func() {
		defer lcancel()
		if s.b.Lost() || s.tab.Err() != nil {
			return
		}
		c, cancel := context.WithTimeout(s.tab, ackTimeout)
		defer cancel()
		cdp.Call(c, tgt, page.StopScreencast, cdp.Empty{})
	}
	err := chromedp.Listen(lctx, func(ev any) {
		f, ok := ev.(*page.EventScreencastFrame)
		if !ok {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if rec != nil {
			rec.Frame(f.Data, f.SessionID)
			return
		}
		if first == nil {
			first = f.Data
			close(got)
		}
		early = append(early, f.SessionID)
	})
	if err != nil {
		lcancel()
		return s.classify(err, "listen to the screencast")
	}
	err = s.run(ctx, "start the screencast", func(ctx context.Context, tt *chromedp.Target) error {
		_, err := cdp.Call(ctx, tt, page.StartScreencast, page.StartScreencastParams{
			Format: page.StartScreencastFormatJpeg, Quality: new(int64(80)),
			MaxWidth: int64(req.MaxWidth), MaxHeight: int64(req.MaxHeight), EveryNthFrame: 1,
		})
		return err
	})
	if err != nil {
		lcancel()
		return err
	}
	select {
	case <-got:
	case <-ctx.Done():
		stopCast()
		return engine.Wrap(engine.Timeout, ctx.Err(), "the tab sent no screencast frame to record")
	case <-s.st.crash.Done():
		stopCast()
		return s.classify(errCrashed, "start the screencast")
	case <-t.Gone():
		lcancel()
		return engine.Errorf(engine.BrowserCrashed, "the browser went away while the video started")
	}
	mu.Lock()
	r, err := video.Start(first, video.Options{Req: req.RecordingRequest, Chapters: req.Chapters, Ack: ack, OnEnd: stopCast})
	rec = r
	acks := early
	mu.Unlock()
	if err != nil {
		stopCast()
		return err
	}
	for _, id := range acks {
		ack(id)
	}
	started = r
	go t.watchVideo(r, s)
	return nil
}

// watchVideo ends the recording when its tab or browser goes away: the
// file is finished with the frames it has.
func (t *tabbed) watchVideo(r *video.Recording, s *session) {
	why := ""
	select {
	case <-r.Done():
		return
	case <-s.st.crash.Done():
		why = engine.StoppedByCrash
	case <-t.Gone():
		why = engine.StoppedByCrash
	case <-s.tab.Done():
		why = engine.StoppedByTabClosed
	}
	ctx, cancel := context.WithTimeout(context.Background(), engine.StopVideoTimeout)
	defer cancel()
	r.End(ctx, why)
}

// StopVideo finishes the file.
func (t *tabbed) StopVideo(ctx context.Context) (engine.VideoResult, error) {
	return t.video.Stop(ctx)
}

// VideoChapter marks an action in the running video.
func (t *tabbed) VideoChapter(title string) { t.video.Chapter(title) }

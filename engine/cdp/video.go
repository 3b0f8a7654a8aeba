package cdp

import (
	"context"
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
	return t.video.Start(func() (*video.Recording, error) { return t.startVideo(ctx, req) })
}

// startVideo is StartVideo's while it holds the session's video slot.
func (t *tabbed) startVideo(ctx context.Context, req engine.VideoRequest) (*video.Recording, error) {
	s := t.tabs.Current()
	if err := s.alive(); err != nil {
		return nil, err
	}
	// Frames go to the recording once it runs; until then the first one
	// is kept, and every one is acknowledged once it runs.
	frames := video.NewFrames()
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
		if f, ok := ev.(*page.EventScreencastFrame); ok {
			frames.Add(f.Data, f.SessionID)
		}
	})
	if err != nil {
		lcancel()
		return nil, s.classify(err, "listen to the screencast")
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
		return nil, err
	}
	select {
	case <-frames.First():
	case <-ctx.Done():
		stopCast()
		return nil, engine.Wrap(engine.Timeout, ctx.Err(), "the tab sent no screencast frame to record")
	case <-s.st.crash.Done():
		stopCast()
		return nil, s.classify(errCrashed, "start the screencast")
	case <-t.Gone():
		lcancel()
		return nil, engine.Errorf(engine.BrowserCrashed, "the browser went away while the video started")
	}
	r, err := frames.Start(video.Options{Req: req.RecordingRequest, Chapters: req.Chapters, Ack: ack, OnEnd: stopCast})
	if err != nil {
		stopCast()
		return nil, err
	}
	go video.Watch(r, s.st.crash.Done(), t.Gone(), s.tab.Done())
	return r, nil
}

// StopVideo finishes the file.
func (t *tabbed) StopVideo(ctx context.Context) (engine.VideoResult, error) {
	return t.video.Stop(ctx)
}

// VideoChapter marks an action in the running video.
func (t *tabbed) VideoChapter(title string) { t.video.Chapter(title) }

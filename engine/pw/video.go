package pw

import (
	"context"
	"encoding/base64"
	"sync"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit/video"
)

// StartVideo records the current tab from Chromium's screencast, through a
// DevTools session Playwright opens on the page. Firefox, over BiDi, has
// no screencast, and Playwright records video only from a browser
// context's start: UNSUPPORTED. The recording stays on its tab when
// another is selected, and stops by itself (StoppedByTabClosed) when that
// tab closes.
func (t *tabbed) StartVideo(ctx context.Context, req engine.VideoRequest) error {
	if b := t.e.cfg.Browser; b != Chromium {
		return videoUnsupported(b, "start_video")
	}
	return t.video.Start(func() (*video.Recording, error) { return t.startVideo(ctx, req) })
}

// startVideo is StartVideo's while it holds the session's video slot.
func (t *tabbed) startVideo(ctx context.Context, req engine.VideoRequest) (*video.Recording, error) {
	s := t.tabs.Current()
	if err := s.alive(); err != nil {
		return nil, err
	}
	cs, err := call(ctx, func() (playwright.CDPSession, error) { return s.bctx.NewCDPSession(s.page) },
		func(cs playwright.CDPSession) { _ = cs.Detach() })
	if err != nil {
		return nil, s.classify(err, "open a DevTools session for the screencast")
	}
	// Frames go to the recording once it runs; until then the first one
	// is kept, and every one is acknowledged once it runs.
	frames := video.NewFrames()
	cs.On("Page.screencastFrame", func(ev map[string]any) {
		data, _ := ev["data"].(string)
		id, _ := ev["sessionId"].(float64)
		img, err := base64.StdEncoding.DecodeString(data)
		if err == nil {
			frames.Add(img, int64(id))
		}
	})
	closed := make(chan struct{})
	var closeOnce sync.Once
	s.page.OnClose(func(playwright.Page) { closeOnce.Do(func() { close(closed) }) })
	send := func(ctx context.Context, method string, params map[string]any) error {
		_, err := call(ctx, func() (any, error) { return cs.Send(method, params) }, nil)
		return err
	}
	bounded := func(f func(ctx context.Context)) {
		c, cancel := context.WithTimeout(context.Background(), ackTimeout)
		defer cancel()
		f(c)
	}
	ack := func(id int64) {
		bounded(func(c context.Context) { _ = send(c, "Page.screencastFrameAck", map[string]any{"sessionId": id}) })
	}
	var stopOnce sync.Once
	stopCast := func() {
		stopOnce.Do(func() {
			bounded(func(c context.Context) {
				_ = send(c, "Page.stopScreencast", nil)
				_ = do(c, cs.Detach)
			})
		})
	}
	params := map[string]any{"format": "jpeg", "quality": 80, "everyNthFrame": 1}
	if req.MaxWidth > 0 {
		params["maxWidth"] = req.MaxWidth
	}
	if req.MaxHeight > 0 {
		params["maxHeight"] = req.MaxHeight
	}
	if err := send(ctx, "Page.startScreencast", params); err != nil {
		stopCast()
		return nil, s.classify(err, "start the screencast")
	}
	select {
	case <-frames.First():
	case <-ctx.Done():
		stopCast()
		return nil, engine.Wrap(engine.Timeout, ctx.Err(), "the tab sent no screencast frame to record")
	case <-s.st.crash.Done():
		stopCast()
		return nil, engine.RendererCrashed()
	case <-t.Gone():
		return nil, engine.Errorf(engine.BrowserCrashed, "the browser went away while the video started")
	}
	r, err := frames.Start(video.Options{Req: req.RecordingRequest, Chapters: req.Chapters, Ack: ack, OnEnd: stopCast})
	if err != nil {
		stopCast()
		return nil, err
	}
	go video.Watch(r, s.st.crash.Done(), t.Gone(), closed)
	return r, nil
}

// ackTimeout bounds one frame's acknowledgement and the screencast's stop.
const ackTimeout = 5 * time.Second

// StopVideo finishes the file. Firefox, which has none to stop, answers
// UNSUPPORTED naming it.
func (t *tabbed) StopVideo(ctx context.Context) (engine.VideoResult, error) {
	if b := t.e.cfg.Browser; b != Chromium {
		return engine.VideoResult{}, videoUnsupported(b, "stop_video")
	}
	return t.video.Stop(ctx)
}

// videoUnsupported is the error of the video tools on a browser other
// than Chromium.
func videoUnsupported(browser, tool string) *engine.Error {
	return unsupported(browser, tool, browser+" (playwright) cannot record video mid-session: Playwright records video only from a browser context's start, and the browser sends no screencast over BiDi")
}

// VideoChapter marks an action in the running video.
func (t *tabbed) VideoChapter(title string) { t.video.Chapter(title) }

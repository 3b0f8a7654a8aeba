package engine

import (
	"context"
	"time"
)

// Videoer records a session's tab into a WebM video (start_video,
// stop_video), from the frames the page paints: a page that does not paint
// costs nothing, and the video still lasts until the stop.
type Videoer interface {
	// StartVideo starts recording the current tab into req.Path. It keeps
	// recording that tab when another tab is selected; the recording stops
	// by itself (req.Stopped, StoppedByTabClosed) when that tab closes. A
	// browser that cannot record, or a host without the encoder (ffmpeg),
	// answers UNSUPPORTED; a second start RECORDING_ACTIVE.
	StartVideo(ctx context.Context, req VideoRequest) error
	// StopVideo finishes the file and describes it; NO_RECORDING when none
	// runs. An encoder that died during the recording answers
	// BROWSER_ERROR, its partial file removed.
	StopVideo(ctx context.Context) (VideoResult, error)
	// VideoChapter marks the start of an action (e.g. "click ref e5") at
	// this moment of the running recording, when it was started with
	// chapters; otherwise it does nothing. It never blocks on the browser.
	VideoChapter(title string)
}

// VideoRequest starts a video recording.
type VideoRequest struct {
	RecordingRequest
	// Chapters marks each action (VideoChapter) as a chapter of the file.
	Chapters bool
	// MaxWidth and MaxHeight bound the frames' size in pixels; 0 is the
	// viewport's.
	MaxWidth, MaxHeight int
}

// VideoResult is a finished video.
type VideoResult struct {
	Recorded
	// Frames is how many frames the file holds.
	Frames int
	// Chapters are the actions marked during the recording, in order.
	Chapters []Chapter
}

// Chapter is one chapter of a video: an action and when it started,
// from the start of the video.
type Chapter struct {
	Title string        `json:"title"`
	Start time.Duration `json:"-"`
}

// StopVideoTimeout bounds StopVideo: the encoder finishes the file and
// writes its chapters.
const StopVideoTimeout = time.Minute

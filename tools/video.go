package tools

import (
	"context"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
)

// StartVideoIn is the input of start_video.
type StartVideoIn struct {
	SessionArg
	Keep      bool  `json:"keep,omitempty" jsonschema:"Keep the file after the session ends (under the output directory's kept/)"`
	Chapters  *bool `json:"chapters,omitempty" jsonschema:"Mark each action (click, fill, navigate, ...) as a chapter of the video; default true"`
	MaxWidth  int   `json:"maxWidth,omitempty" jsonschema:"Largest frame width in pixels; default the viewport's" range:"0,7680"`
	MaxHeight int   `json:"maxHeight,omitempty" jsonschema:"Largest frame height in pixels; default the viewport's" range:"0,4320"`
}

// StartVideoOut says where the video goes.
type StartVideoOut struct {
	Path     string `json:"path" jsonschema:"The WebM file the video is written to once stop_video finishes it"`
	Chapters bool   `json:"chapters"`
	SessionMeta
}

func startVideo(d *Deps) Tool {
	return inGroup(Devtools, sessionTool(d, "start_video",
		"Record the current tab into a WebM video until stop_video (needs ffmpeg on the server; Chromium). Frames are taken only when the page paints; each action becomes a chapter. The recording stays on this tab when another is selected.", local,
		func(ctx context.Context, s engine.Session, in StartVideoIn) (StartVideoOut, error) {
			session := engine.SessionIDFrom(ctx)
			req, err := d.recs.begin(session, engine.RecordVideo, "webm", in.Keep)
			if err != nil {
				return StartVideoOut{}, err
			}
			chapters := in.Chapters == nil || *in.Chapters
			err = s.StartVideo(ctx, engine.VideoRequest{RecordingRequest: req, Chapters: chapters, MaxWidth: in.MaxWidth, MaxHeight: in.MaxHeight})
			if err != nil {
				d.recs.abandon(session, engine.RecordVideo)
				return StartVideoOut{}, err
			}
			return StartVideoOut{Path: req.Path, Chapters: chapters}, nil
		}))
}

// StopVideoOut describes the finished video.
type StopVideoOut struct {
	Path       string       `json:"path" jsonschema:"The WebM file, under the output directory"`
	Bytes      int64        `json:"bytes"`
	DurationMs int64        `json:"durationMs"`
	Frames     *int         `json:"frames,omitempty" jsonschema:"Frames the file holds: one each time the page painted, and the last again at the stop; absent when the video had stopped by itself"`
	Chapters   []ChapterOut `json:"chapters,omitempty" jsonschema:"The actions during the recording, as the file's chapters"`
	Kept       bool         `json:"kept,omitempty" jsonschema:"The file outlives the session"`
	StoppedBy  string       `json:"stoppedBy,omitempty" jsonschema:"Why the video had stopped by itself before this call: max_bytes, max_duration, tab_closed"`
	Message    string       `json:"message,omitempty"`
	SessionMeta
}

// ChapterOut is one chapter of a video.
type ChapterOut struct {
	Title   string `json:"title" jsonschema:"The action, e.g. click ref e5"`
	StartMs int64  `json:"startMs" jsonschema:"When it started, from the start of the video"`
}

func stopVideo(d *Deps) Tool {
	return inGroup(Devtools, sessionTool(d, "stop_video", "Stop the video start_video began and finish its WebM file.", local,
		func(ctx context.Context, s engine.Session, in PageIn) (StopVideoOut, error) {
			session := engine.SessionIDFrom(ctx)
			cur, err := d.recs.end(session, engine.RecordVideo)
			if err != nil {
				return StopVideoOut{}, noRecording(err, func() error { _, err := s.StopVideo(ctx); return err })
			}
			// It stopped by itself (its tab closed, a bound) before the
			// call, or while the call reached it: its file is finished.
			selfStoppedOut := func(cur recording) (StopVideoOut, error) {
				if cur.done.Path == "" {
					return StopVideoOut{}, cur.doneErr(engine.RecordVideo)
				}
				return StopVideoOut{Path: cur.done.Path, Bytes: cur.done.Bytes, DurationMs: cur.done.Duration.Milliseconds(), Kept: cur.keep,
					StoppedBy: cur.done.StoppedBy, Message: selfStopped(engine.RecordVideo, cur.done, d.recs.limits.WithDefaults())}, nil
			}
			if cur.done != nil {
				return selfStoppedOut(cur)
			}
			res, err := s.StopVideo(ctx)
			if fin, ok := d.recs.raced(session, engine.RecordVideo, cur, err); ok {
				return selfStoppedOut(fin)
			}
			if err != nil {
				return StopVideoOut{}, err
			}
			out := StopVideoOut{Path: res.Path, Bytes: res.Bytes, DurationMs: res.Duration.Milliseconds(), Frames: &res.Frames, Kept: cur.keep}
			for _, c := range res.Chapters {
				out.Chapters = append(out.Chapters, ChapterOut{Title: c.Title, StartMs: c.Start.Milliseconds()})
			}
			return out, nil
		}))
}

// markChapter marks a page action (a tool that is neither read-only nor
// local: click, fill, navigate, ...) on the session's running video, as
// the tool and its target from the caller's own arguments ("click ref
// e5"); typed text is never part of it. Without a video it costs a lock.
func markChapter(ctx context.Context, def mcp.Tool, s engine.Session, req mcp.CallToolRequest) {
	a := def.Annotations
	// A hint left out is the specification's default (schema.go's
	// annotations): openWorldHint true, readOnlyHint false.
	if (a.ReadOnlyHint != nil && *a.ReadOnlyHint) || (a.OpenWorldHint != nil && !*a.OpenWorldHint) {
		return
	}
	s.VideoChapter(chapterTitle(def.Name, callerArgs(ctx, req).GetArguments()))
}

// maxChapterTitle caps a chapter's title, in characters.
const maxChapterTitle = 120

// chapterTitle is the tool's name and the first of its arguments that
// names what it acts on.
func chapterTitle(tool string, args map[string]any) string {
	title := tool
	for _, k := range []string{"ref", "selector", "source", "url", "key", "action", "direction"} {
		v, ok := args[k].(string)
		if !ok || v == "" {
			continue
		}
		if k == "ref" || k == "selector" {
			title += " " + k
		}
		title += " " + v
		break
	}
	if utf8.RuneCountInString(title) > maxChapterTitle {
		title = string([]rune(title)[:maxChapterTitle-1]) + "…"
	}
	return title
}

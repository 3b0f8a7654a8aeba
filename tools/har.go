package tools

import (
	"context"
	"fmt"
	"mime"
	"os"
	"path/filepath"
	"regexp"
	"unicode/utf8"

	"github.com/seed4af8c199/browsermcp/engine"
)

// GetRequestIn is the input of get_request.
type GetRequestIn struct {
	SessionArg
	ID           string `json:"id" jsonschema:"The request's id, as get_request_log lists it (r12)" size:"64"`
	MaxBodyBytes int    `json:"maxBodyBytes,omitempty" jsonschema:"Text bodies are shown up to this many bytes (default 32768); binary bodies go to a file" range:"0,16777216"`
}

func (in GetRequestIn) validate() error {
	if in.ID == "" {
		return invalid("id", "id must not be empty: give one that get_request_log lists")
	}
	return nil
}

// defaultInlineBody caps a text body get_request shows.
const defaultInlineBody = 32 << 10

// BodyOut is a request's or response's body as get_request shows it.
type BodyOut struct {
	Size      int    `json:"size" jsonschema:"The whole body's bytes"`
	MimeType  string `json:"mimeType,omitempty"`
	Text      string `json:"text,omitempty" jsonschema:"A text body, up to maxBodyBytes"`
	Truncated bool   `json:"truncated,omitempty" jsonschema:"text is cut at maxBodyBytes; size is the whole"`
	Path      string `json:"path,omitempty" jsonschema:"A binary body saved under the session's output directory"`
	Note      string `json:"note,omitempty" jsonschema:"Why there is no body, or where it went"`
}

// AppliedOut is the network emulation that applied to a request.
type AppliedOut struct {
	Offline      bool    `json:"offline,omitempty"`
	DownloadKbps float64 `json:"downloadKbps,omitempty"`
	UploadKbps   float64 `json:"uploadKbps,omitempty"`
	LatencyMs    float64 `json:"latencyMs,omitempty"`
}

// GetRequestOut is the result of get_request.
type GetRequestOut struct {
	engine.RequestEntry
	StatusText      string                `json:"statusText,omitempty"`
	HTTPVersion     string                `json:"httpVersion,omitempty"`
	RequestHeaders  []engine.Header       `json:"requestHeaders"`
	ResponseHeaders []engine.Header       `json:"responseHeaders"`
	Timing          *engine.RequestTiming `json:"timing,omitempty" jsonschema:"ms per phase, -1 where the browser did not say"`
	Conditions      *AppliedOut           `json:"conditions,omitempty" jsonschema:"The throttling or offline emulation that applied to it"`
	RequestBody     BodyOut               `json:"requestBody"`
	ResponseBody    BodyOut               `json:"responseBody"`
	Unavailable     map[string]string     `json:"unavailable,omitempty" jsonschema:"Fields this browser cannot give, and why"`
	SessionMeta
}

func getRequest(d *Deps) Tool {
	return inGroup(Devtools, sessionTool(d, "get_request",
		"One request of get_request_log in full, by its id: headers, timing, route and throttling marks, and its bodies (text inline up to maxBodyBytes, binary saved to a file).", readOnly,
		func(ctx context.Context, s engine.Session, in GetRequestIn) (GetRequestOut, error) {
			r, err := s.Request(ctx, engine.RequestQuery{ID: in.ID})
			if err != nil {
				if e := engine.AsError(err); e.Code == engine.InvalidParameters && !d.requestLog {
					// The suggestion names a tool this server does not list.
					return GetRequestOut{}, e.Suggest("get_request_log, which lists the ids, is not offered here: start the server with --caps network (or all) for it, or read the ids from a HAR's entries (_id; start_har, stop_har).")
				}
				return GetRequestOut{}, err
			}
			out := GetRequestOut{RequestEntry: r.RequestEntry, StatusText: r.StatusText, HTTPVersion: r.HTTPVersion,
				RequestHeaders: r.RequestHeaders, ResponseHeaders: r.ResponseHeaders, Timing: r.Timing, Unavailable: r.Unavailable}
			if out.RequestHeaders == nil {
				out.RequestHeaders = []engine.Header{}
			}
			if out.ResponseHeaders == nil {
				out.ResponseHeaders = []engine.Header{}
			}
			if len(out.Unavailable) == 0 {
				out.Unavailable = nil
			}
			if c := r.Conditions; c != nil {
				out.Conditions = &AppliedOut{Offline: c.Offline, DownloadKbps: c.DownloadKbps, UploadKbps: c.UploadKbps, LatencyMs: c.LatencyMs}
			}
			max := limitOr(in.MaxBodyBytes, defaultInlineBody)
			dir := filepath.Join(d.OutputDir, engine.SessionIDFrom(ctx), "bodies")
			if out.RequestBody, err = showBody(r.Request, max, dir, r.ID+"-request"); err != nil {
				return GetRequestOut{}, err
			}
			if out.ResponseBody, err = showBody(r.Response, max, dir, r.ID+"-response"); err != nil {
				return GetRequestOut{}, err
			}
			return out, nil
		}))
}

// safeName keeps a file name to letters, digits, '-' and '_'.
var safeName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// showBody is a body inline when it is text (cut at max bytes, on a
// character boundary), else saved as name under dir.
func showBody(b engine.Body, max int, dir, name string) (BodyOut, error) {
	out := BodyOut{Size: len(b.Data), MimeType: b.MimeType}
	if b.Data == nil {
		out.Note = b.Absent
		return out, nil
	}
	if engine.IsText(b.MimeType, b.Data) {
		text := b.Data
		if len(text) > max {
			n := max
			for n > 0 && !utf8.RuneStart(text[n]) {
				n--
			}
			text = text[:n]
			out.Truncated = true
			out.Note = fmt.Sprintf("cut at %d of %d bytes (maxBodyBytes)", n, len(b.Data))
		}
		out.Text = string(text)
		return out, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return out, engine.FileError(engine.BrowserError, err, "cannot make the directory for the body")
	}
	ext := ".bin"
	if mt, _, err := mime.ParseMediaType(b.MimeType); err == nil {
		if exts, _ := mime.ExtensionsByType(mt); len(exts) > 0 {
			ext = exts[0]
		}
	}
	path := filepath.Join(dir, safeName.ReplaceAllString(name, "_")+ext)
	if err := os.WriteFile(path, b.Data, 0o600); err != nil {
		return out, engine.FileError(engine.BrowserError, err, "cannot save the body")
	}
	out.Path = path
	out.Note = fmt.Sprintf("binary (%s): saved to the file at path", orUnknown(b.MimeType))
	return out, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "no MIME type"
	}
	return s
}

// StartHARIn is the input of start_har.
type StartHARIn struct {
	SessionArg
	Keep         bool   `json:"keep,omitempty" jsonschema:"Keep the file after the session ends (under the output directory's kept/)"`
	Content      string `json:"content,omitempty" jsonschema:"embed (default) keeps the bodies, omit leaves them out,enum=embed,enum=omit"`
	MaxBodyBytes int    `json:"maxBodyBytes,omitempty" jsonschema:"Each body is kept up to this many bytes (default 1 MiB), the rest cut and marked" range:"0,104857600"`
}

func (in StartHARIn) validate() error {
	return oneOf("content", in.Content, "embed", "omit")
}

// StartHAROut is the result of start_har.
type StartHAROut struct {
	Message string `json:"message"`
	Path    string `json:"path" jsonschema:"Where stop_har will write the HAR"`
	SessionMeta
}

func startHAR(d *Deps) Tool {
	return inGroup(Devtools, sessionTool(d, "start_har",
		"Record every request of the session's tabs (also tabs opened meanwhile) as HAR 1.2, with bodies up to a cap and the routes and throttling that applied; stop_har writes it.", local,
		func(ctx context.Context, s engine.Session, in StartHARIn) (StartHAROut, error) {
			session := engine.SessionIDFrom(ctx)
			req, err := d.recs.begin(session, engine.RecordHAR, "har", in.Keep)
			if err != nil {
				return StartHAROut{}, err
			}
			hr := engine.HARRequest{RecordingRequest: req, OmitContent: in.Content == "omit", MaxBodyBytes: int64(in.MaxBodyBytes), Version: d.version}
			if err := s.StartHAR(ctx, hr); err != nil {
				d.recs.abandon(session, engine.RecordHAR)
				return StartHAROut{}, err
			}
			what := "with bodies up to " + byteCount(int64(limitOr(in.MaxBodyBytes, engine.DefaultHARBodyBytes))) + " each"
			if in.Content == "omit" {
				what = "without bodies"
			}
			return StartHAROut{Message: "Recording a HAR of every tab's requests, " + what + ". Call stop_har to write it.", Path: req.Path}, nil
		}))
}

// byteCount is n in the largest whole unit.
func byteCount(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// StopHARIn is the input of stop_har.
type StopHARIn struct {
	SessionArg
}

// StopHAROut is the result of stop_har.
type StopHAROut struct {
	Path       string `json:"path"`
	Bytes      int64  `json:"bytes"`
	Entries    *int   `json:"entries,omitempty" jsonschema:"Absent when the HAR had stopped by itself: its file was written then, uncounted here"`
	Pages      *int   `json:"pages,omitempty"`
	DurationMs int64  `json:"durationMs"`
	Kept       bool   `json:"kept,omitempty" jsonschema:"The file outlives the session"`
	StoppedBy  string `json:"stoppedBy,omitempty" jsonschema:"Why the HAR had stopped by itself before this call: max_bytes, max_duration"`
	Message    string `json:"message,omitempty"`
	SessionMeta
}

func stopHAR(d *Deps) Tool {
	return inGroup(Devtools, sessionTool(d, "stop_har", "Stop the HAR recording start_har began and write the file: its path, size, entries and pages.", local,
		func(ctx context.Context, s engine.Session, in StopHARIn) (StopHAROut, error) {
			session := engine.SessionIDFrom(ctx)
			cur, err := d.recs.end(session, engine.RecordHAR)
			if err != nil {
				return StopHAROut{}, err
			}
			// It stopped by itself (a bound) before the call, or while the
			// call reached it: its file is written already.
			selfStoppedOut := func(cur recording) (StopHAROut, error) {
				if cur.done.Path == "" {
					return StopHAROut{}, cur.doneErr(engine.RecordHAR)
				}
				return StopHAROut{Path: cur.done.Path, Bytes: cur.done.Bytes, DurationMs: cur.done.Duration.Milliseconds(), Kept: cur.keep,
					StoppedBy: cur.done.StoppedBy, Message: selfStopped(engine.RecordHAR, cur.done, d.recs.limits.WithDefaults())}, nil
			}
			if cur.done != nil {
				return selfStoppedOut(cur)
			}
			res, err := s.StopHAR(ctx)
			if fin, ok := d.recs.raced(session, engine.RecordHAR, cur, err); ok {
				return selfStoppedOut(fin)
			}
			if err != nil {
				return StopHAROut{}, err
			}
			return StopHAROut{Path: res.Path, Bytes: res.Bytes, Entries: &res.Entries, Pages: &res.Pages,
				DurationMs: res.Duration.Milliseconds(), Kept: cur.keep}, nil
		}))
}

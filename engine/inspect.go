package engine

import (
	"context"
	"mime"
	"strings"
	"unicode/utf8"
)

// Inspector is the part of a Session that shows one logged request in
// full and records the session's traffic as HAR (the devtools group's
// get_request, start_har and stop_har).
type Inspector interface {
	// Request returns the request the log lists with this id
	// (RequestEntry.ID), from any tab of the session: its headers, timing
	// and bodies. An id the session never gave, or whose entry the bounded
	// log forgot, is INVALID_PARAMETERS with field id.
	Request(ctx context.Context, q RequestQuery) (RequestDetail, error)
	// StartHAR records every request of every tab of the session (also of
	// the tabs opened while it records) into the HAR 1.2 file req.Path,
	// with their bodies captured as each response finishes. It stops by
	// itself at req.Limits, or when the session closes (the file
	// finished), and says so through req.Stopped.
	StartHAR(ctx context.Context, req HARRequest) error
	// StopHAR finishes the HAR file; NO_RECORDING when none runs.
	StopHAR(ctx context.Context) (HARResult, error)
}

// RequestQuery names one request of the log.
type RequestQuery struct {
	ID string
}

// Header is one HTTP header, in the order the browser gave them.
type Header struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// RequestTiming is where a request's time went, in ms, as HAR's timings
// count it; -1 where the browser did not say (a connection reused has no
// DNS or connect time).
type RequestTiming struct {
	Blocked float64 `json:"blocked"`
	DNS     float64 `json:"dns"`
	Connect float64 `json:"connect"`
	SSL     float64 `json:"ssl"`
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
}

// Body is a request's or response's body as the browser holds it: Data,
// or (Data nil) Absent saying why there is none.
type Body struct {
	Data     []byte
	MimeType string
	// Absent says why there is no body: the request sent none, it failed,
	// it was a redirect, or the browser no longer holds it.
	Absent string
}

// RequestDetail is one request of the log in full.
type RequestDetail struct {
	RequestEntry
	StatusText      string
	HTTPVersion     string
	RequestHeaders  []Header
	ResponseHeaders []Header
	// Timing is nil when the browser gave none (a failed or mocked request).
	Timing *RequestTiming
	// Conditions is the throttling that applied to the request, or
	// Offline; nil when none did.
	Conditions *AppliedConditions
	Request    Body
	Response   Body
	// Unavailable names the fields this browser cannot give, and why
	// (e.g. "timing": "firefox (playwright) reports no timing ...").
	Unavailable map[string]string
}

// AppliedConditions is the network emulation that applied to a request.
type AppliedConditions struct {
	Offline bool
	Throttling
}

// HARRequest starts a HAR recording.
type HARRequest struct {
	RecordingRequest
	// OmitContent leaves the bodies out (start_har's content: "omit").
	OmitContent bool
	// MaxBodyBytes caps each body kept; 0: DefaultHARBodyBytes.
	MaxBodyBytes int64
	// Version is the server's, for the HAR's creator.
	Version string
}

// DefaultHARBodyBytes caps each body a HAR keeps.
const DefaultHARBodyBytes = 1 << 20

// HARResult is a finished HAR file.
type HARResult struct {
	Recorded
	Entries int
	Pages   int
}

// IsText reports whether a body of this MIME type (and these bytes) reads
// as text: text/*, JSON, XML, JavaScript, form data, SVG; with no MIME
// type, valid UTF-8 without NUL bytes. Anything else (images, fonts,
// octet-stream) is binary.
func IsText(mimeType string, data []byte) bool {
	mt, _, err := mime.ParseMediaType(mimeType)
	if err != nil {
		mt = strings.ToLower(strings.TrimSpace(mimeType))
	}
	switch {
	case mt == "":
		return utf8.Valid(data) && !strings.ContainsRune(string(data), 0)
	case strings.HasPrefix(mt, "text/"), strings.HasSuffix(mt, "+json"), strings.HasSuffix(mt, "+xml"),
		strings.Contains(mt, "json"), strings.Contains(mt, "javascript"), strings.Contains(mt, "ecmascript"),
		mt == "application/xml", mt == "application/x-www-form-urlencoded", mt == "image/svg+xml":
		return utf8.Valid(data)
	}
	return false
}

// UnknownRequest is the error of Request for an id the log does not hold.
func UnknownRequest(id string) *Error {
	return Errorf(InvalidParameters, "no request %q in this session's request log: ids are given by get_request_log, and the log keeps the newest requests of each tab", id).
		With("field", "id").Suggest("Call get_request_log and use an id it lists.")
}

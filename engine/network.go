package engine

import (
	"context"
	"slices"
	"strings"
)

// Networker intercepts, shapes and records a session's network traffic.
// Interception must never leave a request hanging: every request a route
// pauses is answered, failed or continued, also when the route is removed or
// the session closes while it waits.
type Networker interface {
	// AddRoute adds a rule for the session's requests. When several routes
	// match a request, the newest wins. It returns the number of routes now
	// active.
	AddRoute(ctx context.Context, r Route) (int, error)
	// RemoveRoutes removes the routes with exactly this URL pattern, or
	// every route when pattern is "". It returns how many it removed and how
	// many remain.
	RemoveRoutes(ctx context.Context, pattern string) (removed, remaining int, err error)
	// SetOffline makes every request of the session fail as if the network
	// were down, and navigator.onLine false; false undoes it.
	SetOffline(ctx context.Context, offline bool) error
	// SetThrottling limits the session's bandwidth and adds latency; the
	// zero Throttling turns throttling off.
	SetThrottling(ctx context.Context, t Throttling) error
	// RequestLog returns the newest recorded requests matching q, oldest
	// first.
	RequestLog(ctx context.Context, q RequestLogQuery) (RequestLog, error)
}

// Consoler records what the page writes to its console.
type Consoler interface {
	// ConsoleMessages returns the newest recorded messages matching q,
	// oldest first.
	ConsoleMessages(ctx context.Context, q ConsoleQuery) (ConsoleLog, error)
}

// PDFer prints the page.
type PDFer interface {
	// PDF prints the page to a PDF file and returns its bytes.
	PDF(ctx context.Context, req PDFRequest) ([]byte, error)
}

// RouteAction is what a route does with a matching request.
type RouteAction string

// The route actions.
const (
	// RouteBlock fails the request as blocked by the client.
	RouteBlock RouteAction = "block"
	// RouteMock answers the request without sending it.
	RouteMock RouteAction = "mock"
)

// Route matches requests by URL pattern and/or resource type and blocks or
// answers them.
type Route struct {
	// URLPattern is a glob over the whole URL (without fragment): * matches
	// any run of characters, every other character matches itself. Empty
	// matches every URL.
	URLPattern string
	// ResourceType is one of ResourceTypes; empty matches every type.
	// Chromium's interception does not tell XHR from fetch(), so "xhr" and
	// "fetch" both match both.
	ResourceType string
	Action       RouteAction
	// Status, Headers and Body are the mocked response (RouteMock only).
	// Status 0 means 200; without a content-type header one is chosen from
	// the body (application/json for JSON, else text/plain).
	Status  int
	Headers map[string]string
	Body    string
}

// Validate checks a route before any engine uses it.
func (r Route) Validate() error {
	if r.URLPattern == "" && r.ResourceType == "" {
		return Errorf(InvalidParameters, "give urlPattern, resourceType or both").With("field", "urlPattern")
	}
	if p := r.URLPattern; p != "" && !strings.HasPrefix(p, "*") && !strings.Contains(p, "://") && !strings.HasPrefix(p, "data:") {
		return Errorf(InvalidParameters, "urlPattern %q can never match: it must match the whole URL, so start it with * or a scheme, e.g. */api/*", p).
			With("field", "urlPattern")
	}
	if strings.ContainsAny(r.URLPattern, " \t\r\n") {
		return Errorf(InvalidParameters, "urlPattern %q contains whitespace, which URLs never do", r.URLPattern).With("field", "urlPattern")
	}
	if r.ResourceType != "" && !slices.Contains(ResourceTypes, r.ResourceType) {
		return Errorf(InvalidParameters, "resourceType must be one of %s, not %q", strings.Join(ResourceTypes, ", "), r.ResourceType).
			With("field", "resourceType")
	}
	if r.ResourceType == "websocket" {
		return Errorf(Unsupported, "WebSocket connections cannot be routed").With("field", "resourceType")
	}
	switch r.Action {
	case RouteBlock:
	case RouteMock:
		if r.Status != 0 && (r.Status < 100 || r.Status > 599) {
			return Errorf(InvalidParameters, "status must be 100-599, got %d", r.Status).With("field", "status")
		}
		for k, v := range r.Headers {
			if k == "" || strings.ContainsAny(k, " :\r\n\t") || strings.ContainsAny(v, "\r\n") {
				return Errorf(InvalidParameters, "header %q: names are tokens without spaces or colons, values have no line breaks", k).
					With("field", "headers")
			}
		}
	default:
		return Errorf(InvalidParameters, "route action must be block or mock, not %q", r.Action)
	}
	return nil
}

// ResourceTypes are the request types a route or log query can name.
var ResourceTypes = []string{"document", "stylesheet", "image", "media", "font", "script", "texttrack",
	"xhr", "fetch", "prefetch", "eventsource", "websocket", "manifest", "ping", "preflight", "other"}

// MatchGlob reports whether s matches the route glob pattern: * matches any
// run of characters (including none); everything else matches itself.
func MatchGlob(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return s == pattern
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return strings.HasSuffix(s, last)
}

// Throttling limits a session's network. A zero rate means unlimited.
type Throttling struct {
	DownloadKbps float64
	UploadKbps   float64
	LatencyMs    float64
}

// Validate refuses a negative number, a bandwidth over 10 Gbit/s and a
// latency over a minute.
func (t Throttling) Validate() error {
	for _, f := range []struct {
		name     string
		v, limit float64
	}{{"downloadKbps", t.DownloadKbps, 1e7}, {"uploadKbps", t.UploadKbps, 1e7}, {"latencyMs", t.LatencyMs, 60000}} {
		if !(f.v >= 0 && f.v <= f.limit) {
			return Errorf(InvalidParameters, "%s must be between 0 and %g, got %g", f.name, f.limit, f.v).With("field", f.name)
		}
	}
	return nil
}

// Off reports whether t throttles nothing.
func (t Throttling) Off() bool { return t == Throttling{} }

// RequestLogQuery selects entries of the request log.
type RequestLogQuery struct {
	// Filter keeps requests whose URL contains it (case-insensitive).
	Filter       string
	ResourceType string
	// FailedOnly keeps requests that failed or were blocked.
	FailedOnly bool
	// Limit keeps the newest Limit entries; 0 means all.
	Limit int
}

// Keeps says whether the request log shows e for q, Limit aside.
func (q RequestLogQuery) Keeps(e RequestEntry) bool {
	return (q.Filter == "" || strings.Contains(strings.ToLower(e.URL), strings.ToLower(q.Filter))) &&
		(q.ResourceType == "" || e.ResourceType == q.ResourceType) &&
		(!q.FailedOnly || e.State == "failed")
}

// RequestLog is a page of the request log.
type RequestLog struct {
	Requests []RequestEntry `json:"requests"`
	// Total is how many recorded entries matched before Limit.
	Total int `json:"total"`
	// Dropped is how many entries the bounded log has forgotten.
	Dropped int `json:"dropped,omitempty"`
}

// RequestEntry is one request of the log. A redirect ends one entry (with
// the redirect's status) and starts another.
type RequestEntry struct {
	// ID names the request in its session for get_request ("r12"); it
	// stays the same while the log keeps the request.
	ID           string `json:"id"`
	Method       string `json:"method"`
	URL          string `json:"url"`
	ResourceType string `json:"resourceType"`
	// State is "pending", "finished" or "failed".
	State  string `json:"state"`
	Status int    `json:"status,omitempty"`
	// MimeType is the response's MIME type.
	MimeType string `json:"mimeType,omitempty"`
	// Error is the network error of a failed request, e.g.
	// net::ERR_BLOCKED_BY_CLIENT or net::ERR_INTERNET_DISCONNECTED.
	Error string `json:"error,omitempty"`
	// Route is "blocked" or "mocked" when a route handled the request, and
	// "policy" when the server's domain policy refused it.
	Route string `json:"route,omitempty"`
	// Throttled is set when the session's throttling or offline emulation
	// applied to the request.
	Throttled bool `json:"throttled,omitempty"`
	// StartedAt is Unix ms; DurationMs runs until the response finished
	// or failed.
	StartedAt  int64   `json:"startedAt"`
	DurationMs float64 `json:"durationMs,omitempty"`
	// Bytes is the encoded length received.
	Bytes int64 `json:"bytes,omitempty"`
}

// ConsoleLevels are the message levels, least severe first.
var ConsoleLevels = []string{"debug", "log", "info", "warning", "error"}

// ConsoleQuery selects recorded console messages.
type ConsoleQuery struct {
	// Level keeps messages at this level or more severe: debug < log, info
	// < warning < error. Empty keeps all.
	Level string
	// Limit keeps the newest Limit messages; 0 means all.
	Limit int
}

// Validate checks the level, for every engine alike.
func (q ConsoleQuery) Validate() error {
	if q.Level != "" && !slices.Contains(ConsoleLevels, q.Level) {
		return Errorf(InvalidParameters, "level must be one of %s, not %q", strings.Join(ConsoleLevels, ", "), q.Level).With("field", "level")
	}
	return nil
}

// Keeps reports whether m is at q.Level or more severe.
func (q ConsoleQuery) Keeps(m ConsoleMessage) bool {
	return q.Level == "" || severity(m.Level) >= severity(q.Level)
}

// severity orders levels; log and info rank the same.
func severity(level string) int {
	switch level {
	case "debug":
		return 0
	case "log", "info":
		return 1
	case "warning":
		return 2
	}
	return 3
}

// ConsoleLog is a page of recorded console messages.
type ConsoleLog struct {
	Messages []ConsoleMessage `json:"messages"`
	Total    int              `json:"total"`
	Dropped  int              `json:"dropped,omitempty"`
}

// ConsoleMessage is a console API call, an uncaught exception or a
// browser log entry.
type ConsoleMessage struct {
	// Level is one of ConsoleLevels; uncaught exceptions are "error".
	Level string `json:"level"`
	// Type is the console method (log, warn, error, table, assert, ...),
	// "exception" for an uncaught exception or unhandled rejection, or
	// "browser" for the browser's own log (failed loads, security notes).
	Type string `json:"type"`
	Text string `json:"text"`
	URL  string `json:"url,omitempty"`
	Line int64  `json:"line,omitempty"`
	// Time is Unix ms.
	Time int64 `json:"time"`
}

// PDFRequest asks for a PDF of the page.
type PDFRequest struct {
	// Format is a paper size from PaperFormats; empty means Letter.
	Format          string
	Landscape       bool
	PrintBackground bool
	// PageRanges such as "1-3, 5"; empty prints every page.
	PageRanges string
}

// PaperFormats are the paper sizes in inches (portrait).
var PaperFormats = map[string][2]float64{
	"Letter": {8.5, 11}, "Legal": {8.5, 14}, "Tabloid": {11, 17}, "Ledger": {17, 11},
	"A0": {33.1, 46.8}, "A1": {23.4, 33.1}, "A2": {16.54, 23.4}, "A3": {11.7, 16.54},
	"A4": {8.27, 11.7}, "A5": {5.83, 8.27}, "A6": {4.13, 5.83},
}

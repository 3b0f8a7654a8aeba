// Package har writes HAR 1.2 files (http://www.softwareishard.com/blog/har-12-spec/)
// for the engines' start_har: the log's types, and Recorder, which gathers
// a session's pages and entries in memory under the recording's bounds and
// writes the file, whole and valid, when the recording stops. Entries carry
// browsermcp's own fields, which the spec allows when they start with an
// underscore: _route (a route mocked or blocked the request, or the domain
// policy refused it), _throttled or _offline (the network emulation that
// applied), _id (the request's id in get_request_log) and _truncated (a
// body cut at the cap).
package har

import (
	"encoding/base64"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Log is a HAR file's one object.
type Log struct {
	Log struct {
		Version string  `json:"version"`
		Creator Creator `json:"creator"`
		Pages   []Page  `json:"pages"`
		Entries []Entry `json:"entries"`
		Comment string  `json:"comment,omitempty"`
	} `json:"log"`
}

// Creator names the program that wrote the file.
type Creator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Page is a document a tab loaded.
type Page struct {
	StartedDateTime string      `json:"startedDateTime"`
	ID              string      `json:"id"`
	Title           string      `json:"title"`
	PageTimings     PageTimings `json:"pageTimings"`
}

// PageTimings are not measured: -1, as the spec has it for unknown.
type PageTimings struct {
	OnContentLoad float64 `json:"onContentLoad"`
	OnLoad        float64 `json:"onLoad"`
}

// Entry is one request and its response.
type Entry struct {
	PageRef         string   `json:"pageref,omitempty"`
	StartedDateTime string   `json:"startedDateTime"`
	Time            float64  `json:"time"`
	Request         Request  `json:"request"`
	Response        Response `json:"response"`
	Cache           struct{} `json:"cache"`
	Timings         Timings  `json:"timings"`
	ServerIPAddress string   `json:"serverIPAddress,omitempty"`
	Comment         string   `json:"comment,omitempty"`

	ID        string     `json:"_id,omitempty"`
	Route     string     `json:"_route,omitempty"`
	Throttled *Throttled `json:"_throttled,omitempty"`
	Offline   bool       `json:"_offline,omitempty"`
	Resource  string     `json:"_resourceType,omitempty"`
	Error     string     `json:"_error,omitempty"`
	// Source is "performance" for an entry read from the page's
	// Performance timeline rather than the browser's network events.
	Source string `json:"_source,omitempty"`
}

// Throttled is the throttling that applied to a request.
type Throttled struct {
	DownloadKbps float64 `json:"downloadKbps"`
	UploadKbps   float64 `json:"uploadKbps"`
	LatencyMs    float64 `json:"latencyMs"`
}

// Request is an entry's request.
type Request struct {
	Method      string    `json:"method"`
	URL         string    `json:"url"`
	HTTPVersion string    `json:"httpVersion"`
	Cookies     []NV      `json:"cookies"`
	Headers     []NV      `json:"headers"`
	QueryString []NV      `json:"queryString"`
	PostData    *PostData `json:"postData,omitempty"`
	HeadersSize int64     `json:"headersSize"`
	BodySize    int64     `json:"bodySize"`
}

// NV is a header, cookie or query parameter.
type NV struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// PostData is a request's body.
type PostData struct {
	MimeType  string `json:"mimeType"`
	Text      string `json:"text"`
	Comment   string `json:"comment,omitempty"`
	Truncated bool   `json:"_truncated,omitempty"`
	Encoding  string `json:"_encoding,omitempty"`
}

// Response is an entry's response.
type Response struct {
	Status      int     `json:"status"`
	StatusText  string  `json:"statusText"`
	HTTPVersion string  `json:"httpVersion"`
	Cookies     []NV    `json:"cookies"`
	Headers     []NV    `json:"headers"`
	Content     Content `json:"content"`
	RedirectURL string  `json:"redirectURL"`
	HeadersSize int64   `json:"headersSize"`
	BodySize    int64   `json:"bodySize"`
}

// Content is a response's body.
type Content struct {
	Size      int64  `json:"size"`
	MimeType  string `json:"mimeType"`
	Text      string `json:"text,omitempty"`
	Encoding  string `json:"encoding,omitempty"`
	Comment   string `json:"comment,omitempty"`
	Truncated bool   `json:"_truncated,omitempty"`
}

// Timings are an entry's phases in ms; -1 where unknown.
type Timings struct {
	Blocked float64 `json:"blocked"`
	DNS     float64 `json:"dns"`
	Connect float64 `json:"connect"`
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
	SSL     float64 `json:"ssl"`
}

// Time formats t as HAR's startedDateTime (ISO 8601 with ms, UTC).
func Time(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// NewEntry builds the entry of one request from what the engine knows of
// it; its bodies are set by SetBodies.
func NewEntry(d engine.RequestDetail) Entry {
	e := Entry{StartedDateTime: Time(time.UnixMilli(d.StartedAt)), ID: d.ID, Route: d.Route, Resource: d.ResourceType, Error: d.Error}
	httpVersion := d.HTTPVersion // "" where the browser does not say
	e.Request = Request{Method: d.Method, URL: d.URL, HTTPVersion: httpVersion, Cookies: requestCookies(d.RequestHeaders),
		Headers: nvs(d.RequestHeaders), QueryString: query(d.URL), HeadersSize: -1, BodySize: 0}
	e.Response = Response{Status: d.Status, StatusText: d.StatusText, HTTPVersion: httpVersion, Cookies: responseCookies(d.ResponseHeaders),
		Headers: nvs(d.ResponseHeaders), Content: Content{Size: 0, MimeType: d.MimeType}, RedirectURL: header(d.ResponseHeaders, "Location"),
		HeadersSize: -1, BodySize: -1}
	if d.State == "failed" {
		e.Response.Status, e.Response.HTTPVersion = 0, ""
		e.Comment = "failed: " + d.Error
	}
	if d.Status >= 300 && d.Status < 400 {
		e.Response.BodySize = 0
	}
	if d.Bytes > 0 {
		e.Response.BodySize = d.Bytes
	}
	if t := d.Timing; t != nil {
		e.Timings = Timings{Blocked: t.Blocked, DNS: t.DNS, Connect: t.Connect, Send: t.Send, Wait: t.Wait, Receive: t.Receive, SSL: t.SSL}
		for _, v := range []float64{t.Blocked, t.DNS, t.Connect, t.Send, t.Wait, t.Receive} {
			if v > 0 {
				e.Time += v
			}
		}
	} else {
		e.Timings = Timings{Blocked: -1, DNS: -1, Connect: -1, Send: 0, Wait: d.DurationMs, Receive: 0, SSL: -1}
		e.Time = d.DurationMs
	}
	if len(d.Unavailable) > 0 {
		var why []string
		for _, k := range slices.Sorted(maps.Keys(d.Unavailable)) {
			why = append(why, k+": "+d.Unavailable[k])
		}
		e.Comment = strings.TrimPrefix(e.Comment+"; unavailable: "+strings.Join(why, "; "), "; ")
	}
	if c := d.Conditions; c != nil {
		if c.Offline {
			e.Offline = true
		} else {
			e.Throttled = &Throttled{DownloadKbps: c.DownloadKbps, UploadKbps: c.UploadKbps, LatencyMs: c.LatencyMs}
		}
	}
	return e
}

// SetBodies puts the request's and response's bodies into e, each cut at
// max bytes (marked _truncated with the full size in the comment); binary
// response bodies are base64, as the spec says.
func (e *Entry) SetBodies(req, resp engine.Body, max int64) {
	if req.Data != nil {
		mt := req.MimeType
		pd := &PostData{MimeType: mt}
		data, cut := clipBytes(req.Data, max)
		if engine.IsText(mt, req.Data) {
			pd.Text = strings.ToValidUTF8(string(data), "")
		} else {
			pd.Text, pd.Encoding = base64.StdEncoding.EncodeToString(data), "base64"
		}
		if cut {
			pd.Truncated, pd.Comment = true, truncNote(len(req.Data), max)
		}
		e.Request.PostData = pd
		e.Request.BodySize = int64(len(req.Data))
	}
	if resp.Data != nil {
		c := &e.Response.Content
		c.Size = int64(len(resp.Data))
		if resp.MimeType != "" {
			c.MimeType = resp.MimeType
		}
		data, cut := clipBytes(resp.Data, max)
		if engine.IsText(c.MimeType, resp.Data) {
			c.Text = strings.ToValidUTF8(string(data), "")
		} else {
			c.Text, c.Encoding = base64.StdEncoding.EncodeToString(data), "base64"
		}
		if cut {
			c.Truncated, c.Comment = true, truncNote(len(resp.Data), max)
		}
	} else if resp.Absent != "" {
		e.Response.Content.Comment = "no body: " + resp.Absent
	}
}

func truncNote(full int, max int64) string {
	return fmt.Sprintf("cut at %d of %d bytes (maxBodyBytes)", max, full)
}

// clipBytes cuts b at max bytes (at a UTF-8 boundary for text).
func clipBytes(b []byte, max int64) ([]byte, bool) {
	if max <= 0 || int64(len(b)) <= max {
		return b, false
	}
	n := int(max)
	for n > 0 && n < len(b) && b[n]&0xC0 == 0x80 {
		n--
	}
	return b[:n], true
}

func nvs(hs []engine.Header) []NV {
	out := make([]NV, 0, len(hs))
	for _, h := range hs {
		out = append(out, NV{Name: h.Name, Value: h.Value})
	}
	return out
}

func header(hs []engine.Header, name string) string {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

func query(raw string) []NV {
	out := []NV{}
	u, err := url.Parse(raw)
	if err != nil {
		return out
	}
	for _, kv := range strings.Split(u.RawQuery, "&") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		if uk, err := url.QueryUnescape(k); err == nil {
			k = uk
		}
		if uv, err := url.QueryUnescape(v); err == nil {
			v = uv
		}
		out = append(out, NV{Name: k, Value: v})
	}
	return out
}

func requestCookies(hs []engine.Header) []NV {
	out := []NV{}
	for _, h := range hs {
		if strings.EqualFold(h.Name, "Cookie") {
			cs, _ := http.ParseCookie(h.Value)
			for _, c := range cs {
				out = append(out, NV{Name: c.Name, Value: c.Value})
			}
		}
	}
	return out
}

func responseCookies(hs []engine.Header) []NV {
	out := []NV{}
	for _, h := range hs {
		if strings.EqualFold(h.Name, "Set-Cookie") {
			for _, line := range strings.Split(h.Value, "\n") {
				if c, err := http.ParseSetCookie(line); err == nil {
					out = append(out, NV{Name: c.Name, Value: c.Value})
				}
			}
		}
	}
	return out
}

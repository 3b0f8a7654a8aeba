package har

import (
	"math"
	"strings"

	"github.com/seed4af8c199/browsermcp/engine"
)

// PerfScript lists a page's navigation and resource timing entries, at
// most 500.
const PerfScript = `performance.getEntriesByType("navigation").concat(performance.getEntriesByType("resource")).slice(0, 500).map(e => ({
  name: e.name, entryType: e.entryType, initiatorType: e.initiatorType, startTime: e.startTime, duration: e.duration,
  origin: performance.timeOrigin, nextHopProtocol: e.nextHopProtocol, transferSize: e.transferSize, decodedBodySize: e.decodedBodySize,
  responseStatus: e.responseStatus || 0, domainLookupStart: e.domainLookupStart, domainLookupEnd: e.domainLookupEnd,
  connectStart: e.connectStart, connectEnd: e.connectEnd, secureConnectionStart: e.secureConnectionStart,
  requestStart: e.requestStart, responseStart: e.responseStart, responseEnd: e.responseEnd}))`

// PerfEntry is one entry of a page's Performance timeline (ms since its
// timeOrigin).
type PerfEntry struct {
	Name          string  `json:"name"`
	EntryType     string  `json:"entryType"`
	InitiatorType string  `json:"initiatorType"`
	StartTime     float64 `json:"startTime"`
	Duration      float64 `json:"duration"`
	Origin        float64 `json:"origin"`
	Protocol      string  `json:"nextHopProtocol"`
	Transfer      int64   `json:"transferSize"`
	Decoded       int64   `json:"decodedBodySize"`
	Status        int     `json:"responseStatus"`
	DNSStart      float64 `json:"domainLookupStart"`
	DNSEnd        float64 `json:"domainLookupEnd"`
	ConnectStart  float64 `json:"connectStart"`
	ConnectEnd    float64 `json:"connectEnd"`
	SSLStart      float64 `json:"secureConnectionStart"`
	RequestStart  float64 `json:"requestStart"`
	ResponseStart float64 `json:"responseStart"`
	ResponseEnd   float64 `json:"responseEnd"`
}

// AddPerf adds to r the entries of list, a late tab's Performance
// timeline (PerfScript), that seen (the URLs its log has) lacks and that
// finished, on page; the URLs are cut at maxURL bytes. An entry r does
// not take (Hold: stopped, or full) is left out.
func (r *Recorder) AddPerf(list []PerfEntry, seen map[string]bool, page string, maxURL int) {
	for _, p := range list {
		if seen[p.Name] || p.ResponseEnd <= 0 || !r.Hold() {
			continue
		}
		seen[p.Name] = true
		r.Add(p.Entry(page, maxURL))
		r.Release()
	}
}

// Entry is the HAR entry of a request the engine saw no network events
// for (a popup's first load, before it became a tab), from what the
// page's timeline tells: no headers, no bodies, and it says so (_source
// "performance"). page is its pageref; the URL is cut at maxURL bytes.
func (p PerfEntry) Entry(page string, maxURL int) Entry {
	typ := p.InitiatorType
	switch {
	case p.EntryType == "navigation":
		typ = "document"
	case typ == "img":
		typ = "image"
	case typ == "link", typ == "css":
		typ = "stylesheet"
	case typ == "xmlhttprequest":
		typ = "xhr"
	}
	span := func(a, b float64) float64 { return max(round3(b-a), 0) }
	ssl := -1.0
	if p.SSLStart > 0 {
		ssl = span(p.SSLStart, p.ConnectEnd)
	}
	d := engine.RequestDetail{
		RequestEntry: engine.RequestEntry{Method: "GET", URL: engine.Clip(p.Name, maxURL), ResourceType: typ, State: "finished", Status: p.Status,
			StartedAt: int64(p.Origin + p.StartTime), DurationMs: round3(p.Duration), Bytes: p.Transfer},
		HTTPVersion: HTTPVersion(p.Protocol),
		Timing: &engine.RequestTiming{Blocked: -1, DNS: span(p.DNSStart, p.DNSEnd), Connect: span(p.ConnectStart, p.ConnectEnd), SSL: ssl,
			Wait: span(p.RequestStart, p.ResponseStart), Receive: span(p.ResponseStart, p.ResponseEnd)},
	}
	e := NewEntry(d)
	e.PageRef, e.Source = page, "performance"
	e.Comment = "loaded before the tab joined the recording (a popup's first load): from the page's Performance timeline, without headers or bodies"
	return e
}

// HTTPVersion is a protocol as HAR names it: "HTTP/1.1", "HTTP/2".
func HTTPVersion(p string) string {
	switch strings.ToLower(p) {
	case "":
		return ""
	case "h2":
		return "HTTP/2"
	case "h3", "h3-q050":
		return "HTTP/3"
	}
	return strings.ToUpper(p)
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

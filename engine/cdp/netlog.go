package cdp

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/network"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/har"
	"github.com/seed4af8c199/browsermcp/engine/kit"
)

// requestLogSize bounds the request log of one session.
const requestLogSize = 1000

// maxLoggedURL bounds a logged URL; data: URLs can be megabytes.
const maxLoggedURL = 2048

// reqEntry is a log entry while it can still change, with what
// get_request and the HAR show of it beyond the log's line.
type reqEntry struct {
	engine.RequestEntry
	started  float64 // monotonic seconds, for the duration
	ended    float64 // monotonic seconds when it finished or failed
	cdpID    network.RequestID
	redirect bool // it ended in a redirect: its body is the next hop's
	hasPost  bool
	// reqHeaders are the headers sent (the refined ones once the
	// response says), respHeaders the response's.
	reqHeaders, respHeaders []engine.Header
	statusText, protocol    string
	timing                  *network.ResourceTiming
	cond                    engine.AppliedConditions // the emulation when it started
	page                    string                   // its HAR page, while a HAR records
}

// reqMarks are facts about a request learnt before its entry exists:
// Chromium may send requestWillBeSentExtraInfo and Fetch.requestPaused
// before Network.requestWillBeSent.
type reqMarks struct {
	route     string
	throttled bool
}

// netLog is a session's bounded request log.
type netLog struct {
	mu      sync.Mutex
	entries kit.RecentLog[*reqEntry]
	live    map[network.RequestID]*reqEntry // entries that can still change
	early   map[network.RequestID]reqMarks
	// ids numbers the session's requests (r1, r2, ...): shared by its
	// tabs, as refs are (refSpace).
	ids *atomic.Int64
	// cond is the tab's emulated network, read as each request starts.
	cond *conditions
	// tab is the tab's target id, which is its main frame's id: a
	// document request there starts a HAR page.
	tab string
	// har is the recording this tab's requests go to, if one runs.
	har *harTap
}

func (l *netLog) init() {
	l.entries = kit.NewRecentLog[*reqEntry](requestLogSize)
	l.live = map[network.RequestID]*reqEntry{}
	l.early = map[network.RequestID]reqMarks{}
	l.ids = new(atomic.Int64) // openTab gives it the session's
}

func (l *netLog) onEvent(ev any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		if prev := l.live[ev.RequestID]; prev != nil && ev.RedirectResponse != nil {
			// The same id continues at the redirect's target.
			prev.redirect = true
			prev.response(ev.RedirectResponse)
			l.end(ev.RequestID, prev, "finished", float64(ev.Timestamp))
		}
		e := &reqEntry{started: float64(ev.Timestamp), cdpID: ev.RequestID, hasPost: ev.Request.HasPostData}
		e.ID = "r" + strconv.FormatInt(l.ids.Add(1), 10)
		e.Method, e.URL = ev.Request.Method, engine.Clip(ev.Request.URL+ev.Request.URLFragment, maxLoggedURL)
		e.ResourceType, e.State = strings.ToLower(string(ev.Type)), "pending"
		e.StartedAt = int64(float64(ev.WallTime) * 1000)
		e.reqHeaders = headers(ev.Request.Headers)
		if l.cond != nil {
			l.cond.mu.Lock()
			e.cond = engine.AppliedConditions{Offline: l.cond.offline, Throttling: l.cond.throttle}
			l.cond.mu.Unlock()
		}
		if l.har != nil {
			if ev.Type == network.ResourceTypeDocument && string(ev.FrameID) == l.tab && ev.RedirectResponse == nil {
				l.har.page = l.har.rec.AddPage(e.URL, time.UnixMilli(e.StartedAt))
			}
			e.page = l.har.page
		}
		if m, ok := l.early[ev.RequestID]; ok {
			e.Route, e.Throttled = m.route, m.throttled
			delete(l.early, ev.RequestID)
		}
		l.live[ev.RequestID] = e
		if old, evicted := l.entries.Add(e); evicted {
			for id, x := range l.live {
				if x == old {
					delete(l.live, id)
					break
				}
			}
		}
	case *network.EventRequestWillBeSentExtraInfo:
		if ev.AppliedNetworkConditionsID != "" {
			l.mark(ev.RequestID, func(m *reqMarks) { m.throttled = true })
		}
	case *network.EventResponseReceived:
		if e := l.live[ev.RequestID]; e != nil {
			e.response(ev.Response)
		}
	case *network.EventLoadingFinished:
		if e := l.live[ev.RequestID]; e != nil {
			e.Bytes = int64(ev.EncodedDataLength)
			l.end(ev.RequestID, e, "finished", float64(ev.Timestamp))
		}
	case *network.EventLoadingFailed:
		if e := l.live[ev.RequestID]; e != nil {
			e.Error = ev.ErrorText
			if ev.Canceled && e.Error == "" {
				e.Error = "canceled"
			}
			l.end(ev.RequestID, e, "failed", float64(ev.Timestamp))
		}
	}
}

func (l *netLog) end(id network.RequestID, e *reqEntry, state string, at float64) {
	e.State, e.ended = state, at
	if d := (at - e.started) * 1000; d > 0 {
		e.DurationMs = float64(int64(d*10)) / 10
	}
	delete(l.live, id)
	if l.har != nil {
		l.har.ended(e)
	}
}

// response records what a response (or a redirect's) says.
func (e *reqEntry) response(r *network.Response) {
	e.Status, e.MimeType, e.statusText = int(r.Status), r.MimeType, r.StatusText
	e.respHeaders, e.protocol, e.timing = headers(r.Headers), r.Protocol, r.Timing
	if len(r.RequestHeaders) > 0 {
		e.reqHeaders = headers(r.RequestHeaders)
	}
}

// detail is the entry in full, its bodies aside. Caller holds the log's
// mu.
func (e *reqEntry) detail() engine.RequestDetail {
	d := engine.RequestDetail{RequestEntry: e.RequestEntry, StatusText: e.statusText, HTTPVersion: har.HTTPVersion(e.protocol),
		RequestHeaders: e.reqHeaders, ResponseHeaders: e.respHeaders}
	if t := e.timing; t != nil && t.RequestTime > 0 {
		d.Timing = harTiming(t, e.ended)
	}
	if e.Throttled || e.cond.Offline && e.State == "failed" {
		c := e.cond
		d.Conditions = &c
	}
	return d
}

// headers are a CDP header map as a list, sorted by name: the protocol
// does not keep their order.
func headers(h network.Headers) []engine.Header {
	out := make([]engine.Header, 0, len(h))
	for k, v := range h {
		s, ok := v.(string)
		if !ok {
			s = fmt.Sprint(v)
		}
		out = append(out, engine.Header{Name: k, Value: s})
	}
	slices.SortFunc(out, func(a, b engine.Header) int { return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)) })
	return out
}

// harTiming turns Chromium's resource timing (ms since RequestTime, -1
// where a phase did not happen) into HAR's phases; ended is when the body
// finished, in the same clock's seconds.
func harTiming(t *network.ResourceTiming, ended float64) *engine.RequestTiming {
	span := func(a, b float64) float64 {
		if a < 0 || b < 0 {
			return -1
		}
		return round3(b - a)
	}
	rt := &engine.RequestTiming{Blocked: -1, DNS: span(t.DNSStart, t.DNSEnd), Connect: span(t.ConnectStart, t.ConnectEnd),
		SSL: span(t.SslStart, t.SslEnd), Send: max(span(t.SendStart, t.SendEnd), 0), Wait: max(span(t.SendEnd, t.ReceiveHeadersEnd), 0)}
	for _, start := range []float64{t.DNSStart, t.ConnectStart, t.SendStart} {
		if start >= 0 {
			rt.Blocked = round3(start)
			break
		}
	}
	if ended > 0 && t.ReceiveHeadersEnd >= 0 {
		rt.Receive = max(round3((ended-t.RequestTime)*1000-t.ReceiveHeadersEnd), 0)
	}
	return rt
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// mark records a fact about a request, on its entry if it exists yet.
// Caller holds l.mu.
func (l *netLog) mark(id network.RequestID, f func(*reqMarks)) {
	if e := l.live[id]; e != nil {
		m := reqMarks{route: e.Route, throttled: e.Throttled}
		f(&m)
		e.Route, e.Throttled = m.route, m.throttled
		return
	}
	if len(l.early) > requestLogSize {
		clear(l.early) // marks for requests that never showed up
	}
	m := l.early[id]
	f(&m)
	l.early[id] = m
}

// markRoute records that a route blocked or mocked a request.
func (l *netLog) markRoute(id network.RequestID, route string) {
	if id == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.mark(id, func(m *reqMarks) { m.route = route })
}

// RequestLog returns the newest recorded requests matching q.
func (s *session) RequestLog(ctx context.Context, q engine.RequestLogQuery) (engine.RequestLog, error) {
	// The log is memory only, so it answers even after a crash, when it
	// helps most.
	l := &s.obs.net
	l.mu.Lock()
	defer l.mu.Unlock()
	reqs, total := kit.Newest(&l.entries, q.Limit, func(e *reqEntry) (engine.RequestEntry, bool) {
		return e.RequestEntry, q.Keeps(e.RequestEntry)
	})
	return engine.RequestLog{Requests: reqs, Total: total, Dropped: l.entries.Dropped()}, nil
}

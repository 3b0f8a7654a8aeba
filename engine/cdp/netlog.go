package cdp

import (
	"context"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/network"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit"
)

// requestLogSize bounds the request log of one session.
const requestLogSize = 1000

// maxLoggedURL bounds a logged URL; data: URLs can be megabytes.
const maxLoggedURL = 2048

// reqEntry is a log entry while it can still change.
type reqEntry struct {
	engine.RequestEntry
	started float64 // monotonic seconds, for the duration
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
}

func (l *netLog) init() {
	l.entries = kit.NewRecentLog[*reqEntry](requestLogSize)
	l.live = map[network.RequestID]*reqEntry{}
	l.early = map[network.RequestID]reqMarks{}
}

func (l *netLog) onEvent(ev any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		if prev := l.live[ev.RequestID]; prev != nil && ev.RedirectResponse != nil {
			// The same id continues at the redirect's target.
			prev.Status = int(ev.RedirectResponse.Status)
			prev.MimeType = ev.RedirectResponse.MimeType
			l.end(ev.RequestID, prev, "finished", float64(ev.Timestamp))
		}
		e := &reqEntry{started: float64(ev.Timestamp)}
		e.Method, e.URL = ev.Request.Method, engine.Clip(ev.Request.URL+ev.Request.URLFragment, maxLoggedURL)
		e.ResourceType, e.State = strings.ToLower(string(ev.Type)), "pending"
		e.StartedAt = int64(float64(ev.WallTime) * 1000)
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
			e.Status, e.MimeType = int(ev.Response.Status), ev.Response.MimeType
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
	e.State = state
	if d := (at - e.started) * 1000; d > 0 {
		e.DurationMs = float64(int64(d*10)) / 10
	}
	delete(l.live, id)
}

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

package cdp

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/har"
)

// bodyTimeout bounds reading one body from the browser.
const bodyTimeout = 10 * time.Second

// harTap joins one tab's request log to the session's HAR recording: the
// log hands it every request that ends, and it reads the request's bodies
// at once, before the browser evicts them, on a goroutine of its own (the
// log's listener must never call CDP).
type harTap struct {
	rec  *har.Recorder
	tab  *session
	page string // the HAR page of the tab's current document
	// late is set for a tab that joined while the recording ran (a popup,
	// adopted once it had loaded), first its first page: what it loaded
	// before is read back from its Performance timeline (backfill).
	late  bool
	first string
}

// ended records one request that ended. The log's mu is held.
func (h *harTap) ended(e *reqEntry) {
	if !h.rec.Hold() {
		return
	}
	d, id, hasPost, redirect := e.detail(), e.cdpID, e.hasPost, e.redirect
	entry := har.NewEntry(d)
	entry.PageRef = e.page
	go func() {
		defer h.rec.Release()
		if keep, max := h.rec.Content(); keep {
			ctx, cancel := context.WithTimeout(h.tab.b.ctx, bodyTimeout)
			req, resp := h.tab.bodies(ctx, id, d, hasPost, redirect)
			cancel()
			entry.SetBodies(req, resp, max)
		}
		h.rec.Add(entry)
	}()
}

// bodies reads a request's body and its response's from the tab that
// made it; a body there is none of, or that the browser no longer holds,
// says why in Absent.
func (s *session) bodies(ctx context.Context, id network.RequestID, d engine.RequestDetail, hasPost, redirect bool) (req, resp engine.Body) {
	req = engine.Body{MimeType: headerValue(d.RequestHeaders, "Content-Type"), Absent: "the request sent no body"}
	resp = engine.Body{MimeType: d.MimeType}
	t := chromedp.FromContext(s.tab).Target
	if t == nil || s.tab.Err() != nil {
		req.Absent, resp.Absent = "the tab that made the request is closed", "the tab that made the request is closed"
		if !hasPost {
			req.Absent = "the request sent no body"
		}
		return req, resp
	}
	if hasPost {
		res, err := cdp.Call(ctx, t, network.GetRequestPostData, network.GetRequestPostDataParams{RequestID: id})
		if err != nil {
			req.Absent = "the browser no longer holds the request's body"
		} else {
			req.Data, req.Absent = append([]byte{}, res.PostData...), ""
		}
	}
	switch {
	case d.State == "pending":
		resp.Absent = "the response has not finished loading"
	case d.State == "failed":
		resp.Absent = "the request failed (" + d.Error + "): there is no response body"
	case redirect:
		resp.Absent = fmt.Sprintf("a redirect (%d) has no body; the request to its target is the next entry", d.Status)
	default:
		res, err := cdp.Call(ctx, t, network.GetResponseBody, network.GetResponseBodyParams{RequestID: id})
		if err != nil {
			resp.Absent = "the browser no longer holds this response's body (it keeps a bounded amount per tab, and none once the page that loaded it is gone); start_har captures each body as it arrives"
		} else {
			resp.Data = append([]byte{}, res.Body...)
		}
	}
	return req, resp
}

// headerValue is the value of the named header, or "".
func headerValue(hs []engine.Header, name string) string {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

// Request finds the request with this id in the logs of the session's
// tabs and reads its bodies on the tab that made it.
func (t *tabbed) Request(ctx context.Context, q engine.RequestQuery) (engine.RequestDetail, error) {
	for _, s := range t.tabs.All() {
		l := &s.obs.net
		l.mu.Lock()
		var found *reqEntry
		for e := range l.entries.Backward() {
			if e.ID == q.ID {
				found = e
				break
			}
		}
		if found == nil {
			l.mu.Unlock()
			continue
		}
		d, id, hasPost, redirect := found.detail(), found.cdpID, found.hasPost, found.redirect
		l.mu.Unlock()
		d.Request, d.Response = s.bodies(ctx, id, d, hasPost, redirect)
		if d.Timing == nil {
			d.Unavailable = map[string]string{"timing": noTiming(d)}
		}
		return d, nil
	}
	return engine.RequestDetail{}, engine.UnknownRequest(q.ID)
}

// noTiming says why a request has no timing.
func noTiming(d engine.RequestDetail) string {
	switch {
	case d.Route == "mocked":
		return "a mocked response never reached the network"
	case d.State == "failed":
		return "the request failed before a response"
	case d.State == "pending":
		return "the request has not been answered yet"
	}
	return "the browser reported no timing (a response from a cache, a data: URL, or a service worker)"
}

// StartHAR records every tab's requests, and those of the tabs opened
// while it runs (opener), into a HAR.
func (t *tabbed) StartHAR(ctx context.Context, req engine.HARRequest) error {
	if err := t.sync(ctx); err != nil {
		return err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.net.har != nil {
		select {
		case <-t.net.har.Done():
		default:
			return engine.Errorf(engine.RecordingActive, "a HAR is already recording on this session; call stop_har first")
		}
	}
	rec := har.Start(req)
	t.net.har = rec
	for _, s := range t.tabs.All() {
		s.tapHAR(rec, false)
	}
	gone := t.Gone()
	go func() {
		select {
		case <-gone:
			rec.Abort(engine.StoppedByCrash)
		case <-rec.Done():
		}
	}()
	return nil
}

// tapHAR joins this tab's log to rec (nil: to none); its current document
// becomes rec's first page of the tab. late: the tab joins a running
// recording.
func (s *session) tapHAR(rec *har.Recorder, late bool) {
	l := &s.obs.net
	var page string
	if rec != nil {
		s.st.mu.Lock()
		url := s.st.url
		s.st.mu.Unlock()
		page = rec.AddPage(url, time.Now())
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if rec == nil {
		l.har = nil
		return
	}
	l.har = &harTap{rec: rec, tab: s, page: page, late: late, first: page}
}

// StopHAR finishes the recording and writes the file.
func (t *tabbed) StopHAR(ctx context.Context) (engine.HARResult, error) {
	t.mu.Lock()
	rec := t.net.har
	t.net.har = nil
	t.mu.Unlock()
	if rec == nil {
		return engine.HARResult{}, engine.Errorf(engine.NoRecording, "no HAR is recording on this session; call start_har first")
	}
	t.backfill(ctx, rec)
	res, err := rec.Stop(ctx, "")
	for _, s := range t.tabs.All() {
		s.tapHAR(nil, false)
	}
	return res, err
}

// endHAR finishes a recording the session's Close ends.
func (t *tabbed) endHAR(ctx context.Context) {
	t.mu.Lock()
	rec := t.net.har
	t.net.har = nil
	t.mu.Unlock()
	if rec != nil {
		t.backfill(ctx, rec)
		rec.Stop(ctx, engine.StoppedBySessionEnd)
	}
}

// backfillTimeout bounds reading one tab's Performance timeline.
const backfillTimeout = 5 * time.Second

// backfill adds, for every tab that joined the recording late, what it
// loaded before (a popup's own document and what that loaded, before it
// became a tab) from the page's Performance timeline: the browser sent no
// Network events for those, as the tab was not attached yet. Such entries
// have no headers or bodies, and say so (_source "performance").
func (t *tabbed) backfill(ctx context.Context, rec *har.Recorder) {
	for _, s := range t.tabs.All() {
		l := &s.obs.net
		l.mu.Lock()
		tap := l.har
		seen := map[string]bool{}
		for e := range l.entries.Backward() {
			seen[e.URL] = true
		}
		l.mu.Unlock()
		if tap == nil || !tap.late || tap.rec != rec {
			continue
		}
		c, cancel := context.WithTimeout(ctx, backfillTimeout)
		var list []har.PerfEntry
		err := s.runAny(c, "read the page's performance timeline", func(ctx context.Context, tg *chromedp.Target) error {
			return evalJSON(ctx, tg, har.PerfScript, &list)
		})
		cancel()
		if err != nil {
			continue
		}
		rec.AddPerf(list, seen, tap.first, maxLoggedURL)
	}
}

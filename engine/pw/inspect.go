package pw

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/har"
)

// noBiDiBody says why Firefox gives no response bodies.
const noBiDiBody = "firefox (playwright) cannot give response bodies: Playwright's WebDriver BiDi backend does not implement them"

// noBiDiPost says why Firefox gives no request bodies.
const noBiDiPost = "firefox (playwright) cannot give request bodies: Playwright's WebDriver BiDi backend reports none"

// bodyTimeout bounds reading one request's headers and bodies.
const bodyTimeout = 10 * time.Second

// Request finds the request with this id in the logs of the session's
// tabs and reads its headers and bodies through Playwright's Request and
// Response. What the browser does not give (Firefox over WebDriver BiDi
// reports no timing, and no body Playwright did not keep) is named in
// Unavailable.
func (t *tabbed) Request(ctx context.Context, q engine.RequestQuery) (engine.RequestDetail, error) {
	for _, s := range t.tabs.All() {
		l := s.net
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
		base, r, cond := found.RequestEntry, found.req, found.cond
		l.mu.Unlock()
		return s.detail(ctx, base, r, cond, true), nil
	}
	return engine.RequestDetail{}, engine.UnknownRequest(q.ID)
}

// detail reads what Playwright holds of r; with bodies, its bodies too.
func (s *session) detail(ctx context.Context, base engine.RequestEntry, r playwright.Request, cond engine.AppliedConditions, bodies bool) engine.RequestDetail {
	d := engine.RequestDetail{RequestEntry: base, Unavailable: map[string]string{}}
	browser := s.e.cfg.Browser
	if hs, err := call(ctx, r.HeadersArray, nil); err == nil {
		d.RequestHeaders = nameValues(hs)
	} else {
		d.RequestHeaders = headerMap(r.Headers())
	}
	if base.Throttled || cond.Offline && base.State == "failed" {
		d.Conditions = &cond
	}
	d.Request = engine.Body{Absent: "the request sent no body"}
	if bodies {
		post, err := call(ctx, r.PostDataBuffer, nil)
		sent := headerValue(d.RequestHeaders, "content-length") != "" && headerValue(d.RequestHeaders, "content-length") != "0"
		switch {
		case err == nil && post != nil:
			d.Request = engine.Body{Data: post, MimeType: headerValue(d.RequestHeaders, "content-type")}
		case err != nil:
			d.Request.Absent = "Playwright could not read the request's body: " + err.Error()
		case sent && browser == Firefox:
			d.Request.Absent = noBiDiPost
			d.Unavailable["requestBody"] = noBiDiPost
		}
	}
	redirect := r.RedirectedTo() != nil
	resp, err := call(ctx, r.Response, nil)
	switch {
	case base.State == "failed":
		d.Response.Absent = "the request failed (" + base.Error + "): there is no response body"
	case base.State == "pending":
		d.Response.Absent = "the response has not finished loading"
	case err != nil || resp == nil:
		d.Response.Absent = "Playwright holds no response for this request"
	}
	if err == nil && resp != nil {
		d.StatusText = resp.StatusText()
		if hs, err := call(ctx, resp.HeadersArray, nil); err == nil {
			d.ResponseHeaders = nameValues(hs)
		} else {
			d.ResponseHeaders = headerMap(resp.Headers())
		}
		d.Response.MimeType = base.MimeType
		switch {
		case !bodies:
		case redirect:
			d.Response.Absent = fmt.Sprintf("a redirect (%d) has no body; the request to its target is the next entry", base.Status)
		case browser == Firefox:
			d.Response.Absent = noBiDiBody
			d.Unavailable["responseBody"] = noBiDiBody
		case base.State == "finished":
			if body, err := call(ctx, resp.Body, nil); err == nil {
				d.Response.Data = body
			} else {
				d.Response.Absent = "the browser no longer holds this response's body: " + err.Error()
			}
		}
	}
	if tm := r.Timing(); tm != nil && (tm.ResponseStart >= 0 || tm.RequestStart >= 0) {
		d.Timing = pwTiming(tm)
	} else {
		d.Unavailable["timing"] = browser + " (playwright) reported no timing for this request"
	}
	d.Unavailable["httpVersion"] = "Playwright does not report the HTTP version outside its own HAR recorder"
	return d
}

// pwTiming turns Playwright's timing (ms from StartTime, -1 where a phase
// did not happen) into HAR's phases.
func pwTiming(t *playwright.RequestTiming) *engine.RequestTiming {
	span := func(a, b float64) float64 {
		if a < 0 || b < 0 {
			return -1
		}
		return math.Round((b-a)*1000) / 1000
	}
	rt := &engine.RequestTiming{Blocked: -1, DNS: span(t.DomainLookupStart, t.DomainLookupEnd), Connect: span(t.ConnectStart, t.ConnectEnd),
		SSL: span(t.SecureConnectionStart, t.ConnectEnd), Send: 0, Wait: max(span(t.RequestStart, t.ResponseStart), 0),
		Receive: max(span(t.ResponseStart, t.ResponseEnd), 0)}
	return rt
}

func nameValues(hs []playwright.NameValue) []engine.Header {
	out := make([]engine.Header, 0, len(hs))
	for _, h := range hs {
		out = append(out, engine.Header{Name: h.Name, Value: h.Value})
	}
	return out
}

func headerMap(h map[string]string) []engine.Header {
	out := make([]engine.Header, 0, len(h))
	for k, v := range h {
		out = append(out, engine.Header{Name: k, Value: v})
	}
	return out
}

func headerValue(hs []engine.Header, name string) string {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

// harTap joins one tab's request log to the session's HAR recording: the
// log hands it every request that ends, and a goroutine reads its headers
// and bodies from the driver (the log's handler runs on Playwright's
// dispatcher, which a driver call from there would block).
type harTap struct {
	rec  *har.Recorder
	tab  *session
	page string
	// late is set for a tab that joined while the recording ran (a popup,
	// whose first request may come before Playwright tells us of the page),
	// first its first page: backfill reads what it missed.
	late  bool
	first string
}

// ended records one request that ended. The log's mu is held.
func (h *harTap) ended(e *reqEntry) {
	if !h.rec.Hold() {
		return
	}
	base, r, cond, page := e.RequestEntry, e.req, e.cond, e.page
	go func() {
		defer h.rec.Release()
		ctx, cancel := context.WithTimeout(context.Background(), bodyTimeout)
		defer cancel()
		keep, max := h.rec.Content()
		d := h.tab.detail(ctx, base, r, cond, keep)
		entry := har.NewEntry(d)
		entry.PageRef = page
		if keep {
			entry.SetBodies(d.Request, d.Response, max)
		}
		h.rec.Add(entry)
	}()
}

// tapHAR joins this tab's log to rec (nil: to none); late: the tab joins
// a running recording.
func (s *session) tapHAR(rec *har.Recorder, late bool) {
	l := s.net
	var page string
	if rec != nil {
		page = rec.AddPage(s.page.URL(), time.Now())
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if rec == nil {
		l.har = nil
		return
	}
	l.har = &harTap{rec: rec, tab: s, page: page, late: late, first: page}
}

// StartHAR records the requests of every tab of the session, and of those
// opened while it runs (newTab), into a HAR.
func (t *tabbed) StartHAR(ctx context.Context, req engine.HARRequest) error {
	sh := t.sh
	sh.harMu.Lock()
	if sh.har != nil {
		select {
		case <-sh.har.Done():
		default:
			sh.harMu.Unlock()
			return engine.Errorf(engine.RecordingActive, "a HAR is already recording on this session; call stop_har first")
		}
	}
	rec := har.Start(req)
	sh.har = rec
	sh.harMu.Unlock()
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

// StopHAR finishes the recording and writes the file.
func (t *tabbed) StopHAR(ctx context.Context) (engine.HARResult, error) {
	sh := t.sh
	sh.harMu.Lock()
	rec := sh.har
	sh.har = nil
	sh.harMu.Unlock()
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
	sh := t.sh
	sh.harMu.Lock()
	rec := sh.har
	sh.har = nil
	sh.harMu.Unlock()
	if rec != nil {
		t.backfill(ctx, rec)
		rec.Stop(ctx, engine.StoppedBySessionEnd)
	}
}

// backfillTimeout bounds reading one tab's Performance timeline.
const backfillTimeout = 5 * time.Second

// backfill adds, for every tab that joined the recording late, the
// requests its log missed (a popup's own document), from the page's
// Performance timeline, as engine/cdp does.
func (t *tabbed) backfill(ctx context.Context, rec *har.Recorder) {
	for _, s := range t.tabs.All() {
		l := s.net
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
		v, err := call(c, func() (any, error) { return s.page.Evaluate(har.PerfScript) }, nil)
		cancel()
		if err != nil {
			continue
		}
		raw, _ := json.Marshal(v)
		var list []har.PerfEntry
		if json.Unmarshal(raw, &list) != nil {
			continue
		}
		rec.AddPerf(list, seen, tap.first, maxLoggedURL)
	}
}

// harFor is the recording a new tab joins, if one runs.
func (sh *shared) harFor() *har.Recorder {
	sh.harMu.Lock()
	defer sh.harMu.Unlock()
	return sh.har
}

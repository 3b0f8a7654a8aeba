package cdp

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
)

// router holds a session's routes and answers the requests they pause.
//
// The Fetch domain is enabled, with one pattern per route, only while routes
// exist, so that no other request waits on us. A paused request is answered
// by a worker goroutine of the session, never by the caller's goroutine: a
// navigate that runs on the session can wait for a request only the worker
// releases. The worker decides with the routes as they are when it takes the
// request: one that no route matches any more (removed meanwhile) is
// continued, so removing a route never strands a request.
//
// A session under a domain policy with host rules already pauses every
// request for the policy's guard (policy.go). Fetch has one set of patterns
// per page and each paused request must be answered exactly once, so the
// guard then answers all of them and hands the ones the policy allows to
// handle; the router leaves Fetch alone (enabled for every URL).
type router struct {
	log *netLog

	mu      sync.Mutex
	routes  []engine.Route // oldest first; the newest match wins
	queue   []*fetch.EventRequestPaused
	wake    chan struct{} // has room for one pending wake-up
	started bool
	done    chan struct{} // closed when the worker has stopped
	// viaGuard is set when the policy's guard answers paused requests.
	viaGuard bool
}

func (r *router) init(l *netLog) {
	r.log = l
	r.wake = make(chan struct{}, 1)
	r.done = make(chan struct{})
}

// paused queues a paused request for the worker. It runs in the tab
// listener, so it must not block.
func (r *router) paused(ev *fetch.EventRequestPaused) {
	r.mu.Lock()
	if r.viaGuard {
		r.mu.Unlock()
		return
	}
	r.queue = append(r.queue, ev)
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// startWorker starts the worker once; it runs until the tab's context ends.
func (r *router) startWorker(tab context.Context, t cdp.Session) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started {
		return
	}
	r.started = true
	go r.work(tab, t)
}

func (r *router) work(tab context.Context, t cdp.Session) {
	defer close(r.done)
	for {
		select {
		case <-tab.Done():
			// The tab is closing or gone, and its paused requests with it.
			return
		case <-r.wake:
		}
		for {
			r.mu.Lock()
			if len(r.queue) == 0 {
				r.mu.Unlock()
				break
			}
			ev := r.queue[0]
			r.queue = r.queue[1:]
			r.mu.Unlock()
			r.handle(tab, t, ev)
		}
	}
}

// setViaGuard makes the policy's guard the one that answers paused
// requests; it is called before the session makes any request.
func (r *router) setViaGuard() {
	r.mu.Lock()
	r.viaGuard = true
	r.mu.Unlock()
}

// handle answers one paused request with the routes as they are now.
func (r *router) handle(tab context.Context, t cdp.Session, ev *fetch.EventRequestPaused) {
	r.mu.Lock()
	route, ok := r.match(ev)
	r.mu.Unlock()
	r.answer(tab, t, ev, route, ok)
}

// match finds the newest route for a request. Caller holds r.mu.
func (r *router) match(ev *fetch.EventRequestPaused) (engine.Route, bool) {
	typ := routeType(strings.ToLower(string(ev.ResourceType)))
	for i := len(r.routes) - 1; i >= 0; i-- {
		rt := r.routes[i]
		if (rt.ResourceType == "" || routeType(rt.ResourceType) == typ) && (rt.URLPattern == "" || engine.MatchGlob(rt.URLPattern, ev.Request.URL)) {
			return rt, true
		}
	}
	return engine.Route{}, false
}

// routeType folds fetch into xhr: Chromium's interception reports both
// XHR and fetch() requests as XHR, so routes cannot tell them apart.
func routeType(t string) string {
	if t == "fetch" {
		return "xhr"
	}
	return t
}

// answerTimeout bounds one answer to a paused request.
const answerTimeout = 10 * time.Second

// answer blocks, fulfils or continues one paused request. If a fulfil or
// block is refused, the request is failed instead, so that it never hangs.
func (r *router) answer(tab context.Context, t cdp.Session, ev *fetch.EventRequestPaused, route engine.Route, ok bool) {
	ctx, cancel := context.WithTimeout(tab, answerTimeout)
	defer cancel()
	var err error
	switch {
	case !ok:
		_, err = cdp.Call(ctx, t, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
	case route.Action == engine.RouteBlock:
		r.log.markRoute(ev.NetworkID, "blocked")
		_, err = cdp.Call(ctx, t, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
	default:
		r.log.markRoute(ev.NetworkID, "mocked")
		_, err = cdp.Call(ctx, t, fetch.FulfillRequest, mockResponse(ev.RequestID, route))
		if err != nil && !gone(err) {
			_, err = cdp.Call(ctx, t, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonFailed})
		}
	}
	// An error here means the page cancelled the request, the tab closed,
	// or Fetch was disabled meanwhile, which releases paused requests:
	// in each case nothing waits for us.
	_ = err
}

// gone reports errors after which there is no request left to answer.
func gone(err error) bool {
	return errors.Is(err, chromedp.ErrTargetDetached) || errors.Is(err, context.Canceled) || errors.Is(err, errChildGone) ||
		strings.Contains(err.Error(), "Invalid InterceptionId") || strings.Contains(err.Error(), "Fetch domain is not enabled")
}

func mockResponse(id fetch.RequestID, route engine.Route) fetch.FulfillRequestParams {
	p := fetch.FulfillRequestParams{RequestID: id, ResponseCode: int64(route.Status), Body: []byte(route.Body)}
	if p.ResponseCode == 0 {
		p.ResponseCode = 200
	}
	hasType := false
	for k, v := range route.Headers {
		hasType = hasType || strings.EqualFold(k, "content-type")
		p.ResponseHeaders = append(p.ResponseHeaders, &fetch.HeaderEntry{Name: k, Value: v})
	}
	if !hasType {
		ct := "text/plain; charset=utf-8"
		if b := strings.TrimSpace(route.Body); b != "" && json.Valid([]byte(b)) {
			ct = "application/json"
		}
		p.ResponseHeaders = append(p.ResponseHeaders, &fetch.HeaderEntry{Name: "Content-Type", Value: ct})
	}
	return p
}

// patterns are the Fetch patterns for the routes: Chromium pauses only
// requests one of them matches. Chromium's patterns also know ?, and
// backslash escapes, so both are escaped to keep our glob's meaning.
func (r *router) patterns() []*fetch.RequestPattern {
	var ps []*fetch.RequestPattern
	seen := map[fetch.RequestPattern]bool{}
	for _, rt := range r.routes {
		p := fetch.RequestPattern{URLPattern: "*", RequestStage: fetch.RequestStageRequest}
		if rt.URLPattern != "" {
			p.URLPattern = strings.NewReplacer(`\`, `\\`, `?`, `\?`).Replace(rt.URLPattern)
		}
		if rt.ResourceType != "" {
			p.ResourceType = cdpResourceType[routeType(rt.ResourceType)]
		}
		if !seen[p] {
			seen[p] = true
			ps = append(ps, &p)
		}
	}
	return ps
}

// cdpResourceType maps our lower-case names to the protocol's.
var cdpResourceType = map[string]network.ResourceType{
	"document": network.ResourceTypeDocument, "stylesheet": network.ResourceTypeStylesheet,
	"image": network.ResourceTypeImage, "media": network.ResourceTypeMedia, "font": network.ResourceTypeFont,
	"script": network.ResourceTypeScript, "texttrack": network.ResourceTypeTextTrack, "xhr": network.ResourceTypeXHR,
	"fetch": network.ResourceTypeFetch, "prefetch": network.ResourceTypePrefetch, "eventsource": network.ResourceTypeEventSource,
	"websocket": network.ResourceTypeWebSocket, "manifest": network.ResourceTypeManifest, "ping": network.ResourceTypePing,
	"preflight": network.ResourceTypePreflight, "other": network.ResourceTypeOther,
}

// AddRoute adds a route and updates the Fetch patterns.
func (s *session) AddRoute(ctx context.Context, rt engine.Route) (int, error) {
	r := &s.obs.routes
	var n int
	err := s.runAny(ctx, "add a route", func(ctx context.Context, t *chromedp.Target) error {
		r.mu.Lock()
		r.routes = append(r.routes, rt)
		n = len(r.routes)
		ps, viaGuard := r.patterns(), r.viaGuard
		r.mu.Unlock()
		if viaGuard {
			return nil
		}
		r.startWorker(s.tab, t)
		_, err := cdp.Call(ctx, t, fetch.Enable, fetch.EnableParams{Patterns: ps})
		if err != nil {
			r.mu.Lock()
			r.routes = r.routes[:len(r.routes)-1]
			n = len(r.routes)
			r.mu.Unlock()
		}
		return err
	})
	return n, err
}

// RemoveRoutes removes routes and narrows, or ends, the interception.
// The routes go first, then the patterns: a request paused in between is
// continued by the worker because nothing matches it any more. With no
// route left, Fetch is disabled; Chromium releases what is still paused.
func (s *session) RemoveRoutes(ctx context.Context, pattern string) (removed, remaining int, err error) {
	r := &s.obs.routes
	err = s.runAny(ctx, "remove routes", func(ctx context.Context, t *chromedp.Target) error {
		r.mu.Lock()
		kept := r.routes[:0:0]
		for _, rt := range r.routes {
			if pattern != "" && rt.URLPattern != pattern {
				kept = append(kept, rt)
			}
		}
		removed, remaining = len(r.routes)-len(kept), len(kept)
		r.routes = kept
		ps, viaGuard := r.patterns(), r.viaGuard
		r.mu.Unlock()
		if removed == 0 || viaGuard {
			return nil
		}
		if remaining > 0 {
			_, err := cdp.Call(ctx, t, fetch.Enable, fetch.EnableParams{Patterns: ps})
			return err
		}
		_, err := cdp.Call(ctx, t, fetch.Disable, cdp.Empty{})
		return err
	})
	return removed, remaining, err
}

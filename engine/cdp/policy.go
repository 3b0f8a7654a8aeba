package cdp

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit"
)

// guard enforces the engine.Policy on one session's page.
//
// With host rules it enables the Fetch domain on the page for every URL at
// the request stage: Chromium pauses each request (main-frame navigations and
// every redirect hop, subresources, cross-site iframe documents, fetches)
// until we continue or fail it, so a refused URL never leaves the browser.
// Targets inside the page (cross-site iframes, workers) get the same
// interception before they run (attached.go). Popups are separate pages;
// see popups.go. Without host rules nothing is intercepted and the guard
// only answers Navigate's file: check.
type guard struct {
	pol *engine.Policy
	rec kit.BlockedRecorder

	tab  context.Context // the page's chromedp context
	page cdp.Session     // the page's session (its *chromedp.Target)
	kids children        // targets the page auto-attached

	mu    sync.Mutex
	queue []paused
	wake  chan struct{}
	// nested is set once the page auto-attaches its targets the way the
	// guard can talk to (attached.go).
	nested atomic.Bool
	// routes answers the requests the policy allows (block_resource,
	// mock_response); see router.
	routes *router
}

// enforce installs the policy on a new session. It runs before the session
// is handed out, so the page has made no request yet.
func (s *session) enforce(ctx context.Context, pol *engine.Policy) error {
	g := &guard{pol: pol, wake: make(chan struct{}, 1)}
	s.guard = g
	if !pol.HasHostRules() {
		return nil
	}
	g.routes = &s.obs.routes
	g.routes.setViaGuard()
	g.tab, g.page = s.tab, chromedp.FromContext(s.tab).Target
	gate, err := s.b.policyGate(ctx, pol)
	if err != nil {
		return err
	}
	gate.watch(s.id, g, s.tab)
	if err := chromedp.Listen(s.tab, g.onEvent(s)); err != nil {
		return s.classify(err, "listen for paused requests")
	}
	// The handler runs until the tab's context ends, which is also when the
	// page goes away, so it never stops while Fetch still pauses requests of
	// a live page. Stopping it earlier would need fetch.Disable first.
	go g.serve(s.tab)
	return s.run(ctx, "enable the domain policy", func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, fetch.Enable, fetch.EnableParams{
			Patterns: []*fetch.RequestPattern{{URLPattern: "*", RequestStage: fetch.RequestStageRequest}},
		})
		if err != nil {
			return err
		}
		// chromedp auto-attaches flat, which we cannot use (attached.go);
		// targets attached before the switch are not ours.
		if _, err := cdp.Call(ctx, t, target.SetAutoAttach, target.SetAutoAttachParams{AutoAttach: false, Flatten: new(true)}); err != nil {
			return err
		}
		g.nested.Store(true)
		_, err = cdp.Call(ctx, t, target.SetAutoAttach, target.SetAutoAttachParams{AutoAttach: true, WaitForDebuggerOnStart: true, Flatten: new(false)})
		return err
	})
}

// paused is a paused request and the session that must answer it: the
// page's, or an attached target's.
type paused struct {
	ev *fetch.EventRequestPaused
	on cdp.Session
}

// enqueue queues a paused request for serve. It never blocks.
func (g *guard) enqueue(on cdp.Session, ev *fetch.EventRequestPaused) {
	g.mu.Lock()
	g.queue = append(g.queue, paused{ev: ev, on: on})
	g.mu.Unlock()
	select {
	case g.wake <- struct{}{}:
	default:
	}
}

// onEvent runs on the tab's reader goroutine: it only queues and wakes.
func (g *guard) onEvent(s *session) func(ev any) {
	return func(ev any) {
		switch ev := ev.(type) {
		case *fetch.EventRequestPaused:
			g.enqueue(g.page, ev)
		case *target.EventAttachedToTarget:
			if g.nested.Load() {
				g.attached(nil, ev)
			}
		case *target.EventReceivedMessageFromTarget:
			if c := g.kids.get(ev.SessionID); c != nil {
				c.receive(ev.Message)
			}
		case *target.EventDetachedFromTarget:
			g.kids.remove(ev.SessionID)
		}
	}
}

// serve answers paused requests in order until ctx ends.
func (g *guard) serve(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-g.wake:
		}
		for {
			g.mu.Lock()
			if len(g.queue) == 0 {
				g.mu.Unlock()
				break
			}
			p := g.queue[0]
			g.queue = g.queue[1:]
			g.mu.Unlock()
			g.answer(ctx, p.on, p.ev)
		}
	}
}

func (g *guard) answer(ctx context.Context, t cdp.Session, ev *fetch.EventRequestPaused) {
	var err error
	if ok, reason := g.pol.Check(ev.Request.URL + ev.Request.URLFragment); !ok {
		g.refused(ev, reason)
		_, err = cdp.Call(ctx, t, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
	} else {
		g.routes.handle(ctx, t, ev)
		return
	}
	// A request can go away while paused (the page navigated or closed);
	// Chromium then answers "Invalid InterceptionId", which is harmless.
	_ = err
}

// refused records a request the policy refused.
func (g *guard) refused(ev *fetch.EventRequestPaused, reason string) {
	g.rec.Add(engine.BlockedRequest{URL: ev.Request.URL, ResourceType: string(ev.ResourceType), Reason: reason, Time: time.Now()})
	g.routes.log.markRoute(ev.NetworkID, "policy")
}

// checkNavigation refuses a navigation the policy forbids before it starts,
// with the rule that refused it.
func (s *session) checkNavigation(rawURL string) error {
	if s.guard == nil {
		return nil
	}
	if ok, reason := s.guard.pol.Check(rawURL); !ok {
		s.guard.rec.Add(engine.BlockedRequest{URL: rawURL, ResourceType: string(network.ResourceTypeDocument), Reason: reason, Time: time.Now()})
		return engine.Refused(rawURL, reason)
	}
	return nil
}

// blockedNavigation explains a navigation that failed because the guard
// refused its request or one of its redirects; it returns nil for other
// failures.
func (s *session) blockedNavigation(rawURL, netErr string) error {
	if s.guard == nil || !s.guard.pol.HasHostRules() || netErr != "net::ERR_BLOCKED_BY_CLIENT" {
		return nil
	}
	list := s.guard.rec.List()
	for i := len(list) - 1; i >= 0; i-- {
		if list[i].ResourceType == string(network.ResourceTypeDocument) {
			return engine.Refused(list[i].URL, list[i].Reason).With("requestedUrl", rawURL)
		}
	}
	return engine.Refused(rawURL, "refused by the security policy")
}

// BlockedRequests returns what the policy refused in this session.
func (s *session) BlockedRequests() []engine.BlockedRequest {
	if s.guard == nil {
		return nil
	}
	return s.guard.rec.List()
}

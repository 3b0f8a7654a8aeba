package cdp

import (
	"context"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Popups. A page the site opens (window.open, target=_blank) is a new
// target of the session's browser context, which the opener's Fetch does
// not see, and it becomes a guarded tab only when the session next lists
// its tabs. Chromium would let us catch it paused only through a flat
// browser-level auto-attach, whose sessions chromedp cannot talk to, and a
// popup whose first navigation is held answers no renderer command, so it
// cannot be attached before it loads either.
//
// So under a policy with host rules the browser's own Fetch domain pauses
// every request of every page as well, and the gate checks each against the
// policy: a popup is held to it from its first request, before and after it
// becomes a tab. The policy is the server's, the same for every session, so
// the gate needs no session to decide; it needs one only to record what it
// refused. Chromium asks the page's interception first, so a guarded page's
// requests reach the gate only once its guard has allowed them.

// gate is the browser-wide part of the policy. It is made once per
// browser, on the first session under a policy with host rules.
type gate struct {
	b   *browserProc
	pol *engine.Policy

	mu       sync.Mutex
	pages    map[target.ID]*guard            // guarded tabs
	sessions map[cdp.BrowserContextID]*guard // first tab of each session
}

// policyGate returns the browser's gate, enabling it on first use.
func (b *browserProc) policyGate(ctx context.Context, pol *engine.Policy) (*gate, error) {
	b.gateMu.Lock()
	defer b.gateMu.Unlock()
	if b.gate != nil {
		return b.gate, nil
	}
	g := &gate{b: b, pol: pol, pages: map[target.ID]*guard{}, sessions: map[cdp.BrowserContextID]*guard{}}
	// The listener lives as long as the browser, unless Fetch fails to
	// start: then it goes, and the next session tries again.
	listen, unlisten := context.WithCancel(b.ctx)
	_ = context.AfterFunc(b.ctx, unlisten)
	if err := chromedp.ListenBrowser(listen, func(ev any) {
		if ev, ok := ev.(*fetch.EventRequestPaused); ok {
			go g.decide(ev)
		}
	}); err != nil {
		unlisten()
		return nil, engine.Wrap(engine.BrowserError, err, "could not watch the browser's requests: "+err.Error())
	}
	c, cancel := context.WithTimeout(b.ctx, answerTimeout)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	_, err := chromedp.CallBrowser(c, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{
		{URLPattern: "*", RequestStage: fetch.RequestStageRequest},
	}})
	if err != nil {
		unlisten()
		return nil, engine.Wrap(engine.BrowserError, err, "could not enable the domain policy for popups: "+err.Error())
	}
	b.gate = g
	return g, nil
}

// watch registers a guarded tab until its context ends.
func (g *gate) watch(id target.ID, gd *guard, tab context.Context) {
	g.mu.Lock()
	g.pages[id] = gd
	g.mu.Unlock()
	context.AfterFunc(tab, func() {
		g.mu.Lock()
		delete(g.pages, id)
		g.mu.Unlock()
	})
}

// register names the guard that records the refused popups of a browser
// context whose opener is not known.
func (g *gate) register(bc cdp.BrowserContextID, gd *guard) func() {
	g.mu.Lock()
	g.sessions[bc] = gd
	g.mu.Unlock()
	return func() {
		g.mu.Lock()
		if g.sessions[bc] == gd {
			delete(g.sessions, bc)
		}
		g.mu.Unlock()
	}
}

// decide answers one paused request. It runs on its own goroutine and
// answers every request, so that none hangs. In a browser we attached to,
// the pages of no session are the user's own, which the policy leaves
// alone.
func (g *gate) decide(ev *fetch.EventRequestPaused) {
	ctx, cancel := context.WithTimeout(g.b.ctx, answerTimeout)
	defer cancel()
	url := ev.Request.URL + ev.Request.URLFragment
	ok, reason := g.pol.Check(url)
	var gd *guard
	var popup bool
	if !ok {
		gd, popup = g.owner(ctx, ev)
	}
	if ok || gd == nil && g.b.attached {
		chromedp.CallBrowser(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
		return
	}
	chromedp.CallBrowser(ctx, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
	switch {
	case gd == nil:
	case !popup:
		gd.refused(ev, reason)
	default:
		typ := string(ev.ResourceType)
		if ev.ResourceType == network.ResourceTypeDocument {
			typ = "Popup"
			chromedp.CallBrowser(ctx, target.CloseTarget, target.CloseTargetParams{TargetID: target.ID(ev.FrameID)})
		}
		gd.rec.Add(engine.BlockedRequest{URL: url, ResourceType: typ, Reason: reason, Time: time.Now()})
	}
}

// owner finds the session a refused request belongs to: the guard of its
// tab, or (popup true) of the session whose page opened it or whose browser
// context it is in; nil when it is no session's. A main frame's id is its
// page's target id. A guarded tab's other frames are refused by its guard,
// which sees their requests first; a page no guard watches yet is a popup,
// which is closed, as it can show nothing allowed.
func (g *gate) owner(ctx context.Context, ev *fetch.EventRequestPaused) (gd *guard, popup bool) {
	id := target.ID(ev.FrameID)
	g.mu.Lock()
	gd = g.pages[id]
	g.mu.Unlock()
	if gd != nil {
		return gd, false
	}
	res, err := chromedp.CallBrowser(ctx, target.GetTargetInfo, target.GetTargetInfoParams{TargetID: id})
	if err != nil || res.TargetInfo.Type != "page" {
		return nil, false
	}
	info := res.TargetInfo
	g.mu.Lock()
	defer g.mu.Unlock()
	gd = g.pages[info.OpenerID]
	if gd == nil {
		gd = g.sessions[info.BrowserContextID]
	}
	return gd, gd != nil
}

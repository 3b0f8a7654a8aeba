package cdp

import (
	"context"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"
)

// Letting go of a browser we attached to (Config.Endpoint). Chromium drops
// a client's Fetch interception when that client detaches or its
// connection closes, and continues what it paused. But a proxy in front of
// the browser may not pass the end of our connection on: Selenium Grid's
// se:cdp (4.20) closes its own connection to the browser only when ours
// sends a WebSocket close frame, and keeps it open, with every session and
// Fetch interception of ours, when our TCP connection just ends. The
// browser then pauses every request of the page (the domain policy's,
// routes', and the browser-wide popup gate's interception) for a client
// that is gone, and the server that adopts the session next waits for its
// page until its deadline.
//
// Cancelling the browser's context only starts chromedp's detach and the
// close of its connection, on goroutines of their own: a server that exits
// right after its engine closed (a replica's rolling restart) can leave
// before any of it reaches the wire, and then the proxy sees only the TCP
// connection end. So letGo does it in order, and waits for each step: it
// disables the browser-wide and every page's Fetch interception (which
// continues the requests paused there), detaches from every page, then
// closes the connection with its close frame and waits until it is closed.
// Each step is bounded; a browser or proxy that does not answer only makes
// it give up sooner.
//
// A server that is killed can do none of this. The server that adopts its
// session then meets the interception the proxy kept for it, which no other
// client can disable (see the Grid package's doc).

// letGoTimeout bounds each step of letGo.
const letGoTimeout = 5 * time.Second

// attachedTab records a page attached over this connection until its
// context ends.
func (b *browserProc) attachedTab(s *session) {
	b.tabsMu.Lock()
	if b.tabs == nil {
		b.tabs = map[*session]struct{}{}
	}
	b.tabs[s] = struct{}{}
	b.tabsMu.Unlock()
	context.AfterFunc(s.tab, func() {
		b.tabsMu.Lock()
		delete(b.tabs, s)
		b.tabsMu.Unlock()
	})
}

// letGo disables our interception in the browser, detaches from its pages
// and closes the connection, waiting for each (see above). A page of a
// Shared browser stays open; one of a browser that is not Shared closes,
// as its cancellation always did.
func (b *browserProc) letGo() {
	select {
	case <-b.Ready():
	default:
		return // never attached
	}
	if b.Err() != nil || b.Lost() {
		return
	}
	ctx, cancel := context.WithTimeout(b.ctx, letGoTimeout)
	defer cancel()
	b.gateMu.Lock()
	gated := b.gate != nil
	b.gateMu.Unlock()
	if gated {
		if _, err := chromedp.CallBrowser(ctx, fetch.Disable, cdp.Empty{}); err != nil {
			b.log.Debug("disabling the popup gate's interception", "err", err)
		}
	}
	b.tabsMu.Lock()
	tabs := make([]*session, 0, len(b.tabs))
	for s := range b.tabs {
		tabs = append(tabs, s)
	}
	b.tabsMu.Unlock()
	var wg sync.WaitGroup
	for _, s := range tabs {
		wg.Go(func() {
			// Disabling Fetch where nothing enabled it is harmless, and
			// cheaper than knowing whether the policy, a route or a
			// storage load enabled it.
			if t := chromedp.FromContext(s.tab).Target; t != nil {
				if _, err := cdp.Call(ctx, t, fetch.Disable, cdp.Empty{}); err != nil {
					b.log.Debug("disabling a page's interception", "target", s.id, "err", err)
				}
			}
			// chromedp's cancel detaches from the page (Shared: it leaves
			// it open) and waits for that, within its own timeout.
			s.cancel()
		})
	}
	wg.Wait()
	c := chromedp.FromContext(b.ctx)
	if c == nil || c.Browser == nil {
		return
	}
	// Cancelling closes the connection, with its close frame, on
	// chromedp's goroutine; its reader ends once the connection is closed.
	b.cancel()
	t := time.NewTimer(letGoTimeout)
	defer t.Stop()
	select {
	case <-c.Browser.LostConnection:
	case <-t.C:
		b.log.Warn("the connection to the browser did not close in time")
	}
}

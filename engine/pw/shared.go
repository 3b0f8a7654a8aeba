package pw

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine/har"
)

// shared is what the tabs of one session have in common beyond the browser
// context: the refs their snapshots give out, the emulated network, and
// one DevTools session per page on Chromium, and the routes.
type shared struct {
	refs   *refState
	cond   *netConds
	routes *router
	report *report   // new pages and downloads, see report.go
	emu    *emuState // the session's emulation (emulation.go)
	// requests numbers the session's requests for get_request (r1, ...).
	requests atomic.Int64
	// har is the HAR recording, if one runs (inspect.go).
	harMu sync.Mutex
	har   *har.Recorder

	dtMu     sync.Mutex
	devtools map[playwright.Page]*devtools
}

func newShared() *shared {
	return &shared{refs: newRefState(), cond: &netConds{}, routes: newRouter(), emu: &emuState{}, devtools: map[playwright.Page]*devtools{}}
}

// devtoolsFor returns the DevTools session of page (Chromium only),
// opening it on first use. It lives as long as the page: the network
// emulation sent through it lasts only while it is attached, and so does
// the accessibility tree it keeps alive (see keepAX). Callers that race for
// the first one wait for it: a second session, detached again, would reset
// the page's navigator.onLine override when it went.
func (sh *shared) devtoolsFor(ctx context.Context, bctx playwright.BrowserContext, page playwright.Page) (playwright.CDPSession, error) {
	sh.dtMu.Lock()
	d := sh.devtools[page]
	first := d == nil
	if first {
		d = &devtools{ready: make(chan struct{})}
		sh.devtools[page] = d
	}
	sh.dtMu.Unlock()
	if first {
		// The lock is not held across the driver call: playwright-go runs
		// the close handler below on the goroutine that delivers its answer.
		d.cs, d.err = bctx.NewCDPSession(page)
		close(d.ready)
		if d.err != nil {
			sh.dtMu.Lock()
			delete(sh.devtools, page)
			sh.dtMu.Unlock()
			return nil, d.err
		}
		page.OnClose(func(p playwright.Page) {
			sh.dtMu.Lock()
			delete(sh.devtools, p)
			sh.dtMu.Unlock()
		})
		return d.cs, nil
	}
	select {
	case <-d.ready:
		return d.cs, d.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// devtools is a page's DevTools session once ready is closed.
type devtools struct {
	ready chan struct{}
	cs    playwright.CDPSession
	err   error
}

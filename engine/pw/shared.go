package pw

import (
	"context"
	"sync"

	"github.com/playwright-community/playwright-go"
)

// shared is what the tabs of one session have in common beyond the browser
// context: the refs their snapshots give out, the emulated network, and
// one DevTools session per page on Chromium.
type shared struct {
	refs *refState
	cond *netConds

	dtMu     sync.Mutex
	devtools map[playwright.Page]playwright.CDPSession
}

func newShared() *shared {
	return &shared{refs: newRefState(), cond: &netConds{}, devtools: map[playwright.Page]playwright.CDPSession{}}
}

// devtoolsFor returns the DevTools session of page (Chromium only),
// opening it on first use. It lives as long as the page: the network
// emulation sent through it lasts only while it is attached, and so does
// the accessibility tree it keeps alive (see keepAX).
func (sh *shared) devtoolsFor(ctx context.Context, bctx playwright.BrowserContext, page playwright.Page) (playwright.CDPSession, error) {
	// The lock is not held across the driver call: playwright-go runs the
	// close handler below on the goroutine that delivers the call's answer.
	sh.dtMu.Lock()
	cs := sh.devtools[page]
	sh.dtMu.Unlock()
	if cs != nil {
		return cs, nil
	}
	cs, err := call(ctx, func() (playwright.CDPSession, error) { return bctx.NewCDPSession(page) },
		func(cs playwright.CDPSession) { _ = cs.Detach() })
	if err != nil {
		return nil, err
	}
	sh.dtMu.Lock()
	if old := sh.devtools[page]; old != nil {
		sh.dtMu.Unlock()
		go func() { _ = cs.Detach() }()
		return old, nil
	}
	sh.devtools[page] = cs
	sh.dtMu.Unlock()
	page.OnClose(func(p playwright.Page) {
		sh.dtMu.Lock()
		delete(sh.devtools, p)
		sh.dtMu.Unlock()
	})
	return cs, nil
}

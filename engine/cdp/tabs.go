package cdp

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit"
	"github.com/seed4af8c199/browsermcp/engine/kit/video"
)

// tabbed is a session with several pages in one browser context. It embeds
// the current tab, so every page method acts on it; Tabs switches it. The
// tab list and the current tab are kept by tabs (kit.TabSet).
type tabbed struct {
	*session // the current tab, kept by tabs

	tabs  kit.TabSet[*session]
	first *session // owns the browser context: cancelling it disposes it
	// firstOpen is false once the first tab's page was closed; its context
	// stays until the session closes, because it holds the browser context.
	firstOpen bool
	open      func(ctx context.Context, how chromedp.ContextOption) (*session, error)
	// unregister stops the policy's gate from recording this session's
	// refused popups (popups.go).
	unregister func()
	// mu guards net: the session's network settings, which every tab
	// gets (tabnet.go).
	mu  sync.Mutex
	net tabNet
	emu tabEmu // the session's emulation, which every tab gets too (emulation.go)
	// dl are the session's downloads (downloads.go).
	dl *downloads
	// release takes the session off its browser in the engine's pool
	// (pool.go), once.
	release func()
	// trace is the trace running on one of the tabs, if any (tracing.go).
	trace kit.TraceSlot[*session]
	// video is the session's video recording (video.go).
	video video.Slot
}

func newTabbed(first *session, open func(context.Context, chromedp.ContextOption) (*session, error)) *tabbed {
	t := &tabbed{first: first, firstOpen: true}
	t.tabs.Init(&t.session, first)
	t.open = t.opener(open)
	return t
}

// Gone is closed when the session's browser went away (engine.Goner).
func (t *tabbed) Gone() <-chan struct{} { return t.first.b.Gone() }

// EndedElsewhere answers false (engine.Ender): only this server holds a
// session of this engine, so a session whose browser is gone was not ended
// on purpose. (engine/grid, whose sessions wrap these, answers for itself.)
func (t *tabbed) EndedElsewhere(context.Context) bool { return false }

// Info describes the current tab; it may run while a call switches tabs.
func (t *tabbed) Info(ctx context.Context) engine.PageInfo {
	p := t.tabs.Current().Info(ctx)
	p.Pages = t.tabs.Len()
	return p
}

// Close closes every tab and the browser context.
func (t *tabbed) Close(ctx context.Context) error {
	// A running trace is finished first, while its tab lives.
	t.trace.Finish(engine.StoppedBySessionEnd, nil)
	// The video is finished first, while its tab still paints.
	t.video.End(ctx)
	if t.unregister != nil {
		t.unregister()
	}
	t.endHAR(ctx) // while the tabs still hold the bodies being read
	for _, s := range t.tabs.All() {
		if s != t.first {
			s.Close(ctx)
		}
	}
	err := t.first.Close(ctx)
	if t.dl != nil {
		t.dl.close(t.b)
	}
	if t.release != nil {
		t.release()
	}
	return err
}

// Tabs lists, opens, selects or closes tabs.
func (t *tabbed) Tabs(ctx context.Context, req engine.TabsRequest) (engine.TabsResult, error) {
	if err := t.sync(ctx); err != nil {
		return engine.TabsResult{}, err
	}
	return t.tabs.Do(ctx, req, kit.TabActions[*session]{
		Open:  func(ctx context.Context) (*session, error) { return t.open(ctx, func(*chromedp.Context) {}) },
		Close: t.closePage,
	})
}

// Navigate loads a URL in the current tab. A tab whose renderer crashed is
// first replaced by a new page in the session's browser context, so that a
// crash costs the page, not the session.
func (t *tabbed) Navigate(ctx context.Context, req engine.NavigateRequest) (engine.NavigateResult, error) {
	old := t.tabs.Current()
	if !old.crashed() {
		return old.Navigate(ctx, req)
	}
	s, err := t.open(ctx, func(*chromedp.Context) {})
	if err != nil {
		return engine.NavigateResult{}, err
	}
	t.tabs.Replace(old, s)
	t.closePage(ctx, old)
	res, err := s.Navigate(ctx, req)
	if err != nil {
		return res, err
	}
	res.Recovered = engine.RecoveredNote
	return res, nil
}

// closePage closes one tab's page.
func (t *tabbed) closePage(ctx context.Context, s *session) error {
	t.trace.Finish(engine.StoppedByTabClosed, s)
	if s == t.first {
		// Close only the page: cancelling the first tab's context would
		// dispose of the whole browser context.
		c, cancel := t.browserCall(ctx)
		defer cancel()
		_, err := chromedp.CallBrowser(c, target.CloseTarget, target.CloseTargetParams{TargetID: s.id})
		t.firstOpen = false
		return err
	}
	return s.Close(ctx)
}

// gone reports a page that no longer exists in the browser.
func (t *tabbed) gone(ctx context.Context, id target.ID) bool {
	c, cancel := t.browserCall(ctx)
	defer cancel()
	res, err := chromedp.CallBrowser(c, target.GetTargets, target.GetTargetsParams{})
	if err != nil || t.b.Lost() {
		return false
	}
	return !slices.ContainsFunc(res.TargetInfos, func(info *target.Info) bool { return info.TargetID == id })
}

// sync adopts the pages the site opened in the session's browser context
// (popups) and drops the ones it closed. The browser lists a new page as
// soon as window.open returns, so this needs no event race.
func (t *tabbed) sync(ctx context.Context) error {
	c, cancel := t.browserCall(ctx)
	defer cancel()
	res, err := chromedp.CallBrowser(c, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return t.classify(err, "list the session's pages")
	}
	bc := t.first.targetContext()
	tabs := t.tabs.All()
	live := map[target.ID]bool{}
	var adopt []target.ID
	for _, info := range res.TargetInfos {
		if info.Type != "page" || info.BrowserContextID != bc {
			continue
		}
		live[info.TargetID] = true
		if !slices.ContainsFunc(tabs, func(s *session) bool { return s.id == info.TargetID }) {
			adopt = append(adopt, info.TargetID)
		}
	}
	for _, s := range tabs {
		if !live[s.id] {
			if s != t.first {
				s.Close(ctx)
			}
			t.tabs.Remove(s)
		}
	}
	for _, id := range adopt {
		s, err := t.open(ctx, chromedp.WithTargetID(id))
		if err != nil {
			if t.gone(ctx, id) {
				// The page closed while it was being adopted: the policy's
				// gate closes a popup it refused, and a site may close
				// its own. The session is fine; there is no tab to add.
				continue
			}
			return fmt.Errorf("adopting a page the site opened: %w", err)
		}
		t.tabs.Add(s, false)
	}
	if t.tabs.Len() == 0 {
		return engine.AllTabsClosed()
	}
	return nil
}

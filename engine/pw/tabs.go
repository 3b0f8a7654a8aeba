package pw

import (
	"context"
	"os"
	"slices"

	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit"
	"github.com/seed4af8c199/browsermcp/engine/kit/video"
)

// tabbed is a session with several pages in one browser context, as in
// engine/cdp. It embeds the current tab, so every page method acts on it;
// Tabs switches it. The tab list and the current tab are kept by tabs
// (kit.TabSet).
type tabbed struct {
	*session // the current tab, kept by tabs
	// This engine holds no domain rules (it refuses to start with them),
	// so it records no refused requests, and only this server holds its
	// sessions: nothing to say there beyond Watch and Gone.
	engine.NothingToReport

	tabs  kit.TabSet[*session]
	first *session // owns the browser context
	// trace is the trace running on one of the tabs, if any (tracing.go).
	trace kit.TraceSlot[*session]
	// video is the session's video recording (video.go).
	video video.Slot
}

func newTabbed(first *session) *tabbed {
	t := &tabbed{first: first}
	t.tabs.Init(&t.session, first)
	// A tab that leaves the session has no route handler to keep track of.
	r := first.sh.routes
	t.tabs.Dropped = func(s *session) {
		r.mu.Lock()
		delete(r.on, s)
		r.mu.Unlock()
	}
	return t
}

// Gone is closed when the session's browser went away (engine.Goner).
func (t *tabbed) Gone() <-chan struct{} { return t.first.b.Gone() }

// Info describes the current tab; it may run while a call switches tabs.
func (t *tabbed) Info(ctx context.Context) engine.PageInfo {
	p := t.tabs.Current().Info(ctx)
	p.Pages = t.tabs.Len()
	return p
}

// Close closes the browser context and with it every tab.
func (t *tabbed) Close(ctx context.Context) error {
	// A running trace is finished first, while its tab lives.
	t.trace.Finish(engine.StoppedBySessionEnd, nil)
	// The video is finished first, while its tab still paints.
	t.video.End(ctx)
	t.endHAR(ctx) // while the pages still hold the bodies being read
	err := t.first.Close(ctx)
	// The session's downloads go with it.
	if dir := t.sh.report.dir; dir != "" {
		os.RemoveAll(dir)
	}
	return err
}

// Tabs lists, opens, selects or closes tabs.
func (t *tabbed) Tabs(ctx context.Context, req engine.TabsRequest) (engine.TabsResult, error) {
	if err := t.sync(ctx); err != nil {
		return engine.TabsResult{}, err
	}
	return t.tabs.Do(ctx, req, kit.TabActions[*session]{
		Open: t.openTab,
		// Playwright's input goes to the page it names whether or not it
		// is in front; bringing it forward keeps focus events honest.
		Selected: func(ctx context.Context, s *session) { _ = do(ctx, s.page.BringToFront) },
		// The first tab's session owns the browser context: close only
		// its page. A trace of the tab is finished first.
		Close: func(ctx context.Context, s *session) error {
			t.trace.Finish(engine.StoppedByTabClosed, s)
			return do(ctx, func() error { return s.page.Close() })
		},
	})
}

// Navigate loads a URL in the current tab. A tab whose renderer crashed is
// first replaced by a new page in the session's browser context, as in
// engine/cdp, so that a crash costs the page, not the session.
func (t *tabbed) Navigate(ctx context.Context, req engine.NavigateRequest) (engine.NavigateResult, error) {
	old := t.tabs.Current()
	old.st.mu.Lock()
	crashed := old.st.crashed
	old.st.mu.Unlock()
	if !crashed || old.aliveBrowser() != nil {
		return old.Navigate(ctx, req)
	}
	s, err := t.openTab(ctx)
	if err != nil {
		return engine.NavigateResult{}, err
	}
	t.tabs.Replace(old, s)
	_ = do(ctx, func() error { return old.page.Close() })
	res, err := s.Navigate(ctx, req)
	if err != nil {
		return res, err
	}
	res.Recovered = engine.RecoveredNote
	return res, nil
}

// openTab opens a blank page in the session's browser context as a tab.
func (t *tabbed) openTab(ctx context.Context) (*session, error) {
	page, err := call(ctx, t.bctx.NewPage, func(p playwright.Page) { _ = p.Close() })
	if err != nil {
		return nil, t.classify(err, "open a tab")
	}
	return t.adopt(ctx, page)
}

// adopt follows a page of the session's browser context as a tab, with the
// session's emulation, and its network conditions on Chromium. On
// Firefox a page the site opened has already run its first document
// without pageErrorJS, so that document's uncaught exceptions are missed.
func (t *tabbed) adopt(ctx context.Context, page playwright.Page) (*session, error) {
	console := &consoleLog{}
	if t.e.cfg.Browser == Firefox {
		if err := do(ctx, func() error { return console.watchPageErrors(page) }); err != nil {
			return nil, t.classify(err, "follow a tab")
		}
	}
	if t.e.cfg.Browser == Chromium {
		if err := t.sh.cond.applyTo(ctx, t.sh, t.bctx, page); err != nil {
			return nil, t.classify(err, "set the network conditions of a tab")
		}
	}
	s := newTab(t.e, t.b, t.bctx, page, console, t.sh)
	if err := t.sh.routes.routeTabs(ctx, []*session{s}); err != nil {
		return nil, err
	}
	// The page has the context's options: what emulate changed since
	// follows.
	if cur, base := t.sh.emu.get(); cur != base {
		if err := s.emulate(ctx, base, cur); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// sync adopts the pages the site opened in the session's browser context
// (popups) and drops the ones that closed.
func (t *tabbed) sync(ctx context.Context) error {
	if err := t.first.aliveBrowser(); err != nil {
		return err
	}
	pages := t.bctx.Pages()
	for _, s := range t.tabs.All() {
		if s.page.IsClosed() || !slices.Contains(pages, s.page) {
			t.tabs.Remove(s)
		}
	}
	for _, p := range pages {
		if p.IsClosed() || slices.ContainsFunc(t.tabs.All(), func(s *session) bool { return s.page == p }) {
			continue
		}
		s, err := t.adopt(ctx, p)
		if err != nil {
			return err
		}
		t.tabs.Add(s, false)
	}
	if t.tabs.Len() == 0 {
		return engine.AllTabsClosed()
	}
	return nil
}

package pw

import (
	"context"
	"slices"
	"sync"

	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine"
)

// tabbed is a session with several pages in one browser context, as in
// engine/cdp. It embeds the current tab, so every page method acts on it;
// Tabs switches it. The Manager runs one call at a time on a session, so
// only Info, which runs beside calls, needs the lock.
type tabbed struct {
	*session // the current tab

	mu    sync.Mutex
	tabs  []*session
	first *session // owns the browser context
}

func newTabbed(first *session) *tabbed {
	return &tabbed{session: first, tabs: []*session{first}, first: first}
}

// Info describes the current tab; it may run while a call switches tabs.
func (t *tabbed) Info(ctx context.Context) engine.PageInfo {
	t.mu.Lock()
	cur := t.session
	t.mu.Unlock()
	return cur.Info(ctx)
}

// Close closes the browser context and with it every tab.
func (t *tabbed) Close(ctx context.Context) error {
	return t.first.Close(ctx)
}

// Tabs lists, opens, selects or closes tabs.
func (t *tabbed) Tabs(ctx context.Context, req engine.TabsRequest) (engine.TabsResult, error) {
	if err := t.sync(ctx); err != nil {
		return engine.TabsResult{}, err
	}
	switch req.Action {
	case "", "list":
	case "new":
		page, err := call(ctx, t.bctx.NewPage, func(p playwright.Page) { _ = p.Close() })
		if err != nil {
			return engine.TabsResult{}, t.classify(err, "open a tab")
		}
		s, err := t.adopt(ctx, page)
		if err != nil {
			return engine.TabsResult{}, err
		}
		t.add(s, true)
		if req.URL != "" {
			if _, err := s.Navigate(ctx, engine.NavigateRequest{URL: req.URL}.WithDefaults()); err != nil {
				return engine.TabsResult{}, err
			}
		}
	case "select":
		i, err := req.Pick(len(t.tabs), t.currentIndex())
		if err != nil {
			return engine.TabsResult{}, err
		}
		t.setCurrent(t.tabs[i])
		// Playwright's input goes to the page it names whether or not it
		// is in front; bringing it forward keeps focus events honest.
		_ = do(ctx, t.tabs[i].page.BringToFront)
	case "close":
		i, err := req.Pick(len(t.tabs), t.currentIndex())
		if err != nil {
			return engine.TabsResult{}, err
		}
		s := t.tabs[i]
		// The first tab's session owns the browser context: close only
		// its page.
		_ = do(ctx, func() error { return s.page.Close() })
		t.remove(s)
	}
	return t.list(ctx), nil
}

// adopt follows a page of the session's browser context as a tab, with the
// session's network conditions on Chromium. On
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
	return s, nil
}

// allTabs returns the session's tabs.
func (t *tabbed) allTabs() []*session {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.tabs)
}

func (t *tabbed) add(s *session, current bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.tabs = append(t.tabs, s)
	if current {
		t.session = s
	}
}

func (t *tabbed) setCurrent(s *session) {
	t.mu.Lock()
	t.session = s
	t.mu.Unlock()
}

func (t *tabbed) currentIndex() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Index(t.tabs, t.session)
}

// remove drops a tab; the current tab moves to the previous one.
func (t *tabbed) remove(s *session) {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := slices.Index(t.tabs, s)
	if i < 0 {
		return
	}
	t.tabs = slices.Delete(t.tabs, i, i+1)
	r := t.sh.routes
	r.mu.Lock()
	delete(r.on, s)
	r.mu.Unlock()
	if t.session == s && len(t.tabs) > 0 {
		t.session = t.tabs[max(0, i-1)]
	}
}

// sync adopts the pages the site opened in the session's browser context
// (popups) and drops the ones that closed.
func (t *tabbed) sync(ctx context.Context) error {
	if err := t.first.aliveBrowser(); err != nil {
		return err
	}
	pages := t.bctx.Pages()
	for _, s := range slices.Clone(t.tabs) {
		if s.page.IsClosed() || !slices.Contains(pages, s.page) {
			t.remove(s)
		}
	}
	for _, p := range pages {
		if p.IsClosed() || slices.ContainsFunc(t.tabs, func(s *session) bool { return s.page == p }) {
			continue
		}
		s, err := t.adopt(ctx, p)
		if err != nil {
			return err
		}
		t.add(s, false)
	}
	if len(t.tabs) == 0 {
		return engine.AllTabsClosed()
	}
	return nil
}

func (t *tabbed) list(ctx context.Context) engine.TabsResult {
	t.mu.Lock()
	tabs, cur := slices.Clone(t.tabs), t.session
	t.mu.Unlock()
	return engine.ListTabs(ctx, tabs, cur, (*session).Info)
}

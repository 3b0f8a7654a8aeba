package cdp

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
)

// tabbed is a session with several pages in one browser context. It embeds
// the current tab, so every page method acts on it; Tabs switches it. The
// Manager runs one call at a time on a session, so only Info, which runs
// beside calls, needs the lock.
type tabbed struct {
	*session // the current tab

	mu    sync.Mutex
	tabs  []*session
	first *session // owns the browser context: cancelling it disposes it
	// firstOpen is false once the first tab's page was closed; its context
	// stays until the session closes, because it holds the browser context.
	firstOpen bool
	open      func(ctx context.Context, how chromedp.ContextOption) (*session, error)
	// unregister stops the policy's gate from recording this session's
	// refused popups (popups.go).
	unregister func()
	// net holds the session's network settings, which every tab gets
	// (tabnet.go).
	net tabNet
}

func newTabbed(first *session, open func(context.Context, chromedp.ContextOption) (*session, error)) *tabbed {
	t := &tabbed{session: first, tabs: []*session{first}, first: first, firstOpen: true}
	t.open = t.opener(open)
	return t
}

// Info describes the current tab; it may run while a call switches tabs.
func (t *tabbed) Info(ctx context.Context) engine.PageInfo {
	t.mu.Lock()
	cur := t.session
	t.mu.Unlock()
	return cur.Info(ctx)
}

// Close closes every tab and the browser context.
func (t *tabbed) Close(ctx context.Context) error {
	if t.unregister != nil {
		t.unregister()
	}
	t.mu.Lock()
	tabs := slices.Clone(t.tabs)
	t.mu.Unlock()
	for _, s := range tabs {
		if s != t.first {
			s.Close(ctx)
		}
	}
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
		s, err := t.open(ctx, func(*chromedp.Context) {})
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
	case "close":
		i, err := req.Pick(len(t.tabs), t.currentIndex())
		if err != nil {
			return engine.TabsResult{}, err
		}
		t.closeTab(ctx, t.tabs[i])
	}
	return t.list(ctx), nil
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

// closeTab closes one page; the current tab moves to the previous one.
func (t *tabbed) closeTab(ctx context.Context, s *session) {
	if s == t.first {
		// Close only the page: cancelling the first tab's context would
		// dispose of the whole browser context.
		chromedp.CallBrowser(t.b.ctx, target.CloseTarget, target.CloseTargetParams{TargetID: s.id})
		t.firstOpen = false
	} else {
		s.Close(ctx)
	}
	t.remove(s)
}

func (t *tabbed) remove(s *session) {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := slices.Index(t.tabs, s)
	if i < 0 {
		return
	}
	t.tabs = slices.Delete(t.tabs, i, i+1)
	if t.session == s && len(t.tabs) > 0 {
		t.session = t.tabs[max(0, i-1)]
	}
}

// sync adopts the pages the site opened in the session's browser context
// (popups) and drops the ones it closed. The browser lists a new page as
// soon as window.open returns, so this needs no event race.
func (t *tabbed) sync(ctx context.Context) error {
	res, err := chromedp.CallBrowser(t.b.ctx, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return t.classify(err, "list the session's pages")
	}
	bc := t.first.contextID()
	live := map[target.ID]bool{}
	var adopt []target.ID
	for _, info := range res.TargetInfos {
		if info.Type != "page" || info.BrowserContextID != bc {
			continue
		}
		live[info.TargetID] = true
		if !slices.ContainsFunc(t.tabs, func(s *session) bool { return s.id == info.TargetID }) {
			adopt = append(adopt, info.TargetID)
		}
	}
	for _, s := range slices.Clone(t.tabs) {
		if !live[s.id] {
			if s != t.first {
				s.Close(ctx)
			}
			t.remove(s)
		}
	}
	for _, id := range adopt {
		s, err := t.open(ctx, chromedp.WithTargetID(id))
		if err != nil {
			return fmt.Errorf("adopting a page the site opened: %w", err)
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

package kit

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Tab is what TabSet needs of an engine's tab: its description, and a
// navigation for "new" with a URL.
type Tab interface {
	comparable
	Info(ctx context.Context) engine.PageInfo
	Navigate(ctx context.Context, req engine.NavigateRequest) (engine.NavigateResult, error)
}

// TabSet is the bookkeeping of a session's tabs, the same in both engines:
// the tabs in order and which one is current. The current tab is kept in
// the engine's own session, which embeds it so that every page method acts
// on it (see Init); the set writes it under its lock. The Manager runs one
// call at a time on a session, so such calls may read it without the lock;
// only Info, which runs beside calls, needs Current.
type TabSet[S Tab] struct {
	// Dropped, when set, runs under the set's lock as a tab leaves it
	// (engine/pw forgets the tab's route handler there).
	Dropped func(S)

	mu   sync.Mutex
	tabs []S
	cur  *S
}

// Init starts the set with one tab, first, made current in *cur.
func (ts *TabSet[S]) Init(cur *S, first S) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.cur, ts.tabs = cur, []S{first}
	*cur = first
}

// Current returns the current tab.
func (ts *TabSet[S]) Current() S {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return *ts.cur
}

// All returns the tabs in order.
func (ts *TabSet[S]) All() []S {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return slices.Clone(ts.tabs)
}

// Snapshot returns the tabs in order and the current one, read together.
func (ts *TabSet[S]) Snapshot() (tabs []S, cur S) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return slices.Clone(ts.tabs), *ts.cur
}

// Len is the number of tabs.
func (ts *TabSet[S]) Len() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return len(ts.tabs)
}

// Add appends a tab, and makes it current if asked.
func (ts *TabSet[S]) Add(s S, current bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.tabs = append(ts.tabs, s)
	if current {
		*ts.cur = s
	}
}

// Replace puts s in old's place (and makes it current if old was); old
// leaves the set. A tab not in the set is ignored.
func (ts *TabSet[S]) Replace(old, s S) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	i := slices.Index(ts.tabs, old)
	if i < 0 {
		return
	}
	ts.tabs[i] = s
	if ts.Dropped != nil {
		ts.Dropped(old)
	}
	if *ts.cur == old {
		*ts.cur = s
	}
}

// Remove drops a tab; when it was current, the previous one (or the new
// first) becomes current. A tab not in the set is ignored.
func (ts *TabSet[S]) Remove(s S) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	i := slices.Index(ts.tabs, s)
	if i < 0 {
		return
	}
	ts.tabs = slices.Delete(ts.tabs, i, i+1)
	if ts.Dropped != nil {
		ts.Dropped(s)
	}
	if *ts.cur == s && len(ts.tabs) > 0 {
		*ts.cur = ts.tabs[max(0, i-1)]
	}
}

func (ts *TabSet[S]) setCurrent(s S) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	*ts.cur = s
}

// pick resolves the tab a select or close acts on (TabsRequest.Pick).
func (ts *TabSet[S]) pick(req engine.TabsRequest) (S, error) {
	tabs, cur := ts.Snapshot()
	i, err := req.Pick(len(tabs), slices.Index(tabs, cur))
	if err != nil {
		var zero S
		return zero, err
	}
	return tabs[i], nil
}

// List describes the tabs in order.
func (ts *TabSet[S]) List(ctx context.Context) engine.TabsResult {
	tabs, cur := ts.Snapshot()
	out := engine.TabsResult{Tabs: make([]engine.TabInfo, len(tabs))}
	for i, s := range tabs {
		p := s.Info(ctx)
		out.Tabs[i] = engine.TabInfo{Index: i, URL: p.URL, Title: p.Title, Current: s == cur}
		if s == cur {
			out.Current = i
		}
	}
	return out
}

// TabActions are an engine's part of the tabs actions; TabSet.Do does the
// bookkeeping around them.
type TabActions[S any] struct {
	// Open opens a blank tab in the session's browser context.
	Open func(ctx context.Context) (S, error)
	// Selected, when set, runs once s became the current tab.
	Selected func(ctx context.Context, s S)
	// Close closes s's page; Do then drops s from the set.
	Close func(ctx context.Context, s S) error
}

// Do runs one tabs action (list, new, select or close) on the set, which
// the engine has brought up to date with the browser, and lists the tabs
// after it.
func (ts *TabSet[S]) Do(ctx context.Context, req engine.TabsRequest, act TabActions[S]) (engine.TabsResult, error) {
	switch req.Action {
	case "", "list":
	case "new":
		prev := ts.Current()
		s, err := act.Open(ctx)
		if err != nil {
			return engine.TabsResult{}, err
		}
		ts.Add(s, true)
		if req.URL != "" {
			// A complete request: the tab is called directly, so its
			// defaults are named here.
			nav := engine.NavigateRequest{URL: req.URL}.WithDefaults()
			if _, err := s.Navigate(ctx, nav); err != nil {
				return engine.TabsResult{}, ts.abandon(ctx, s, prev, act, err)
			}
		}
	case "select":
		s, err := ts.pick(req)
		if err != nil {
			return engine.TabsResult{}, err
		}
		ts.setCurrent(s)
		if act.Selected != nil {
			act.Selected(ctx, s)
		}
	case "close":
		s, err := ts.pick(req)
		if err != nil {
			return engine.TabsResult{}, err
		}
		// A page that would not close is gone from the set all the same:
		// if it stays in the browser, the next action finds it again.
		_ = act.Close(ctx, s)
		ts.Remove(s)
	}
	return ts.List(ctx), nil
}

// abandon undoes a "new" whose URL did not load (cause): the tab it opened
// is closed and prev is current again, so a failed open leaves the tabs as
// they were, and the error says so. If the tab would not close, it stays
// in the set and the error gives its index.
func (ts *TabSet[S]) abandon(ctx context.Context, s, prev S, act TabActions[S], cause error) error {
	// The call's own deadline may be what ended the navigation.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), engine.CloseTimeout)
	defer cancel()
	closeErr := act.Close(cctx, s)
	if closeErr == nil {
		ts.Remove(s)
	}
	// The previous tab is current again, unless the site closed it
	// meanwhile: then the tab Remove chose stays current.
	ts.mu.Lock()
	if slices.Contains(ts.tabs, prev) {
		*ts.cur = prev
	}
	ts.mu.Unlock()
	tabs, cur := ts.Snapshot()
	if act.Selected != nil {
		act.Selected(cctx, cur)
	}
	e := engine.AsError(cause)
	if e.Message == "" {
		e.Message = cause.Error()
	}
	if closeErr != nil {
		e.Message += fmt.Sprintf("; the new tab is still open, as tab %d (close it with tabs close), and tab %d is current", slices.Index(tabs, s), slices.Index(tabs, cur))
		return e.With("tabIndex", slices.Index(tabs, s)).With("currentTab", slices.Index(tabs, cur))
	}
	e.Message += fmt.Sprintf("; the new tab was closed, and tab %d is current", slices.Index(tabs, cur))
	return e.With("tabClosed", true).With("currentTab", slices.Index(tabs, cur))
}

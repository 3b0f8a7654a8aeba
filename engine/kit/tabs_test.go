package kit_test

import (
	"context"
	"errors"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit"
)

// page stands in for an engine's tab in TabSet's unit tests; the engines'
// conformance suite checks tabs in real browsers.
type page struct {
	url    string
	closed bool
	nav    engine.NavigateRequest // the last navigation
}

func (p *page) Info(context.Context) engine.PageInfo { return engine.PageInfo{URL: p.url} }
func (p *page) Navigate(_ context.Context, r engine.NavigateRequest) (engine.NavigateResult, error) {
	if r.URL == "http://unreachable.test/" {
		p.url = "chrome-error://chromewebdata/"
		return engine.NavigateResult{}, engine.Errorf(engine.NetworkError, "navigation to %s failed: net::ERR_NAME_NOT_RESOLVED", r.URL)
	}
	p.url, p.nav = r.URL, r
	return engine.NavigateResult{URL: r.URL}, nil
}

// tabSession is how an engine holds a TabSet: the current tab embedded.
type tabSession struct {
	*page
	tabs kit.TabSet[*page]
}

func newTabSession(first *page) *tabSession {
	s := &tabSession{}
	s.tabs.Init(&s.page, first)
	return s
}

func (s *tabSession) do(t *testing.T, req engine.TabsRequest) engine.TabsResult {
	t.Helper()
	res, err := s.tabs.Do(context.Background(), req, kit.TabActions[*page]{
		Open:  func(context.Context) (*page, error) { return &page{url: "about:blank"}, nil },
		Close: func(_ context.Context, p *page) error { p.closed = true; return nil },
	})
	if err != nil {
		t.Fatalf("%+v: %v", req, err)
	}
	return res
}

func urls(res engine.TabsResult) []string {
	var out []string
	for _, tab := range res.Tabs {
		u := tab.URL
		if tab.Current {
			u = "*" + u
		}
		out = append(out, u)
	}
	return out
}

func index(i int) *int { return &i }

func TestTabSetActions(t *testing.T) {
	a := &page{url: "a"}
	s := newTabSession(a)
	if s.page != a || s.tabs.Current() != a {
		t.Fatalf("Init: current %v, want the first tab", s.page)
	}
	check := func(res engine.TabsResult, want ...string) {
		t.Helper()
		got := urls(res)
		if len(got) != len(want) {
			t.Fatalf("tabs %q, want %q", got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("tabs %q, want %q", got, want)
			}
			if got[i][0] == '*' && res.Current != i {
				t.Fatalf("Current = %d, want %d", res.Current, i)
			}
		}
	}
	check(s.do(t, engine.TabsRequest{}), "*a")
	check(s.do(t, engine.TabsRequest{Action: "new", URL: "b"}), "a", "*b")
	if want := (engine.NavigateRequest{URL: "b", WaitUntil: engine.WaitLoad, Timeout: engine.DefaultNavigationTimeout}); s.page.nav != want {
		t.Fatalf("new tab navigated with %+v, want %+v", s.page.nav, want)
	}
	check(s.do(t, engine.TabsRequest{Action: "new"}), "a", "b", "*about:blank")
	if s.page.url != "about:blank" {
		t.Fatalf("the embedded current tab is %q, want the new one", s.page.url)
	}
	check(s.do(t, engine.TabsRequest{Action: "select", Index: index(1)}), "a", "*b", "about:blank")
	if s.page.url != "b" || s.tabs.Current().url != "b" {
		t.Fatalf("after select the current tab is %q", s.page.url)
	}
	// Closing the current tab makes the previous one current.
	b := s.page
	check(s.do(t, engine.TabsRequest{Action: "close"}), "*a", "about:blank")
	if !b.closed || s.page != a {
		t.Fatalf("close: closed %v, current %q; want b closed and a current", b.closed, s.page.url)
	}
	// Closing the first tab while it is current makes the new first one current.
	check(s.do(t, engine.TabsRequest{Action: "close", Index: index(0)}), "*about:blank")
	if !a.closed {
		t.Fatal("the first tab's page was not closed")
	}
}

func TestTabSetRefusals(t *testing.T) {
	s := newTabSession(&page{url: "a"})
	for _, req := range []engine.TabsRequest{
		{Action: "select"},
		{Action: "select", Index: index(1)},
		{Action: "close"},
	} {
		_, err := s.tabs.Do(context.Background(), req, kit.TabActions[*page]{})
		var e *engine.Error
		if !errors.As(err, &e) || e.Code != engine.InvalidParameters {
			t.Errorf("%+v: err %v, want INVALID_PARAMETERS", req, err)
		}
	}
	if s.tabs.Len() != 1 {
		t.Fatalf("Len = %d after refusals, want 1", s.tabs.Len())
	}
}

func TestTabSetRemoveAndDropped(t *testing.T) {
	a, b, c := &page{url: "a"}, &page{url: "b"}, &page{url: "c"}
	s := newTabSession(a)
	var dropped []*page
	s.tabs.Dropped = func(p *page) { dropped = append(dropped, p) }
	s.tabs.Add(b, false)
	s.tabs.Add(c, true)
	if tabs, cur := s.tabs.Snapshot(); len(tabs) != 3 || cur != c || s.page != c {
		t.Fatalf("Snapshot = %d tabs, current %q; want 3, c", len(tabs), cur.url)
	}
	s.tabs.Remove(b)
	s.tabs.Remove(b) // not in the set any more: ignored
	if s.page != c || len(dropped) != 1 || dropped[0] != b {
		t.Fatalf("removing another tab: current %q, dropped %d; want c current and b dropped once", s.page.url, len(dropped))
	}
	s.tabs.Remove(c)
	if s.page != a || s.tabs.Len() != 1 || len(s.tabs.All()) != 1 {
		t.Fatalf("removing the current tab: current %q, %d tabs; want a alone", s.page.url, s.tabs.Len())
	}
	s.tabs.Remove(a)
	if s.tabs.Len() != 0 || s.page != a {
		t.Fatalf("removing the last tab: %d tabs, current %q; want none and the current left as it was", s.tabs.Len(), s.page.url)
	}
}

// TestTabSetNewThatFails: a "new" whose URL does not load closes the tab it
// opened and leaves the previous tab current, and says so; a tab that would
// not close stays, and the error gives its index.
func TestTabSetNewThatFails(t *testing.T) {
	for _, closes := range []bool{true, false} {
		a, b := &page{url: "a"}, &page{url: "b"}
		s := newTabSession(a)
		var opened *page
		act := kit.TabActions[*page]{
			Open: func(context.Context) (*page, error) { opened = &page{url: "about:blank"}; return opened, nil },
			Close: func(_ context.Context, p *page) error {
				if !closes {
					return errors.New("the page would not close")
				}
				p.closed = true
				return nil
			},
		}
		s.tabs.Add(b, false)
		_, err := s.tabs.Do(context.Background(), engine.TabsRequest{Action: "new", URL: "http://unreachable.test/"}, act)
		e := engine.AsError(err)
		if e == nil || e.Code != engine.NetworkError || e.Details["currentTab"] != 0 {
			t.Fatalf("closes=%v: err = %v (%v), want NETWORK_ERROR with currentTab 0", closes, err, e)
		}
		tabs, cur := s.tabs.Snapshot()
		if cur != a || s.page != a {
			t.Errorf("closes=%v: the current tab is %v, want the first", closes, cur)
		}
		if closes && (len(tabs) != 2 || !opened.closed || e.Details["tabClosed"] != true) {
			t.Errorf("closes=%v: tabs %v, new tab closed %v, details %v", closes, tabs, opened.closed, e.Details)
		}
		if !closes && (len(tabs) != 3 || tabs[2] != opened || e.Details["tabIndex"] != 2) {
			t.Errorf("closes=%v: tabs %v, details %v; want the new tab kept at 2", closes, tabs, e.Details)
		}
	}
}

// TestTabSetNewThatFailsAfterTheSiteClosedThePrevious: the tab that was
// current when tabs new began is not made current again if the site closed
// it meanwhile: the tab left current is an open one, and the error names it.
func TestTabSetNewThatFailsAfterTheSiteClosedThePrevious(t *testing.T) {
	a, b := &page{url: "a"}, &page{url: "b"}
	s := newTabSession(a)
	s.tabs.Add(b, false)
	act := kit.TabActions[*page]{
		Open: func(context.Context) (*page, error) {
			s.tabs.Remove(a) // the site closes the current tab as the new one opens
			return &page{url: "about:blank"}, nil
		},
		Close: func(_ context.Context, p *page) error { p.closed = true; return nil },
	}
	_, err := s.tabs.Do(context.Background(), engine.TabsRequest{Action: "new", URL: "http://unreachable.test/"}, act)
	e := engine.AsError(err)
	tabs, cur := s.tabs.Snapshot()
	if cur != b || len(tabs) != 1 || e == nil || e.Details["currentTab"] != 0 || e.Details["tabClosed"] != true {
		t.Fatalf("tabs %v, current %v, err %v (%v); want b alone and current, named as tab 0", tabs, cur, err, e)
	}
}

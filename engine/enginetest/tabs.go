package enginetest

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

func tabs(t *testing.T, s engine.Session, req engine.TabsRequest) engine.TabsResult {
	t.Helper()
	res, err := s.Tabs(ctx(t), req)
	if err != nil {
		t.Fatalf("Tabs(%+v): %v", req, err)
	}
	return res
}

// waitTabs waits for the session to have n tabs and returns their list: a
// browser announces a popup on its own schedule.
func waitTabs(t *testing.T, s engine.Session, n int) engine.TabsResult {
	t.Helper()
	var res engine.TabsResult
	testenv.Eventually(t, fmt.Sprintf("%d tabs", n), func() (bool, error) {
		if res = tabs(t, s, engine.TabsRequest{}); len(res.Tabs) != n {
			return false, fmt.Errorf("the tabs are %+v", res)
		}
		return true, nil
	})
	return res
}

func (h *harness) testTabs(t *testing.T) {
	s := h.open(t, "/tabs.html")
	if res := tabs(t, s, engine.TabsRequest{Action: "list"}); len(res.Tabs) != 1 || res.Current != 0 || !res.Tabs[0].Current {
		t.Fatalf("one tab: %+v", res)
	}
	// A target=_blank link and window.open become tabs of the session. A
	// browser announces a popup on its own schedule (Firefox over BiDi after
	// the click has returned), so the list may take a moment to show both.
	click(t, s, engine.ClickRequest{Target: sel("#blank")})
	click(t, s, engine.ClickRequest{Target: sel("#popup")})
	res := waitTabs(t, s, 3)
	if res.Current != 0 {
		t.Fatalf("popups not adopted: %+v", res)
	}
	popup := -1
	for _, tb := range res.Tabs {
		if strings.HasSuffix(tb.URL, "/form.html") {
			popup = tb.Index
		}
	}
	if popup < 0 {
		t.Fatalf("no tab shows the window.open page: %+v", res)
	}
	// Select the window.open tab and act in it.
	tabs(t, s, engine.TabsRequest{Action: "select", Index: &popup})
	typeText(t, s, engine.TypeRequest{Target: sel("#user"), Text: "in popup"})
	wantTitle(t, s, "user=in popup")
	// A new tab opens at a URL and becomes current; it shares the
	// session's cookies and storage.
	h.navigate(t, s, "/storage.html?set=tabbed")
	res = tabs(t, s, engine.TabsRequest{Action: "new", URL: h.site.url("/storage.html")})
	if len(res.Tabs) != 4 || res.Current != 3 {
		t.Fatalf("new tab: %+v", res)
	}
	if got := title(t, s); !strings.Contains(got, `"local":"tabbed"`) {
		t.Fatalf("the new tab does not share the session's storage: %q", got)
	}
	// Close the current tab, then the first one; the session goes on.
	if res := tabs(t, s, engine.TabsRequest{Action: "close"}); len(res.Tabs) != 3 {
		t.Fatalf("close current: %+v", res)
	}
	zero, nine := 0, 9
	if res := tabs(t, s, engine.TabsRequest{Action: "close", Index: &zero}); len(res.Tabs) != 2 {
		t.Fatalf("close first: %+v", res)
	}
	h.navigate(t, s, "/form.html")
	wantTitle(t, s, "Sign in")
	_, err := s.Tabs(ctx(t), engine.TabsRequest{Action: "select", Index: &nine})
	wantError(t, err, engine.InvalidParameters, map[string]any{"field": "index", "tabs": 2})
	_, err = s.Tabs(ctx(t), engine.TabsRequest{Action: "select"})
	wantError(t, err, engine.InvalidParameters, map[string]any{"field": "index"})
	_, err = s.Tabs(ctx(t), engine.TabsRequest{Action: "juggle"})
	wantError(t, err, engine.InvalidParameters, map[string]any{"field": "action"})
	tabs(t, s, engine.TabsRequest{Action: "close"})
	_, err = s.Tabs(ctx(t), engine.TabsRequest{Action: "close"})
	wantError(t, err, engine.InvalidParameters, map[string]any{"field": "index"})
	// Another session never sees these tabs.
	if res := tabs(t, h.session(t), engine.TabsRequest{}); len(res.Tabs) != 1 {
		t.Fatalf("tabs leaked across sessions: %+v", res)
	}
}

// testTabsNewThatFails: a new tab whose URL does not load (a port nobody
// listens on, a host that does not resolve, a scheme the policy refuses)
// leaves no stray tab: the tab it opened is closed, the tab that was
// current stays current and keeps working, and the error says so.
func (h *harness) testTabsNewThatFails(t *testing.T) {
	s := h.open(t, "/form.html")
	tabs(t, s, engine.TabsRequest{Action: "new", URL: h.site.url("/tabs.html")})
	zero := 0
	tabs(t, s, engine.TabsRequest{Action: "select", Index: &zero})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/"
	l.Close()
	for _, url := range []string{closed, "http://nonexistent.invalid/", "file:///etc/hosts"} {
		_, err := s.Tabs(ctx(t), engine.TabsRequest{Action: "new", URL: url})
		var e *engine.Error
		if !errors.As(err, &e) {
			t.Fatalf("new tab at %s: %v, want an error", url, err)
		}
		if e.Details["tabClosed"] != true || e.Details["currentTab"] != 0 || !strings.Contains(e.Message, "the new tab was closed") {
			t.Errorf("new tab at %s: %v (details %v), want it closed and tab 0 current", url, e, e.Details)
		}
		res := tabs(t, s, engine.TabsRequest{})
		if len(res.Tabs) != 2 || res.Current != 0 || !strings.HasSuffix(res.Tabs[0].URL, "/form.html") || !strings.HasSuffix(res.Tabs[1].URL, "/tabs.html") {
			t.Fatalf("after a new tab at %s failed, the tabs are %+v; want form.html (current) and tabs.html", url, res)
		}
		// The current tab is the one that was, and acts.
		wantTitle(t, s, "Sign in")
	}
	typeText(t, s, engine.TypeRequest{Target: sel("#user"), Text: "still here"})
	wantTitle(t, s, "user=still here")
}

package engine

import (
	"context"
)

// Tabber manages the pages (tabs) of one session. Pages the site opens
// (window.open, target=_blank) become tabs of the same session; every other
// tool acts on the current tab.
type Tabber interface {
	Tabs(ctx context.Context, req TabsRequest) (TabsResult, error)
}

// TabsRequest is one tabs action: "list", "new" (optionally at URL),
// "select" or "close" (Index; close defaults to the current tab).
type TabsRequest struct {
	Action string
	Index  *int
	URL    string
}

// TabInfo describes one tab.
type TabInfo struct {
	Index   int    `json:"index"`
	URL     string `json:"url"`
	Title   string `json:"title"`
	Current bool   `json:"current,omitempty"`
}

// TabsResult lists the session's tabs after the action.
type TabsResult struct {
	Tabs    []TabInfo `json:"tabs"`
	Current int       `json:"current"`
}

// Validate checks the action, for every engine alike.
func (r TabsRequest) Validate() error {
	switch r.Action {
	case "", "list", "select", "close":
		return nil
	case "new":
		return checkNavURL(r.URL, "url")
	}
	return Errorf(InvalidParameters, "action must be list, new, select or close, not %q", r.Action).With("field", "action")
}

// Pick resolves the tab a select or close acts on among n tabs: Index, or
// for close the current tab. Select needs an index, and the last tab cannot
// be closed (close_session ends the session).
func (r TabsRequest) Pick(n, current int) (int, error) {
	if r.Action == "select" && r.Index == nil {
		return 0, Errorf(InvalidParameters, "select needs index").With("field", "index")
	}
	i := current
	if r.Index != nil {
		i = *r.Index
	}
	if i < 0 || i >= n {
		return 0, Errorf(InvalidParameters, "tab index %d is out of range: the session has %d tabs (0-%d)", i, n, n-1).
			With("field", "index").With("tabs", n)
	}
	if r.Action == "close" && n == 1 {
		return 0, Errorf(InvalidParameters, "cannot close the session's last tab").
			With("field", "index").Suggest("Use close_session to end the session.")
	}
	return i, nil
}

// AllTabsClosed is the error of a session whose every page was closed (by
// the site or the user).
func AllTabsClosed() *Error {
	return Errorf(BrowserCrashed, "every page of the session was closed").Suggest("Close this session and create a new one.")
}

package engine

import "context"

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

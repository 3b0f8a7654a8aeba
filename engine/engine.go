// Package engine defines what browsermcp needs from a browser: an Engine that
// owns one shared browser, and Sessions, each an isolated browser context with
// its own page. It also holds the error type with its stable codes, element
// targeting (selector or ref), and the Manager that gives sessions their ids,
// expiry, limits and per-session serialisation, independent of the backend.
//
// Backends (engine/cdp for Chromium over CDP, engine/pw for Playwright)
// implement Engine and Session and classify their failures into *Error at
// their edge. The MCP layer in package tools is written only against this
// package.
package engine

import (
	"context"
	"time"
)

// Engine owns one browser shared by every session.
type Engine interface {
	// Name identifies the engine and browser, e.g. "cdp/chromium".
	Name() string
	// Start begins launching or attaching to the browser in the background
	// and returns at once; NewSession waits for it.
	Start()
	// NewSession creates an isolated browser context with one page.
	NewSession(ctx context.Context, opts SessionOptions) (Session, error)
	// Close closes every session and the browser if the engine launched it.
	// It never closes a browser it attached to.
	Close() error
}

// Session is one isolated browser context and its page. The Manager calls a
// Session from one goroutine at a time.
type Session interface {
	Navigate(ctx context.Context, req NavigateRequest) (NavigateResult, error)
	Click(ctx context.Context, req ClickRequest) (ActionResult, error)
	Type(ctx context.Context, req TypeRequest) (ActionResult, error)
	// Screenshot captures the page's viewport as PNG.
	Screenshot(ctx context.Context) ([]byte, error)
	// Info returns the page's URL and title. It must be safe to call while
	// another call on the session is running, because list_sessions must not
	// wait for a busy session.
	Info(ctx context.Context) PageInfo
	// Close frees the browser context. It is idempotent.
	Close(ctx context.Context) error
}

// SessionOptions configure a new session.
type SessionOptions struct {
	Viewport Viewport
}

// Viewport is a page size in CSS pixels.
type Viewport struct {
	Width, Height int
}

// WaitUntil names the page lifecycle state a navigation waits for.
type WaitUntil string

// The lifecycle states a navigation can wait for.
const (
	WaitLoad             WaitUntil = "load"
	WaitDOMContentLoaded WaitUntil = "domcontentloaded"
	WaitNetworkIdle      WaitUntil = "networkidle"
)

// NavigateRequest asks a session to load a URL.
type NavigateRequest struct {
	URL       string
	WaitUntil WaitUntil
	Timeout   time.Duration
}

// NavigateResult describes the page a navigation ended on.
type NavigateResult struct {
	Title  string
	URL    string // final URL, after redirects
	Status int    // HTTP status of the main document; 0 when there was none
}

// ClickRequest asks a session to click an element.
type ClickRequest struct {
	Target     Target
	Timeout    time.Duration
	Force      bool
	ClickCount int
	// NavigationTimeout bounds the wait for a navigation the click starts.
	NavigationTimeout time.Duration
}

// TypeRequest asks a session to type text into an element.
type TypeRequest struct {
	Target            Target
	Text              string
	Delay             time.Duration
	Timeout           time.Duration
	Clear             bool
	NavigationTimeout time.Duration
}

// ActionResult reports what an action did and what it caused.
type ActionResult struct {
	// Navigated is set when the action started a navigation of the page; URL
	// is then the page it ended on.
	Navigated bool
	URL       string
}

// PageInfo is a cheap description of a session's current page.
type PageInfo struct {
	URL   string
	Title string
}

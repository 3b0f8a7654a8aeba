// Package engine is the contract between browsermcp and a browser: an Engine
// that owns one shared browser, and Sessions, each an isolated browser
// context with its own pages; the requests and results of every engine
// call; the error type with its stable codes; element targeting (selector
// or ref); and Bound, the one wrapper every action passes. It holds no
// implementation of its own.
//
// Backends (engine/cdp for Chromium over CDP, engine/pw for Playwright,
// engine/grid for a Selenium Grid) implement Engine and Session with the
// shared toolkit in engine/kit, and classify their failures into *Error at
// their edge. The session runtime (internal/sessions) gives sessions their
// ids, names, owners and expiry and runs the calls on each; the MCP layer in
// package tools is written only against this package and that runtime.
package engine

import (
	"context"
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strings"
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

// Session is one isolated browser context and its page. The session runtime
// calls a Session from one goroutine at a time.
type Session interface {
	Navigate(ctx context.Context, req NavigateRequest) (NavigateResult, error)
	Click(ctx context.Context, req ClickRequest) (ActionResult, error)
	Type(ctx context.Context, req TypeRequest) (ActionResult, error)
	// Snapshot returns the accessibility outline of the page (or of the
	// subtree req.Target names), with a ref on every element that can be
	// acted on. A ref names one DOM node for as long as it lives and is never
	// reused; every element action accepts it in Target.Ref.
	Snapshot(ctx context.Context, req SnapshotRequest) (SnapshotResult, error)
	// HandleDialog accepts or dismisses the JavaScript dialog (alert,
	// confirm, prompt, beforeunload) that is open on the page, then waits
	// for what closing it started, like an action. With no dialog open it
	// fails with NO_DIALOG. While a dialog is open, every other page call
	// fails with DIALOG_OPEN.
	HandleDialog(ctx context.Context, req DialogRequest) (ActionResult, error)
	// Info returns the page's URL and title. It must be safe to call while
	// another call on the session is running, because list_sessions must not
	// wait for a busy session.
	Info(ctx context.Context) PageInfo
	// Close frees the browser context. It is idempotent.
	Close(ctx context.Context) error

	Historian
	Interactor
	Stater
	Tabber
	Networker
	Consoler
	PDFer
	Tracer    // a Chrome performance trace of the current tab
	Videoer   // start_video, stop_video
	Emulator  // media features, CPU, position, timezone, locale, device, viewport
	Inspector // one request in full, HAR recording
	// Evaluate runs a function in the page and returns its JSON result.
	Evaluate(ctx context.Context, req EvalRequest) (json.RawMessage, error)
	// Screenshot returns a PNG or JPEG image.
	Screenshot(ctx context.Context, req ScreenshotRequest) ([]byte, error)
	Changer // what changed on the page since the agent's last view

	// What follows every session must answer too, so that a wrapper that
	// embeds a Session (Bound, engine/grid's session) passes it on: found
	// by a type assertion, it would vanish behind the wrapper. An engine
	// that has nothing to offer there embeds NothingToReport.
	Reporter   // what an action caused: tabs, downloads, console errors
	BlockedLog // what the domain policy refused
	Ender      // the browser went away, or the session was ended elsewhere
}

// Goner is the part of a Session that says when its browser went away (it
// crashed or was killed): Gone closes then. The session runtime frees the
// session at once, rather than when it expires, so that its slot is not held by
// the dead. A nil channel (NothingToReport) never closes.
type Goner interface {
	Gone() <-chan struct{}
}

// Ender is the part of a Session that says when it went away: its browser
// (Goner), or because it was ended on purpose elsewhere:
// a session shared by several servers (a Grid's) that another server
// closed, or whose expiry there ended it. EndedElsewhere tells (within
// ctx's short deadline) whether that is what happened; the session runtime asks
// when Gone closes and when a call answers BROWSER_CRASHED, and if so the
// session is dropped and its calls answer SESSION_NOT_FOUND, saying it was
// closed. An Ender that cannot tell answers false: the browser went away.
type Ender interface {
	Goner
	EndedElsewhere(ctx context.Context) bool
}

// EndedTimeout bounds the session runtime's EndedElsewhere question.
const EndedTimeout = 5 * time.Second

// SnapshotRequest asks for the accessibility outline of the page.
type SnapshotRequest struct {
	// Target limits the outline to one element's subtree; zero means the
	// whole page.
	Target Target
	// Depth limits nesting; 0 means no limit.
	Depth int
	// InteractiveOnly keeps the elements that can be acted on, plus the
	// headings and landmarks that orient.
	InteractiveOnly bool
	// MaxChars truncates the text at a line boundary; 0 means no limit.
	MaxChars int
	// MaxText cuts every name, value, text and URL of the outline at this
	// many characters (Unicode code points), marked `…" [+N chars]`; 0
	// means DefaultMaxText, a negative number no cap.
	MaxText int
}

// DefaultMaxText is the cap on one string of an outline: a long label,
// alt or paragraph costs tokens on every snapshot.
const DefaultMaxText = 150

// TextCap is the cap the snapshot script applies for r.MaxText: 0 for
// none.
func (r SnapshotRequest) TextCap() int {
	switch {
	case r.MaxText == 0:
		return DefaultMaxText
	case r.MaxText < 0:
		return 0
	}
	return r.MaxText
}

// SnapshotResult is an outline in playwright-mcp's style: one line per
// node, `- role "name" [attr] [ref=eN]`, nested by indentation.
type SnapshotResult struct {
	Text      string
	URL       string
	Title     string
	Refs      int  // refs in Text
	Truncated bool // Text was cut at MaxChars
	FullChars int  // length before truncation
}

// DialogType names the kind of a JavaScript dialog.
type DialogType string

// The dialog types.
const (
	DialogAlert        DialogType = "alert"
	DialogConfirm      DialogType = "confirm"
	DialogPrompt       DialogType = "prompt"
	DialogBeforeUnload DialogType = "beforeunload"
)

// Dialog is a JavaScript dialog an action opened.
type Dialog struct {
	Type         DialogType `json:"type"`
	Message      string     `json:"message"`
	DefaultValue string     `json:"defaultValue,omitempty"`
	// Handled is "accepted" or "dismissed" when the dialog policy closed it
	// already; empty while it waits for HandleDialog.
	Handled string `json:"handled,omitempty"`
}

// FileChooser is a native file chooser a page opened and waits on.
type FileChooser struct {
	// Multiple is set when the chooser takes several files (its input is
	// <input type=file multiple>).
	Multiple bool `json:"multiple"`
}

// FileChooserPending is the error of a page call made while a file chooser
// waits: the page is blocked, as by a dialog, until upload_file answers it.
func FileChooserPending(fc FileChooser) *Error {
	kind := "a single-file"
	if fc.Multiple {
		kind = "a multiple-file"
	}
	return Errorf(FileChooserOpen, "%s file chooser is open and waits for its files", kind).With("fileChooser", &fc)
}

// NoFileChooser is the error of an Upload without a Target while no file
// chooser waits.
func NoFileChooser() *Error {
	return Errorf(InvalidParameters, "no file chooser is open: name the file input with selector or ref, or first click what opens the chooser").
		With("field", "selector").With("fields", []string{"selector", "ref"})
}

// DialogRequest closes the open dialog.
type DialogRequest struct {
	Accept bool
	// PromptText is typed into a prompt before it is accepted.
	PromptText *string
	// NavigationTimeout bounds the wait for a navigation closing starts.
	NavigationTimeout time.Duration
}

// DialogPolicy says what a session does when a page opens a dialog.
type DialogPolicy string

// The dialog policies.
const (
	// DialogsManual leaves the dialog open for HandleDialog.
	DialogsManual DialogPolicy = "manual"
	// DialogsAccept accepts every dialog at once (crawlers).
	DialogsAccept DialogPolicy = "accept"
	// DialogsDismiss dismisses every dialog at once.
	DialogsDismiss DialogPolicy = "dismiss"
)

// Idler is an Engine that can stop its browser while no session uses it,
// and start it again on the next NewSession (--idle-timeout).
type Idler interface {
	// Idle stops the browser. It reports false when the browser is still
	// starting and was left alone, for the caller to try again later.
	Idle() bool
}

// SessionOptions configure a new session.
type SessionOptions struct {
	Viewport         Viewport
	UserAgent        string
	Locale           string // e.g. "de-DE": navigator.language, Accept-Language, Intl
	TimezoneID       string // IANA name, e.g. "Europe/Berlin"
	ExtraHTTPHeaders map[string]string
	// Proxy is a proxy server for this session only, e.g.
	// "http://proxy:3128" or "socks5://proxy:1080".
	Proxy string
	// ProxyBypass are the hosts that skip Proxy, comma-separated
	// (".example.com", "localhost:8080").
	ProxyBypass string
	// ProxyUsername and ProxyPassword log in to Proxy; the browser never
	// sees them (AuthProxy).
	ProxyUsername, ProxyPassword string
	StorageState                 *StorageState
	// DownloadDir is where the session saves the files its pages download,
	// created on the first download and removed with the session. Empty:
	// downloads are refused.
	DownloadDir string
	// IgnoreHTTPSErrors lets pages load from servers whose certificate the
	// browser does not trust (self-signed, expired, wrong host).
	IgnoreHTTPSErrors bool
	// DeviceScaleFactor is the device pixel ratio; 0: 1.
	DeviceScaleFactor float64
	// IsMobile emulates a mobile browser (the meta viewport, overlay
	// scrollbars); HasTouch gives pages touch events.
	IsMobile, HasTouch bool
	// InitScripts are JavaScript sources run in every new document of
	// every page of the session, in order, before the page's own scripts.
	InitScripts []string
	// Permissions are granted to every origin the session's pages open
	// (PermissionNames).
	Permissions []string
	// BlockServiceWorkers keeps pages from registering service workers,
	// and their requests from going through one.
	BlockServiceWorkers bool
	// Profile runs the session in the browser's persistent profile (its
	// own browser context, over --user-data-dir) instead of a new isolated
	// one, so that its cookies and storage outlive the server. Only an
	// engine launched with a user data directory takes it; the session runtime
	// sets it for the session named default.
	Profile bool
}

// PermissionNames are the permissions a session can be granted, by
// Playwright's names; each engine maps them to its browser's.
var PermissionNames = []string{
	"geolocation", "notifications", "camera", "microphone", "clipboard-read", "clipboard-write",
	"midi", "midi-sysex", "background-sync", "accelerometer", "gyroscope", "magnetometer", "ambient-light-sensor",
	"payment-handler", "storage-access", "local-fonts", "local-network-access",
}

// Validate checks the options no browser needs to see to refuse, for
// every engine alike.
func (o SessionOptions) Validate() error {
	// A user agent travels in an HTTP header: printable ASCII only (a
	// browser refuses anything else, which surfaced as BROWSER_ERROR).
	for _, r := range o.UserAgent {
		if r < 0x20 || r > 0x7e {
			return Errorf(InvalidParameters, "userAgent must be printable ASCII, as an HTTP header is; it has %q", r).With("field", "userAgent")
		}
	}
	if o.Locale != "" && !localePattern.MatchString(o.Locale) {
		return Errorf(InvalidParameters, "locale %q is not a BCP 47 language tag like en-US or de-DE", o.Locale).With("field", "locale")
	}
	for _, p := range o.Permissions {
		if !slices.Contains(PermissionNames, p) {
			return Errorf(InvalidParameters, "unknown permission %q; want one of %s", p, strings.Join(PermissionNames, ", ")).With("field", "permissions")
		}
	}
	if o.Proxy != "" {
		u, err := url.Parse(o.Proxy)
		if err != nil || u.Host == "" {
			return Errorf(InvalidParameters, "proxy %q is not a URL like http://host:port or socks5://host:port", o.Proxy).With("field", "proxy")
		}
		if u.User != nil {
			return Errorf(InvalidParameters, "proxy %q: give its login as proxy.username and proxy.password, not in the URL", u.Redacted()).With("field", "proxy")
		}
	}
	if o.ProxyUsername != "" || o.ProxyPassword != "" {
		if o.Proxy == "" {
			return Errorf(InvalidParameters, "a proxy username or password needs a proxy server").With("field", "proxy")
		}
		if u, _ := url.Parse(o.Proxy); u.Scheme != "http" && u.Scheme != "socks5" {
			return Errorf(InvalidParameters, "a proxy with a login must be http:// or socks5://, not %s://", u.Scheme).With("field", "proxy")
		}
	}
	return nil
}

// localePattern is the shape of a BCP 47 language tag: a 2-8 letter
// language and subtags of 1-8 letters or digits.
var localePattern = regexp.MustCompile(`^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$`)

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
	// Dialog is set when leaving the old page opened a beforeunload dialog;
	// the navigation waits for HandleDialog.
	Dialog *Dialog
	// Recovered is set when the tab's renderer had crashed: the navigation
	// ran in a new page of the session's browser context (cookies and
	// storage kept), and it says so.
	Recovered string
}

// RendererCrashed is the error of a call on a tab whose renderer crashed:
// the session lives, and its next navigate opens a new page.
func RendererCrashed() *Error {
	return Errorf(BrowserCrashed, "the page's renderer crashed").With("reason", "renderer_crashed").
		Suggest("Call navigate: it opens a new page in this session (cookies and storage kept) and loads the URL there.")
}

// RecoveredNote is NavigateResult.Recovered after a renderer crash.
const RecoveredNote = "the tab's renderer had crashed: this navigation opened a new page in the session (cookies and storage kept; the old page's history, refs and logs are gone)"

// ClickRequest asks a session to click an element.
type ClickRequest struct {
	Target     Target
	Timeout    time.Duration
	Force      bool
	ClickCount int
	// Button is ButtonLeft (the default), ButtonRight or ButtonMiddle.
	Button string
	// NavigationTimeout bounds the wait for a navigation the click starts.
	NavigationTimeout time.Duration
}

// TypeRequest asks a session to type text into an element.
type TypeRequest struct {
	Target Target
	Text   string
	Delay  time.Duration
	// Timeout bounds the wait for the element; a timeout the caller gives
	// bounds the typing too (TypeTimeout), as in Playwright.
	Timeout time.Duration
	// TypeTimeout bounds the wait for the element and the typing together,
	// from the start of the call: typing that has not ended by then stops
	// between two keys and the call answers TIMEOUT (TypingTimedOut). Set
	// by WithDefaults.
	TypeTimeout       time.Duration
	Clear             bool
	NavigationTimeout time.Duration
}

// ActionResult reports what an action did and what it caused.
type ActionResult struct {
	// Navigated is set when the action started a navigation of the page; URL
	// is then the page it ended on.
	Navigated bool
	URL       string
	// Title is the new page's title when the action navigated.
	Title string
	// Dialog is the dialog the action opened, if any. In manual mode it is
	// still open and blocks the page until HandleDialog.
	Dialog *Dialog
	// FileChooser is the native file chooser the action opened (a click on
	// an <input type=file>, or a script's input.click()), if any. It stays
	// pending, and blocks the page's other calls with FILE_CHOOSER_OPEN,
	// until an Upload without a Target fills or cancels it.
	FileChooser *FileChooser
	// ReceivedBy describes the element a forced click landed on (its
	// target, or what the click went to instead is an error); other
	// actions leave it empty.
	ReceivedBy string
	// NewTabs are the tabs the action opened (popups, target=_blank).
	NewTabs []NewTab
	// Downloads are the files the action downloaded (see Reporter).
	Downloads []Download
	// ConsoleErrors counts the console errors and uncaught exceptions the
	// page logged since the last action's result.
	ConsoleErrors int
}

// PageInfo is a cheap description of a session's current page.
type PageInfo struct {
	URL   string
	Title string
	// Pages is how many pages (tabs) the session has.
	Pages int
}

// EvalRequest runs a JavaScript function in the page. With a Target, the
// function gets the element (or, with All, the array of matching elements)
// as its first argument, followed by Args; without one it gets only Args.
type EvalRequest struct {
	Target *Target
	All    bool
	// Function is JavaScript source of a function, e.g. "el => el.textContent".
	Function string
	// Expression, when set instead of Function, is evaluated like a console
	// line: statements allowed, the last expression's value is the result.
	Expression string
	Args       []any
	// Timeout is how long to wait for the target to appear; 0 does not wait.
	Timeout time.Duration
	// State, if set, waits until the first match is "attached", "detached",
	// "visible" or "hidden" (TIMEOUT otherwise); Function then gets the
	// match, or null.
	State string
	// Settle: the function acts like a user (fill, select, scroll), and
	// Evaluate waits for what it started as an action does (a navigation,
	// requests, the page work they set off) before it returns. Frame: the
	// function's effects come with the next frame (a scroll's events).
	Settle, Frame bool
}

// ScreenshotRequest asks for an image of the page or of one element.
type ScreenshotRequest struct {
	Target   *Target
	FullPage bool
	Format   string // "png" or "jpeg"
	Quality  int    // jpeg only, 1-100
	// Scale shrinks the image (0 < Scale <= 1); 0 means 1.
	Scale float64
	// MaxBytes, when positive, is the most the caller will take. An engine
	// that encodes for speed first (engine/cdp's PNG: bigger bytes, the
	// same pixels) encodes the image again for size when it is over
	// MaxBytes. The result may still be over it: the caller decides what
	// then.
	MaxBytes int
}

// Historian is the part of a session that moves through history.
type Historian interface {
	// History goes back (delta -1) or forward (+1) and waits for the load.
	History(ctx context.Context, delta int, timeout time.Duration) (NavigateResult, error)
	Reload(ctx context.Context, ignoreCache bool, timeout time.Duration) (NavigateResult, error)
	// WaitForLoad waits until the current document reaches state.
	WaitForLoad(ctx context.Context, state WaitUntil, timeout time.Duration) (NavigateResult, error)
}

package engine

import "time"

// Defaults every engine uses, so that tools behave the same on each. They
// are applied once, by Bound, before a request reaches an engine: engines
// never fill in a default or invent a margin of their own.
const (
	// DefaultActionTimeout is how long an element action waits for its
	// element when the caller gives no timeout.
	DefaultActionTimeout = 5 * time.Second
	// DefaultNavigationTimeout bounds a navigation when the caller gives none.
	DefaultNavigationTimeout = 30 * time.Second
	// DefaultScriptTimeout bounds a script run by Evaluate once its target
	// was found.
	DefaultScriptTimeout = 30 * time.Second
	// DefaultCallTimeout bounds a call that has no timeout of its own: a
	// snapshot, a screenshot, cookies, routes, logs.
	DefaultCallTimeout = 30 * time.Second
	// NewSessionTimeout bounds the creation of a session, which may wait
	// for the browser's launch (itself bounded by the engine's launch
	// timeout, 60 s) before it opens a context and a page.
	NewSessionTimeout = 90 * time.Second
	// CloseTimeout bounds closing a session's context and pages.
	CloseTimeout = 10 * time.Second
	// InfoTimeout bounds Info, which list_sessions calls on busy sessions.
	InfoTimeout = 2 * time.Second
	// SettleQuiet is how long the network must stay quiet after requests an
	// action started before the action returns.
	SettleQuiet = 50 * time.Millisecond
	// SettleNetworkMax bounds the wait for requests an action started.
	SettleNetworkMax = 2 * time.Second
	// SettleDOMQuiet is how long the page must go without a change (or a
	// timer or frame) set off by an action, once the action started
	// something asynchronous, before the action returns. An action that only
	// changed the page in its own event handlers does not wait for it.
	SettleDOMQuiet = 50 * time.Millisecond
	// SettleDOMMax bounds the wait for the page work an action set off
	// (its short timers, animation frames and DOM changes); a timer longer
	// than this is not waited for.
	SettleDOMMax = 1500 * time.Millisecond
	// SettleMax bounds the whole settle of an action that did not
	// navigate: the requests it started, and the page work they set off.
	SettleMax = SettleNetworkMax + SettleDOMMax
	// NetworkIdleQuiet is how long no request may be in flight before a
	// page counts as network-idle (wait_for_load networkidle), as in
	// Playwright and Chromium.
	NetworkIdleQuiet = 500 * time.Millisecond
	// BackgroundTimeout bounds work an engine does on its own, outside any
	// call: answering a dialog by policy, giving a popup the session's
	// settings.
	BackgroundTimeout = 10 * time.Second
	// CleanupTimeout bounds freeing what a call left in the browser
	// (remote objects), after the call returned.
	CleanupTimeout = 2 * time.Second
	// CallGrace is what a call's deadline allows beyond the waits its
	// request names: the round trips before and after them (finding the
	// element after the wait for it, reading the result). It is the one
	// margin; engines add none of their own.
	CallGrace = 2 * time.Second
	// MaxCallTimeout is the longest timeout a request may name; Validate
	// refuses longer ones. The tools' argument ranges are narrower (5 min);
	// this bound is for every other caller.
	MaxCallTimeout = time.Hour
	// MaxKeyDelay is the longest delay between two typed keys.
	MaxKeyDelay = time.Second
	// MaxClickCount is the most clicks one click request makes (3: a
	// triple click).
	MaxClickCount = 3
)

// orDefault returns v, or def when v is not positive.
func orDefault(v, def time.Duration) time.Duration {
	if v <= 0 {
		return def
	}
	return v
}

package engine

import (
	"errors"
	"fmt"
	"strings"
)

// Code is a stable, machine-readable error code. Agents branch on it, so a
// code never changes meaning once released.
type Code string

// The error codes. Each has a default retryability and suggestion in codeInfo.
const (
	SessionNotFound     Code = "SESSION_NOT_FOUND"
	SessionExpired      Code = "SESSION_EXPIRED"
	MaxSessionsReached  Code = "MAX_SESSIONS_REACHED"
	NavigationFailed    Code = "NAVIGATION_FAILED"
	NavigationBlocked   Code = "NAVIGATION_BLOCKED"
	ElementNotFound     Code = "ELEMENT_NOT_FOUND"
	ElementNotClickable Code = "ELEMENT_NOT_CLICKABLE"
	ElementNotEditable  Code = "ELEMENT_NOT_EDITABLE"
	InvalidParameters   Code = "INVALID_PARAMETERS"
	InvalidURL          Code = "INVALID_URL"
	// InvalidSelector is a selector that does not parse as CSS or XPath.
	InvalidSelector Code = "INVALID_SELECTOR"
	// NetworkError is a page the browser could not reach: the host did
	// not resolve, the connection was refused, reset or timed out, or the
	// browser is offline.
	NetworkError Code = "NETWORK_ERROR"
	// ResourceExhausted is a limit of the machine, not of the call: the
	// disk is full, or a file would pass the size the server allows.
	ResourceExhausted Code = "RESOURCE_EXHAUSTED"
	DialogOpen        Code = "DIALOG_OPEN"
	NoDialog          Code = "NO_DIALOG"
	Unsupported       Code = "UNSUPPORTED"
	ScriptError       Code = "SCRIPT_ERROR"
	Timeout           Code = "TIMEOUT"
	BrowserCrashed    Code = "BROWSER_CRASHED"
	BrowserError      Code = "BROWSER_ERROR"
	// AssertionFailed is an assertion (verify_*) whose condition did not
	// hold by its timeout; its details say what was expected and what the
	// page showed.
	AssertionFailed Code = "ASSERTION_FAILED"
	// InternalError is a bug of the server's own (a recovered panic): the
	// one call failed, and the server runs on.
	InternalError Code = "INTERNAL_ERROR"
	// RecordingActive: a start_* call while that recording (a trace, a
	// video, a HAR) already runs on the session; NoRecording: a stop_*
	// call while none does.
	RecordingActive Code = "RECORDING_ACTIVE"
	NoRecording     Code = "NO_RECORDING"
	// FileChooserOpen is a page call made while a native file chooser an
	// action opened waits for upload_file.
	FileChooserOpen Code = "FILE_CHOOSER_OPEN"
)

type codeDefaults struct {
	retryable  bool
	suggestion string
}

// codeInfo gives every code its default retryability and the next step an
// agent should take. Backends may override both on a single error.
var codeInfo = map[Code]codeDefaults{
	SessionNotFound:     {false, "Call create_session to get a new sessionId, or list_sessions to see the open ones."},
	SessionExpired:      {false, "The session timed out from inactivity; call create_session and start again."},
	MaxSessionsReached:  {true, "Close a session you no longer need with close_session, or wait for one to expire."},
	NavigationFailed:    {true, "Check the URL and that the site is reachable; retry, or raise timeout for slow pages."},
	NavigationBlocked:   {false, "The server's security policy forbids this URL; use an allowed domain."},
	ElementNotFound:     {true, "Check the selector or ref; take a new snapshot, or wait for the element to appear."},
	ElementNotClickable: {true, "Scroll, close the covering element, or wait until it is enabled; force:true skips the checks."},
	ElementNotEditable:  {false, "Target an input, textarea, select or contenteditable element that is enabled and not read-only."},
	InvalidParameters:   {false, "Fix the named parameter and call again."},
	InvalidURL:          {false, "Give an http(s), file (if allowed), data or about URL; run scripts with evaluate."},
	InvalidSelector:     {false, "Check the selector's syntax: CSS, or XPath starting with / or ( or xpath=."},
	NetworkError:        {true, "Check that the host name is right and the site is up and reachable from the server, then retry."},
	ResourceExhausted:   {true, "Free space or memory on the server (close sessions, delete files in the output directory), or ask for less."},
	DialogOpen:          {false, "Call handle_dialog to accept or dismiss the dialog first."},
	FileChooserOpen:     {false, "Call upload_file with files and no selector or ref to choose them, or with files: [] to cancel the chooser; navigating away or closing the tab drops it too."},
	ScriptError:         {false, "Fix the script: it threw, or returned something that is not JSON (a DOM node, a function, a cycle)."},
	NoDialog:            {false, "No dialog is open; the page or the --dialogs policy may have closed it. Continue without handle_dialog."},
	Unsupported:         {false, "This browser or engine does not offer this feature; use Chromium for it."},
	Timeout:             {true, "Raise timeout, or wait for the page to settle and retry."},
	BrowserCrashed:      {true, "The browser or tab crashed; call create_session to start a fresh session."},
	BrowserError:        {true, "Retry; if it persists, create a new session."},
	AssertionFailed:     {false, "The page did not show what was expected: read expected and actual, take a snapshot to see the page, or raise timeout if it is still changing."},
	InternalError:       {false, "The server hit a bug on this call and runs on; try another way, and report the call to its maintainers."},
	RecordingActive:     {false, "Stop the running recording with its stop_ tool first, or keep using it."},
	NoRecording:         {false, "Start a recording with its start_ tool first; one that reached its size or time bound has stopped already, and the result after it said so."},
}

// NavigationFailure classifies a navigation the browser refused or could
// not load, by the browser's error text netErr (Chromium's net::ERR_*,
// Firefox's NS_ERROR_*): a host that does not resolve or a connection that
// fails is NETWORK_ERROR, a URL the browser cannot parse INVALID_URL, and
// anything else NAVIGATION_FAILED. Each carries the url and netError.
func NavigationFailure(url, netErr string, cause error) *Error {
	msg := fmt.Sprintf("navigation to %s failed: %s", url, netErr)
	var e *Error
	switch reason := networkReasons[netErr]; {
	case reason != "":
		e = Wrap(NetworkError, cause, msg).With("reason", reason)
	case netErr == "Cannot navigate to invalid URL" || netErr == "NS_ERROR_MALFORMED_URI" ||
		strings.Contains(netErr, "invalid URL") || strings.Contains(netErr, "Invalid url") ||
		// Firefox over WebDriver BiDi, for a URL it cannot parse ("notaurl").
		strings.Contains(netErr, "(browsingContext.navigate): invalid argument"):
		e = Wrap(InvalidURL, cause, msg).With("field", "url").Suggest("Give an absolute URL such as https://example.com/.")
	default:
		e = Wrap(NavigationFailed, cause, msg)
	}
	return e.With("url", url).With("netError", netErr)
}

// networkReasons are the browsers' errors of a DNS or connection failure,
// each with the reason NETWORK_ERROR gives: dns, connection or offline.
var networkReasons = map[string]string{
	"net::ERR_NAME_NOT_RESOLVED":                 "dns",
	"net::ERR_NAME_RESOLUTION_FAILED":            "dns",
	"net::ERR_ADDRESS_INVALID":                   "dns",
	"net::ERR_CONNECTION_REFUSED":                "connection",
	"net::ERR_CONNECTION_RESET":                  "connection",
	"net::ERR_CONNECTION_CLOSED":                 "connection",
	"net::ERR_CONNECTION_ABORTED":                "connection",
	"net::ERR_CONNECTION_FAILED":                 "connection",
	"net::ERR_CONNECTION_TIMED_OUT":              "connection",
	"net::ERR_TIMED_OUT":                         "connection",
	"net::ERR_ADDRESS_UNREACHABLE":               "connection",
	"net::ERR_EMPTY_RESPONSE":                    "connection",
	"net::ERR_NETWORK_CHANGED":                   "connection",
	"net::ERR_PROXY_CONNECTION_FAILED":           "connection",
	"net::ERR_TUNNEL_CONNECTION_FAILED":          "connection",
	"net::ERR_SOCKS_CONNECTION_FAILED":           "connection",
	"net::ERR_SOCKS_CONNECTION_HOST_UNREACHABLE": "connection",
	"net::ERR_INTERNET_DISCONNECTED":             "offline",
	"NS_ERROR_UNKNOWN_HOST":                      "dns",
	"NS_ERROR_UNKNOWN_PROXY_HOST":                "dns",
	"NS_ERROR_CONNECTION_REFUSED":                "connection",
	"NS_ERROR_PROXY_CONNECTION_REFUSED":          "connection",
	"NS_ERROR_NET_RESET":                         "connection",
	"NS_ERROR_NET_INTERRUPT":                     "connection",
	"NS_ERROR_NET_TIMEOUT":                       "connection",
	"NS_ERROR_NET_EMPTY_RESPONSE":                "connection",
	"NS_ERROR_OFFLINE":                           "offline",
}

// Recovered turns a panic recovered from a call (recover's value) into an
// INTERNAL_ERROR; it is nil when there was none. The panic's value goes into
// the message, never a stack trace.
func Recovered(v any) *Error {
	if v == nil {
		return nil
	}
	return Errorf(InternalError, "internal error: %v", v)
}

// ErrInputBlocked is the cause of an ELEMENT_NOT_CLICKABLE whose input the
// page never received: the target moved away or was covered at the moment
// of the input, and the guard the element check set up stopped the input
// at the window, before any handler of the page saw it. Nothing happened,
// so Bound tries such an action again while its timeout lasts.
var ErrInputBlocked = errors.New("the input was stopped before the page received it")

// Error is the one error type that crosses the engine/tool boundary. Backends
// classify failures at their edge into an Error; the tool layer serialises it
// as {errorCode, message, sessionId?, details?, retryable, suggestion?} and
// never parses error text.
type Error struct {
	Code       Code
	Message    string
	SessionID  string
	Details    map[string]any
	Retryable  bool
	Suggestion string
	// Err is the underlying cause, kept for errors.Is/As and logs.
	Err error
}

// Errorf builds an Error with the code's default retryability and suggestion.
func Errorf(code Code, format string, args ...any) *Error {
	d := codeInfo[code]
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Retryable: d.retryable, Suggestion: d.suggestion}
}

// Wrap builds an Error around a cause. The message is the cause's text unless
// msg is given.
func Wrap(code Code, err error, msg string) *Error {
	if msg == "" && err != nil {
		msg = err.Error()
	}
	e := Errorf(code, "%s", msg)
	e.Err = err
	return e
}

// With adds one detail and returns e for chaining.
func (e *Error) With(key string, value any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	e.Details[key] = value
	return e
}

// Suggest replaces the default suggestion.
func (e *Error) Suggest(s string) *Error {
	e.Suggestion = s
	return e
}

func (e *Error) Error() string {
	if e.SessionID != "" {
		return fmt.Sprintf("%s: %s (session %s)", e.Code, e.Message, e.SessionID)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// MaxQuote is the most bytes of one string an error shows an agent: errors
// quote inputs (a URL, a selector), and an input may be large.
const MaxQuote = 1024

// Clipped returns e with its message and each string in its details cut to
// MaxQuote bytes, for the agent to read; e itself is left whole for logs.
func (e *Error) Clipped() *Error {
	c := *e
	c.Message = Clip(e.Message, MaxQuote)
	if e.Details != nil {
		c.Details = make(map[string]any, len(e.Details))
		for k, v := range e.Details {
			switch v := v.(type) {
			case string:
				c.Details[k] = Clip(v, MaxQuote)
			case []string:
				cs := make([]string, len(v))
				for i, s := range v {
					cs[i] = Clip(s, MaxQuote)
				}
				c.Details[k] = cs
			default:
				c.Details[k] = v
			}
		}
	}
	return &c
}

// Clip cuts s to at most n bytes (at a rune boundary), marking a cut with
// an ellipsis.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// Is makes errors.Is(err, &Error{Code: X}) match any Error with code X.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Message == "" && t.Code == e.Code
}

// CodeOf returns the code of err, or BrowserError when err is not an *Error.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return BrowserError
}

// AsError converts any error into an *Error. An unclassified error becomes a
// BROWSER_ERROR that keeps the cause, so nothing reaches the agent without a
// code.
func AsError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Wrap(BrowserError, err, "")
}

// DialogBlocked is the error of an action on tg that a dialog stopped
// before anything was done: the dialog opened while the element was being
// found or focused (a focus handler, a timer) and blocks the page.
func DialogBlocked(d Dialog, tg Target) *Error {
	return Errorf(DialogOpen, "a %s dialog (%q) opened before the action on %s was done; nothing was done", d.Type, d.Message, tg).
		With("dialog", &d).Suggest("Answer it with handle_dialog, then try again.")
}

// FileError classifies a failure to write a file the server keeps for the
// agent: a full disk or an exhausted quota is RESOURCE_EXHAUSTED, anything
// else code. msg says what could not be written.
func FileError(code Code, err error, msg string) *Error {
	if diskFull(err) {
		return Wrap(ResourceExhausted, err, msg+": the disk is full: "+err.Error()).With("reason", "disk_full")
	}
	return Wrap(code, err, msg+": "+err.Error())
}

package engine

import (
	"errors"
	"maps"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Each request type says, in one place, what its zero fields default to
// (WithDefaults) and how long a call with it may take at most (deadline):
// the waits it names plus CallGrace. Bound applies both before an engine
// sees the request.

// Validate refuses a URL the server never navigates to, and a timeout no
// call may take.
func (r NavigateRequest) Validate() error {
	if err := checkNavURL(r.URL, "url"); err != nil {
		return err
	}
	return checkTimeouts(map[string]time.Duration{"timeout": r.Timeout})
}

// CheckURL refuses a javascript: URL, which would run script in the page
// rather than load one (and so get around --enable-script-evaluation=false
// and the evaluate tool's checks). It reads the scheme as browsers do:
// leading spaces and control characters are dropped, tabs and newlines
// anywhere are ignored, case does not matter, and view-source: is looked
// through.
func CheckURL(raw, field string) error {
	s := strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, raw)
	s = strings.ToLower(strings.TrimLeft(s, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f "))
	for strings.HasPrefix(s, "view-source:") {
		s = strings.TrimPrefix(s, "view-source:")
	}
	if strings.HasPrefix(s, "javascript:") {
		return Errorf(InvalidURL, "javascript: URLs are refused: they run script instead of loading a page").With("field", field)
	}
	return nil
}

// checkNavURL is CheckURL for a URL to load, which must also parse: one
// that does not is INVALID_URL, as the security policy would refuse it
// anyway, before any browser reads it.
func checkNavURL(raw, field string) error {
	if err := CheckURL(raw, field); err != nil {
		return err
	}
	if _, err := url.Parse(raw); err != nil {
		return Errorf(InvalidURL, "%s is not a URL: %s", raw, unwrapURLError(err)).With("field", field).With("url", raw).
			Suggest("Give an absolute URL such as https://example.com/.")
	}
	return nil
}

// unwrapURLError is the reason of a url.Parse error, without the URL it
// quotes.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// WithDefaults returns r with its zero fields set to their defaults.
func (r NavigateRequest) WithDefaults() NavigateRequest {
	r.Timeout = orDefault(r.Timeout, DefaultNavigationTimeout)
	if r.WaitUntil == "" {
		r.WaitUntil = WaitLoad
	}
	return r
}

func (r NavigateRequest) deadline() time.Duration { return r.Timeout + CallGrace }

// WithDefaults returns r with its zero fields set to their defaults.
func (r ClickRequest) WithDefaults() ClickRequest {
	r.Timeout = orDefault(r.Timeout, DefaultActionTimeout)
	r.NavigationTimeout = orDefault(r.NavigationTimeout, DefaultNavigationTimeout)
	if r.ClickCount <= 0 {
		r.ClickCount = 1
	}
	if r.Button == "" {
		r.Button = ButtonLeft
	}
	return r
}

// Validate checks the button, the click count and the timeouts.
func (r ClickRequest) Validate() error {
	if err := validButton(r.Button); err != nil {
		return err
	}
	if err := checkClickCount(r.ClickCount); err != nil {
		return err
	}
	return checkTimeouts(map[string]time.Duration{"timeout": r.Timeout, "navigationTimeout": r.NavigationTimeout})
}

// checkClickCount refuses a negative click count or more than
// MaxClickCount clicks; 0 is the default, one click.
func checkClickCount(n int) error {
	if n < 0 || n > MaxClickCount {
		return Errorf(InvalidParameters, "clickCount must be between 0 and %d, got %d", MaxClickCount, n).With("field", "clickCount")
	}
	return nil
}

// validButton checks a mouse button name; "" is the default, left.
func validButton(b string) error {
	switch b {
	case "", ButtonLeft, ButtonRight, ButtonMiddle:
		return nil
	}
	return Errorf(InvalidParameters, "button must be left, right or middle, not %q", b).With("field", "button")
}

func (r ClickRequest) deadline() time.Duration {
	return actionDeadline(r.Timeout, r.NavigationTimeout)
}

// actionDeadline is the deadline of an element action: the wait for its
// element, then for what it started (a navigation, or requests and the
// page work they set off).
func actionDeadline(element, navigation time.Duration) time.Duration {
	return element + navigation + SettleMax + CallGrace
}

// WithDefaults returns r with its zero fields set to their defaults. The
// typing is bounded by the caller's timeout when there is one; else by the
// default wait for the element, the delays, and DefaultCallTimeout for the
// keys themselves.
func (r TypeRequest) WithDefaults() TypeRequest {
	if r.TypeTimeout <= 0 {
		r.TypeTimeout = r.Timeout
		if r.Timeout <= 0 {
			r.TypeTimeout = DefaultActionTimeout + DefaultCallTimeout + time.Duration(utf8.RuneCountInString(r.Text))*r.Delay
		}
	}
	r.Timeout = orDefault(r.Timeout, DefaultActionTimeout)
	r.NavigationTimeout = orDefault(r.NavigationTimeout, DefaultNavigationTimeout)
	return r
}

// Validate refuses what no call can do in time: delays that alone outlast
// the longest call.
func (r TypeRequest) Validate() error {
	if r.Delay < 0 || r.Delay > MaxKeyDelay {
		return Errorf(InvalidParameters, "delay must be between 0 and %s, got %s", MaxKeyDelay, r.Delay).With("field", "delay")
	}
	if n := time.Duration(utf8.RuneCountInString(r.Text)); r.Delay > 0 && n*r.Delay > MaxCallTimeout {
		return Errorf(InvalidParameters, "typing %d characters with a delay of %s takes %s, longer than a call may take (%s); lower delay or type less at a time",
			n, r.Delay, (n*r.Delay).Round(time.Second), MaxCallTimeout).With("field", "delay")
	}
	return checkTimeouts(map[string]time.Duration{"timeout": r.Timeout, "navigationTimeout": r.NavigationTimeout})
}

func (r TypeRequest) deadline() time.Duration {
	return r.TypeTimeout + r.NavigationTimeout + SettleNetworkMax + CallGrace
}

// TypingTimedOut is the TIMEOUT error of typing that did not end within
// the request's TypeTimeout; typed is how many characters were typed.
func TypingTimedOut(r TypeRequest, typed int) *Error {
	total := utf8.RuneCountInString(r.Text)
	return Errorf(Timeout, "typing into %s did not finish within %s: %d of %d characters were typed", r.Target, r.TypeTimeout, typed, total).
		With("deadlineMs", r.TypeTimeout.Milliseconds()).With("typed", typed).With("characters", total).
		Suggest("Give a longer timeout, or type a long text with fill.")
}

// checkTimeouts refuses a negative timeout or one over MaxCallTimeout.
func checkTimeouts(ts map[string]time.Duration) error {
	for _, f := range slices.Sorted(maps.Keys(ts)) {
		if d := ts[f]; d < 0 || d > MaxCallTimeout {
			return Errorf(InvalidParameters, "%s must be between 0 and %s, got %s", f, MaxCallTimeout, d).With("field", f)
		}
	}
	return nil
}

// WithDefaults returns r with its zero fields set to their defaults.
func (r DialogRequest) WithDefaults() DialogRequest {
	r.NavigationTimeout = orDefault(r.NavigationTimeout, DefaultNavigationTimeout)
	return r
}

func (r DialogRequest) deadline() time.Duration {
	return r.NavigationTimeout + SettleMax + CallGrace
}

// WithDefaults returns r with its zero fields set to their defaults.
func (r HoverRequest) WithDefaults() HoverRequest {
	r.Timeout = orDefault(r.Timeout, DefaultActionTimeout)
	return r
}

func (r HoverRequest) deadline() time.Duration {
	return actionDeadline(r.Timeout, DefaultNavigationTimeout)
}

// WithDefaults returns r with its zero fields set to their defaults.
func (r PressRequest) WithDefaults() PressRequest {
	r.Timeout = orDefault(r.Timeout, DefaultActionTimeout)
	return r
}

func (r PressRequest) deadline() time.Duration {
	return actionDeadline(r.Timeout, DefaultNavigationTimeout)
}

// WithDefaults returns r with its zero fields set to their defaults.
func (r DragRequest) WithDefaults() DragRequest {
	r.Timeout = orDefault(r.Timeout, DefaultActionTimeout)
	return r
}

func (r DragRequest) deadline() time.Duration {
	// Both elements are waited for, each up to Timeout.
	return actionDeadline(2*r.Timeout, DefaultNavigationTimeout)
}

// WithDefaults returns r with its zero fields set to their defaults.
func (r UploadRequest) WithDefaults() UploadRequest {
	r.Timeout = orDefault(r.Timeout, DefaultActionTimeout)
	return r
}

func (r UploadRequest) deadline() time.Duration {
	return actionDeadline(r.Timeout, DefaultNavigationTimeout)
}

// Validate checks that every file exists and is a regular file, before an
// engine touches the page.
func (r UploadRequest) Validate() error {
	for _, f := range r.Files {
		if st, err := os.Stat(f); err != nil || st.IsDir() {
			return Errorf(InvalidParameters, "file %q does not exist or is not a regular file", f).
				With("field", "files").With("path", f)
		}
	}
	return nil
}

// The mouse buttons a MouseRequest can name.
const (
	ButtonLeft   = "left"
	ButtonRight  = "right"
	ButtonMiddle = "middle"
)

// WithDefaults returns r with its zero fields set to their defaults.
func (r MouseRequest) WithDefaults() MouseRequest {
	if r.Button == "" {
		r.Button = ButtonLeft
	}
	if r.ClickCount <= 0 {
		r.ClickCount = 1
	}
	return r
}

func (r MouseRequest) deadline() time.Duration {
	return actionDeadline(0, DefaultNavigationTimeout)
}

// Validate checks the action and the button. Whether the point lies in the
// viewport only the page can tell.
func (r MouseRequest) Validate() error {
	if err := validButton(r.Button); err != nil {
		return err
	}
	if err := checkClickCount(r.ClickCount); err != nil {
		return err
	}
	switch r.Action {
	case "click", "move", "drag":
	default:
		return Errorf(InvalidParameters, "mouse action must be click, move or drag, not %q", r.Action).With("field", "action")
	}
	return nil
}

// InViewport checks that the request's points (both ends of a drag) lie
// in a viewport of w×h CSS pixels.
func (r MouseRequest) InViewport(w, h float64) error {
	pts := [][2]float64{{r.X, r.Y}}
	if r.Action == "drag" {
		pts = append(pts, [2]float64{r.ToX, r.ToY})
	}
	for _, p := range pts {
		if p[0] < 0 || p[1] < 0 || p[0] >= w || p[1] >= h {
			return Errorf(InvalidParameters, "point %.0f,%.0f is outside the %.0fx%.0f viewport", p[0], p[1], w, h).
				With("field", "x").With("viewport", map[string]float64{"width": w, "height": h})
		}
	}
	return nil
}

func (r EvalRequest) deadline() time.Duration {
	if r.Settle {
		return r.Timeout + DefaultScriptTimeout + DefaultNavigationTimeout + SettleMax + CallGrace
	}
	return r.Timeout + DefaultScriptTimeout + CallGrace
}

func (r TabsRequest) deadline() time.Duration {
	if r.Action == "new" && r.URL != "" {
		return DefaultNavigationTimeout + CallGrace
	}
	return DefaultCallTimeout
}

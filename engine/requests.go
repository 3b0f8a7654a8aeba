package engine

import (
	"os"
	"strings"
	"time"
)

// Each request type says, in one place, what its zero fields default to
// (WithDefaults) and how long a call with it may take at most (deadline):
// the waits it names plus CallGrace. Bound applies both before an engine
// sees the request.

// Validate refuses a URL the server never navigates to.
func (r NavigateRequest) Validate() error { return CheckURL(r.URL, "url") }

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

// Validate checks the button.
func (r ClickRequest) Validate() error { return validButton(r.Button) }

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

// WithDefaults returns r with its zero fields set to their defaults.
func (r TypeRequest) WithDefaults() TypeRequest {
	r.Timeout = orDefault(r.Timeout, DefaultActionTimeout)
	r.NavigationTimeout = orDefault(r.NavigationTimeout, DefaultNavigationTimeout)
	return r
}

func (r TypeRequest) deadline() time.Duration {
	return actionDeadline(r.Timeout, r.NavigationTimeout) + time.Duration(len([]rune(r.Text)))*r.Delay
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

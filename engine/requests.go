package engine

import (
	"os"
	"time"
)

// Each request type says, in one place, what its zero fields default to
// (withDefaults) and how long a call with it may take at most (deadline):
// the waits it names plus CallGrace. Bound applies both before an engine
// sees the request.

func (r NavigateRequest) withDefaults() NavigateRequest {
	r.Timeout = orDefault(r.Timeout, DefaultNavigationTimeout)
	if r.WaitUntil == "" {
		r.WaitUntil = WaitLoad
	}
	return r
}

func (r NavigateRequest) deadline() time.Duration { return r.Timeout + CallGrace }

func (r ClickRequest) withDefaults() ClickRequest {
	r.Timeout = orDefault(r.Timeout, DefaultActionTimeout)
	r.NavigationTimeout = orDefault(r.NavigationTimeout, DefaultNavigationTimeout)
	if r.ClickCount <= 0 {
		r.ClickCount = 1
	}
	return r
}

func (r ClickRequest) deadline() time.Duration {
	return actionDeadline(r.Timeout, r.NavigationTimeout)
}

// actionDeadline is the deadline of an element action: the wait for its
// element, then for what it started (a navigation, or requests).
func actionDeadline(element, navigation time.Duration) time.Duration {
	return element + navigation + SettleNetworkMax + CallGrace
}

func (r TypeRequest) withDefaults() TypeRequest {
	r.Timeout = orDefault(r.Timeout, DefaultActionTimeout)
	r.NavigationTimeout = orDefault(r.NavigationTimeout, DefaultNavigationTimeout)
	return r
}

func (r TypeRequest) deadline() time.Duration {
	return actionDeadline(r.Timeout, r.NavigationTimeout) + time.Duration(len([]rune(r.Text)))*r.Delay
}

func (r DialogRequest) withDefaults() DialogRequest {
	r.NavigationTimeout = orDefault(r.NavigationTimeout, DefaultNavigationTimeout)
	return r
}

func (r DialogRequest) deadline() time.Duration {
	return r.NavigationTimeout + SettleNetworkMax + CallGrace
}

func (r HoverRequest) withDefaults() HoverRequest {
	r.Timeout = orDefault(r.Timeout, DefaultActionTimeout)
	return r
}

func (r HoverRequest) deadline() time.Duration {
	return actionDeadline(r.Timeout, DefaultNavigationTimeout)
}

func (r PressRequest) withDefaults() PressRequest {
	r.Timeout = orDefault(r.Timeout, DefaultActionTimeout)
	return r
}

func (r PressRequest) deadline() time.Duration {
	return actionDeadline(r.Timeout, DefaultNavigationTimeout)
}

func (r DragRequest) withDefaults() DragRequest {
	r.Timeout = orDefault(r.Timeout, DefaultActionTimeout)
	return r
}

func (r DragRequest) deadline() time.Duration {
	// Both elements are waited for, each up to Timeout.
	return actionDeadline(2*r.Timeout, DefaultNavigationTimeout)
}

func (r UploadRequest) withDefaults() UploadRequest {
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

func (r MouseRequest) withDefaults() MouseRequest {
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
	switch r.Button {
	case "", ButtonLeft, ButtonRight, ButtonMiddle:
	default:
		return Errorf(InvalidParameters, "button must be left, right or middle, not %q", r.Button).With("field", "button")
	}
	switch r.Action {
	case "click", "move", "drag":
	default:
		return Errorf(InvalidParameters, "mouse action must be click, move or drag, not %q", r.Action).With("field", "action")
	}
	return nil
}

func (r EvalRequest) deadline() time.Duration {
	return r.Timeout + DefaultScriptTimeout + CallGrace
}

func (r TabsRequest) deadline() time.Duration {
	if r.Action == "new" && r.URL != "" {
		return DefaultNavigationTimeout + CallGrace
	}
	return DefaultCallTimeout
}

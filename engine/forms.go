package engine

import "time"

// The form actions (fill, select, check, scroll) act through in-page
// scripts (engine/page's), not input events, but they are actions all the
// same: Bound settles them and reports what they caused, as it does a
// click's (a <select> whose onchange navigates, a checkbox that opens a
// tab).

// FillRequest replaces the value of a text field, textarea or
// contenteditable element.
type FillRequest struct {
	Target Target
	Value  string
	// Timeout bounds the wait for the element.
	Timeout time.Duration
	// NavigationTimeout bounds the wait for a navigation the change starts.
	NavigationTimeout time.Duration
}

// SelectRequest selects the options of a <select> whose value or label is
// one of Values (one of them unless the select is multiple).
type SelectRequest struct {
	Target            Target
	Values            []string
	Timeout           time.Duration
	NavigationTimeout time.Duration
}

// Option is one <option> of a <select>.
type Option struct {
	Value string `json:"value" size:"1048576"`
	Label string `json:"label"`
}

// SelectResult is what Select did: the options now selected, and what
// the change caused.
type SelectResult struct {
	ActionResult
	Selected []Option
}

// CheckRequest checks (Checked) or unchecks a checkbox or radio, or the
// one inside the target (a label or a wrapper).
type CheckRequest struct {
	Target            Target
	Checked           bool
	Timeout           time.Duration
	NavigationTimeout time.Duration
}

// CheckResult is what SetChecked did. Changed is false when the element
// already had the state asked for: nothing was clicked.
type CheckResult struct {
	ActionResult
	Changed bool
}

// ScrollRequest scrolls the page by X,Y CSS pixels, or, with a Target, that
// element into view (the centre of the viewport).
type ScrollRequest struct {
	Target            *Target
	X, Y              int
	Timeout           time.Duration
	NavigationTimeout time.Duration
}

// ScrollResult is the page's scroll position after Scroll.
type ScrollResult struct {
	ActionResult
	ScrollX, ScrollY float64
	// MovedX and MovedY are how far a scroll by x,y moved the page: less
	// than asked, or 0, at its edge (0 for a scroll into view).
	MovedX, MovedY float64
}

// WithDefaults returns r with its zero fields set to their defaults.
func (r FillRequest) WithDefaults() FillRequest {
	r.Timeout = orDefault(r.Timeout, DefaultActionTimeout)
	r.NavigationTimeout = orDefault(r.NavigationTimeout, DefaultNavigationTimeout)
	return r
}

func (r FillRequest) deadline() time.Duration { return actionDeadline(r.Timeout, r.NavigationTimeout) }

// Validate checks the timeouts.
func (r FillRequest) Validate() error {
	return checkTimeouts(map[string]time.Duration{"timeout": r.Timeout, "navigationTimeout": r.NavigationTimeout})
}

// WithDefaults returns r with its zero fields set to their defaults.
func (r SelectRequest) WithDefaults() SelectRequest {
	r.Timeout = orDefault(r.Timeout, DefaultActionTimeout)
	r.NavigationTimeout = orDefault(r.NavigationTimeout, DefaultNavigationTimeout)
	return r
}

func (r SelectRequest) deadline() time.Duration {
	return actionDeadline(r.Timeout, r.NavigationTimeout)
}

// Validate checks that some value is given, and the timeouts.
func (r SelectRequest) Validate() error {
	if len(r.Values) == 0 {
		return Errorf(InvalidParameters, "values must list at least one option value or label").With("field", "values")
	}
	return checkTimeouts(map[string]time.Duration{"timeout": r.Timeout, "navigationTimeout": r.NavigationTimeout})
}

// WithDefaults returns r with its zero fields set to their defaults.
func (r CheckRequest) WithDefaults() CheckRequest {
	r.Timeout = orDefault(r.Timeout, DefaultActionTimeout)
	r.NavigationTimeout = orDefault(r.NavigationTimeout, DefaultNavigationTimeout)
	return r
}

// The state is read, clicked and read again, each within the element's
// wait at most.
func (r CheckRequest) deadline() time.Duration {
	return actionDeadline(3*r.Timeout, r.NavigationTimeout)
}

// Validate checks the timeouts.
func (r CheckRequest) Validate() error {
	return checkTimeouts(map[string]time.Duration{"timeout": r.Timeout, "navigationTimeout": r.NavigationTimeout})
}

// WithDefaults returns r with its zero fields set to their defaults.
func (r ScrollRequest) WithDefaults() ScrollRequest {
	r.Timeout = orDefault(r.Timeout, DefaultActionTimeout)
	r.NavigationTimeout = orDefault(r.NavigationTimeout, DefaultNavigationTimeout)
	return r
}

func (r ScrollRequest) deadline() time.Duration {
	return actionDeadline(r.Timeout, r.NavigationTimeout)
}

// Validate checks the timeouts.
func (r ScrollRequest) Validate() error {
	return checkTimeouts(map[string]time.Duration{"timeout": r.Timeout, "navigationTimeout": r.NavigationTimeout})
}

// what names a scroll for its errors.
func (r ScrollRequest) what() string {
	if r.Target != nil {
		return "scroll " + r.Target.String() + " into view"
	}
	return "scroll"
}

package engine

import (
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
)

// Target names one element: by Selector (CSS, or XPath) or by Ref, a handle
// from a snapshot. Exactly one is set; the tool layer enforces that.
type Target struct {
	Selector string
	Ref      string
}

// refPattern is the shape of every ref a snapshot hands out: eN, or fMeN
// inside frame M. No CSS type selector looks like it (HTML has no such
// elements, and custom element names need a hyphen).
var refPattern = regexp.MustCompile(`^(f[1-9][0-9]*)?e[1-9][0-9]*$`)

// IsRef reports whether s has the shape of a ref a snapshot hands out.
func IsRef(s string) bool { return refPattern.MatchString(s) }

// TargetOf reads a string that may be a selector or a ref, for tools whose
// parameter takes either (drag_and_drop's source and target).
func TargetOf(s string) Target {
	if IsRef(strings.TrimSpace(s)) {
		return Target{Ref: strings.TrimSpace(s)}
	}
	return Target{Selector: s}
}

// SelectorKind tells how a selector string is matched.
type SelectorKind int

// The selector kinds.
const (
	CSS SelectorKind = iota
	XPath
)

// DefaultTestIDAttribute is the attribute testid= selectors match, as
// Playwright's getByTestId.
const DefaultTestIDAttribute = "data-testid"

// testIDAttribute is the server's --test-id-attribute: one setting for
// every session, as selectors are parsed without one at hand.
var testIDAttribute atomic.Pointer[string]

// testIDPattern is what SetTestIDAttribute accepts: a name that needs no
// escaping in a CSS attribute selector.
var testIDPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,99}$`)

// SetTestIDAttribute sets the attribute that testid= selectors match for
// the whole process; the server calls it once, at startup.
func SetTestIDAttribute(name string) error {
	if err := CheckTestIDAttribute(name); err != nil {
		return err
	}
	testIDAttribute.Store(&name)
	return nil
}

// CheckTestIDAttribute refuses what SetTestIDAttribute would.
func CheckTestIDAttribute(name string) error {
	if !testIDPattern.MatchString(name) {
		return fmt.Errorf("want an attribute name of letters, digits, - and _, like %s", DefaultTestIDAttribute)
	}
	return nil
}

// TestIDAttribute is the attribute testid= selectors match.
func TestIDAttribute() string {
	if p := testIDAttribute.Load(); p != nil {
		return *p
	}
	return DefaultTestIDAttribute
}

// cssString quotes s as a CSS string.
func cssString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\%x ", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// ParseSelector splits a selector into its kind and expression. A selector is
// XPath when it starts with "/", "(" or "xpath="; "css=" forces CSS;
// "testid=VALUE" is the CSS selector of the elements whose test id
// attribute (TestIDAttribute) is VALUE, and so pierces shadow roots as CSS
// does.
func ParseSelector(s string) (SelectorKind, string) {
	s = strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(s, "testid="):
		return CSS, "[" + TestIDAttribute() + "=" + cssString(strings.TrimPrefix(s, "testid=")) + "]"
	case strings.HasPrefix(s, "xpath="):
		return XPath, strings.TrimPrefix(s, "xpath=")
	case strings.HasPrefix(s, "css="):
		return CSS, strings.TrimPrefix(s, "css=")
	case strings.HasPrefix(s, "/"), strings.HasPrefix(s, "("):
		return XPath, s
	}
	return CSS, s
}

// String describes the target for messages.
func (t Target) String() string {
	// A target names what an error is about; a long selector is cut.
	if t.Ref != "" {
		return "ref " + Clip(t.Ref, 64)
	}
	return "selector " + Clip(t.Selector, 200)
}

// IsZero reports whether t names no element.
func (t Target) IsZero() bool { return t.Selector == "" && t.Ref == "" }

package engine

import (
	"regexp"
	"strings"
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

// TargetOf reads a string that may be a selector or a ref, for tools whose
// parameter takes either (drag_and_drop's source and target).
func TargetOf(s string) Target {
	if refPattern.MatchString(strings.TrimSpace(s)) {
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

// ParseSelector splits a selector into its kind and expression. A selector is
// XPath when it starts with "/", "(" or "xpath="; "css=" forces CSS.
func ParseSelector(s string) (SelectorKind, string) {
	s = strings.TrimSpace(s)
	switch {
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

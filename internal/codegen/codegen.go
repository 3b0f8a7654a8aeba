// Package codegen writes Playwright code: the locator of an element
// (Locator), in TypeScript for @playwright/test and in Python for
// pytest-playwright. The testing tools use it for generate_locator, for
// the code line of every action (--codegen) and to export a recorded
// session as a test.
package codegen

import (
	"fmt"
	"strconv"
	"strings"
)

// Language is a language code is written in.
type Language string

// The languages.
const (
	None       Language = "none"
	TypeScript Language = "typescript"
	Python     Language = "python"
)

// ParseLanguage reads a --codegen value; "" is None.
func ParseLanguage(s string) (Language, error) {
	switch l := Language(strings.ToLower(strings.TrimSpace(s))); l {
	case "", None:
		return None, nil
	case TypeScript, "ts":
		return TypeScript, nil
	case Python, "py":
		return Python, nil
	default:
		return "", fmt.Errorf("unknown codegen language %q: want typescript, python or none", s)
	}
}

// The kinds of locator, in the order generate_locator tries them.
const (
	ByRole        = "role"
	ByLabel       = "label"
	ByPlaceholder = "placeholder"
	ByTestID      = "testid"
	ByText        = "text"
	ByCSS         = "css"
)

// Locator is a Playwright locator of one element.
type Locator struct {
	// Frames is the frameLocator chain to the element's frame, outermost
	// first: each a locator of the iframe element in its parent's
	// document. Empty for an element of the page itself.
	Frames []Locator `json:"frames,omitempty"`
	// Kind is one of the By* constants.
	Kind string `json:"kind"`
	// Role is the ARIA role of a ByRole locator.
	Role string `json:"role,omitempty"`
	// Name is a ByRole locator's accessible name; empty matches any.
	Name string `json:"name,omitempty"`
	// Value is the label, placeholder, test id, text or CSS selector of
	// the other kinds.
	Value string `json:"value,omitempty"`
	// Exact matches Name or Value whole and case-sensitively, rather than
	// as a case-insensitive substring (Playwright's default).
	Exact bool `json:"exact,omitempty"`
	// Nth picks the Nth match (0-based) of a locator that matches more than
	// one element: the last resort when none is unique. 0 is the first.
	Nth int `json:"nth,omitempty"`
	// First picks the first match of a locator that matches more than one
	// element when this element is it (Nth 0): .first().
	First bool `json:"first,omitempty"`
	// Visible keeps only the visible matches (.filter({ visible: true }),
	// Playwright 1.51): an assertion about any of several elements, which
	// the locator alone would fail in strict mode.
	Visible bool `json:"visible,omitempty"`
}

// In renders l in lang, rooted at page: `page.getByRole('button', {
// name: 'Submit' })` or `page.get_by_role("button", name="Submit")`.
func (l Locator) In(lang Language) string {
	if lang == Python {
		return l.Python()
	}
	return l.TypeScript()
}

// TypeScript renders l for @playwright/test.
func (l Locator) TypeScript() string {
	var b strings.Builder
	b.WriteString("page")
	for _, f := range l.Frames {
		b.WriteString(".frameLocator(" + TSString(f.cssForFrame()) + ")")
	}
	switch l.Kind {
	case ByRole:
		b.WriteString(".getByRole(" + TSString(l.Role))
		var opts []string
		if l.Name != "" {
			opts = append(opts, "name: "+TSString(l.Name))
		}
		if l.Exact && l.Name != "" {
			opts = append(opts, "exact: true")
		}
		if len(opts) > 0 {
			b.WriteString(", { " + strings.Join(opts, ", ") + " }")
		}
		b.WriteString(")")
	case ByLabel, ByPlaceholder, ByText:
		b.WriteString(".getBy" + map[string]string{ByLabel: "Label", ByPlaceholder: "Placeholder", ByText: "Text"}[l.Kind] + "(" + TSString(l.Value))
		if l.Exact {
			b.WriteString(", { exact: true }")
		}
		b.WriteString(")")
	case ByTestID:
		b.WriteString(".getByTestId(" + TSString(l.Value) + ")")
	default:
		b.WriteString(".locator(" + TSString(l.Value) + ")")
	}
	if l.Visible {
		b.WriteString(".filter({ visible: true })")
	}
	if l.Nth > 0 {
		b.WriteString(".nth(" + strconv.Itoa(l.Nth) + ")")
	} else if l.First {
		b.WriteString(".first()")
	}
	return b.String()
}

// Python renders l for pytest-playwright.
func (l Locator) Python() string {
	var b strings.Builder
	b.WriteString("page")
	for _, f := range l.Frames {
		b.WriteString(".frame_locator(" + PyString(f.cssForFrame()) + ")")
	}
	switch l.Kind {
	case ByRole:
		b.WriteString(".get_by_role(" + PyString(l.Role))
		if l.Name != "" {
			b.WriteString(", name=" + PyString(l.Name))
			if l.Exact {
				b.WriteString(", exact=True")
			}
		}
		b.WriteString(")")
	case ByLabel, ByPlaceholder, ByText:
		b.WriteString(".get_by_" + map[string]string{ByLabel: "label", ByPlaceholder: "placeholder", ByText: "text"}[l.Kind] + "(" + PyString(l.Value))
		if l.Exact {
			b.WriteString(", exact=True")
		}
		b.WriteString(")")
	case ByTestID:
		b.WriteString(".get_by_test_id(" + PyString(l.Value) + ")")
	default:
		b.WriteString(".locator(" + PyString(l.Value) + ")")
	}
	if l.Visible {
		b.WriteString(".filter(visible=True)")
	}
	if l.Nth > 0 {
		b.WriteString(".nth(" + strconv.Itoa(l.Nth) + ")")
	} else if l.First {
		b.WriteString(".first")
	}
	return b.String()
}

// cssForFrame is the selector frameLocator takes for an iframe: a frame's
// locator is always a CSS one (Kind ByCSS), as frameLocator takes only a
// selector.
func (l Locator) cssForFrame() string { return l.Value }

// TSString quotes s as a single-quoted JavaScript string literal.
func TSString(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch r {
		case '\'':
			b.WriteString(`\'`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\u2028':
			b.WriteString(`\u2028`)
		case '\u2029':
			b.WriteString(`\u2029`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// PyString quotes s as a double-quoted Python string literal.
func PyString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

package engine

import (
	"strings"
	"testing"
)

// FuzzParseSelector checks that every selector gets a kind and an
// expression that is the selector less at most its prefix, and that
// TargetOf takes a string for a ref only when it has a ref's shape.
func FuzzParseSelector(f *testing.F) {
	for _, s := range []string{"#id", "xpath=//a", "css=div > p", "//button", "(//a)[2]", " e12 ", "f1e3", "my-widget input", "", "xpath=", "css=/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		kind, expr := ParseSelector(s)
		trimmed := strings.TrimSpace(s)
		switch {
		case kind == XPath && strings.HasPrefix(trimmed, "xpath="):
			if expr != strings.TrimPrefix(trimmed, "xpath=") {
				t.Fatalf("ParseSelector(%q) = %q", s, expr)
			}
		case kind == CSS && strings.HasPrefix(trimmed, "css="):
			if expr != strings.TrimPrefix(trimmed, "css=") {
				t.Fatalf("ParseSelector(%q) = %q", s, expr)
			}
		case kind == XPath:
			if expr != trimmed || !(strings.HasPrefix(trimmed, "/") || strings.HasPrefix(trimmed, "(")) {
				t.Fatalf("ParseSelector(%q) = XPath %q", s, expr)
			}
		default:
			if kind != CSS || expr != trimmed {
				t.Fatalf("ParseSelector(%q) = %v %q", s, kind, expr)
			}
		}
		tg := TargetOf(s)
		if (tg.Ref != "") == (tg.Selector != "") && s != "" {
			t.Fatalf("TargetOf(%q) = %+v: want exactly one of ref and selector", s, tg)
		}
		if tg.Ref != "" && !refPattern.MatchString(tg.Ref) {
			t.Fatalf("TargetOf(%q) took %q for a ref", s, tg.Ref)
		}
	})
}

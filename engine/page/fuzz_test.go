package page

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
)

// FuzzParseKey checks that any key string, with any modifiers, either
// parses to a key from the table or is INVALID_PARAMETERS naming the field;
// it never panics.
func FuzzParseKey(f *testing.F) {
	for _, s := range []string{"Enter", "Control+A", "Control++", "+", "a", "ArrowDown", "shift+Tab", "Meta+Shift+z", "F5", "é", "Control+", "++", "", "space", "Cmd+c"} {
		f.Add(s, "Shift")
	}
	f.Fuzz(func(t *testing.T, key, mod string) {
		var extra []string
		if mod != "" {
			extra = strings.Split(mod, ",")
		}
		mods, k, err := ParseKey(key, extra)
		if err != nil {
			var e *engine.Error
			if !errors.As(err, &e) || e.Code != engine.InvalidParameters || (e.Details["field"] != "key" && e.Details["field"] != "modifiers") {
				t.Fatalf("ParseKey(%q, %q): %v is not INVALID_PARAMETERS on key or modifiers", key, extra, err)
			}
			return
		}
		if k == nil {
			t.Fatalf("ParseKey(%q, %q) returned no key and no error", key, extra)
		}
		for _, m := range mods {
			if m == nil || !map[string]bool{"Alt": true, "Control": true, "Meta": true, "Shift": true}[m.Key] {
				t.Fatalf("ParseKey(%q, %q) returned modifier %v", key, extra, m)
			}
		}
	})
}

// FuzzParseRef checks that a string parses as a ref exactly when it has a
// ref's shape, and that a parsed ref prints back as itself.
func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"e1", "f1e7", "e0", "f0e1", "e12a", "E1", "e-1", "f1", "", "e99999999999999999999", " e1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		alias, n, err := ParseRef(ref)
		if err != nil {
			if engine.CodeOf(err) != engine.InvalidParameters {
				t.Fatalf("ParseRef(%q): %v is not INVALID_PARAMETERS", ref, err)
			}
			return
		}
		if got := fmt.Sprintf("%se%d", alias, n); got != ref {
			t.Fatalf("ParseRef(%q) = %q, %d, which prints as %q", ref, alias, n, got)
		}
	})
}

package testenv

import (
	"regexp"
	"testing"
)

// RefOf returns the ref of the first element an outline shows as
// `- role "name" ... [ref=R]`, or fails the test; a named context's ref
// keeps its prefix (uk:e5).
func RefOf(tb testing.TB, outline, role, name string) string {
	tb.Helper()
	re := regexp.MustCompile(`- ` + regexp.QuoteMeta(role) + ` "` + regexp.QuoteMeta(name) + `"[^\n]*?\[ref=((?:[^\]\s:]+:)?(?:f[0-9]+)?e[0-9]+)\]`)
	m := re.FindStringSubmatch(outline)
	if m == nil {
		tb.Fatalf("no %s %q with a ref in the snapshot:\n%s", role, name, outline)
	}
	return m[1]
}

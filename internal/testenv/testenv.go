// Package testenv finds a browser for tests. Tests skip when none is
// installed, unless BROWSERMCP_REQUIRE_BROWSER=1 (set by CI), which turns
// the skip into a failure. It links no engine, so that any package's tests,
// and the conformance suite, can use it; the Playwright engine's part is in
// pwenv.
package testenv

import (
	"os"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine/browserpath"
)

// Chromium returns a Chromium binary for headless tests, or skips.
func Chromium(tb testing.TB) string {
	tb.Helper()
	p, err := ChromiumPath()
	if err != nil {
		NoBrowser(tb, err)
	}
	return p
}

// ChromiumPath returns a Chromium binary for headless use.
func ChromiumPath() (string, error) {
	return browserpath.FindChromium("", true)
}

// NoBrowser skips the test, or fails it when CI requires a browser.
func NoBrowser(tb testing.TB, err error) {
	tb.Helper()
	if os.Getenv("BROWSERMCP_REQUIRE_BROWSER") == "1" {
		tb.Fatalf("no browser, but BROWSERMCP_REQUIRE_BROWSER=1: %v", err)
	}
	tb.Skipf("no browser installed: %v", err)
}

// Package pwenv finds the Playwright engine's driver and browsers for
// tests. It is apart from testenv so that tests which do not drive
// engine/pw, and the conformance suite, do not link it.
package pwenv

import (
	"testing"

	"github.com/seed4af8c199/browsermcp/engine/pw"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// Playwright returns a checked Playwright engine configuration for browser,
// headless, or skips (fails under BROWSERMCP_REQUIRE_BROWSER=1) when the
// driver or the browser is missing.
func Playwright(tb testing.TB, browser string) pw.Config {
	tb.Helper()
	cfg := pw.Config{Browser: browser, Headless: true, DriverCandidates: []string{testenv.PlaywrightDriverDir()}}
	if _, err := pw.New(cfg); err != nil {
		testenv.NoBrowser(tb, err)
	}
	return cfg
}

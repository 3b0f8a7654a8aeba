package testenv

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine/pw"
)

// PlaywrightDriverDir is where `make pwdriver` puts the driver in this
// repository; FindDriver looks there after $PLAYWRIGHT_DRIVER_PATH.
func PlaywrightDriverDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", ".cache", "pwdriver")
}

// Playwright returns a checked Playwright engine configuration for browser,
// headless, or skips (fails under BROWSERMCP_REQUIRE_BROWSER=1) when the
// driver or the browser is missing.
func Playwright(tb testing.TB, browser string) pw.Config {
	tb.Helper()
	cfg := pw.Config{Browser: browser, Headless: true, DriverCandidates: []string{PlaywrightDriverDir()}}
	if _, err := pw.New(cfg); err != nil {
		NoBrowser(tb, err)
	}
	return cfg
}

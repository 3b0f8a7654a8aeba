package testenv

import (
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// pwtestInstall installs @playwright/test once per test binary.
var pwtestInstall sync.Mutex

// PlaywrightTest returns node and the node_modules directory that holds
// @playwright/test at the version testdata/pwtest/package.json pins (the
// driver's, Makefile PW_VERSION), installing it with npm when it is
// missing, without a browser download (make pwtest does the same). The
// tests that run an exported test use it with the system Chromium. It
// skips only when node is not installed, unless CI requires a browser.
func PlaywrightTest(tb testing.TB) (node, modules string) {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "testdata", "pwtest")
	node = npmInstalled(tb, &pwtestInstall, dir, "@playwright/test", filepath.Join("@playwright", "test", "cli.js"), "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1")
	return node, filepath.Join(dir, "node_modules")
}

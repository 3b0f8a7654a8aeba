package testenv

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
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
	node, err := exec.LookPath("node")
	if err != nil {
		NoBrowser(tb, err)
	}
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "..", "..", "testdata", "pwtest")
	pwtestInstall.Lock()
	defer pwtestInstall.Unlock()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@playwright", "test", "cli.js")); err != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		install := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund")
		install.Dir = dir
		install.Env = append(os.Environ(), "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1")
		if out, err := install.CombinedOutput(); err != nil {
			tb.Fatalf("npm install of @playwright/test: %v\n%s", err, out)
		}
	}
	return node, filepath.Join(dir, "node_modules")
}

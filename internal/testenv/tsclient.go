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

// tsInstall installs the TypeScript SDK once per test binary.
var tsInstall sync.Mutex

// TSClient returns node and the directory that holds the official MCP
// TypeScript SDK client scripts (internal/httpserve/testdata/tsclient),
// installing the SDK there with npm when it is missing (make tsclient does
// the same). It skips only when node is not installed, unless CI requires
// a browser, where node is part of the setup.
func TSClient(tb testing.TB) (node, dir string) {
	tb.Helper()
	_, file, _, _ := runtime.Caller(0)
	dir = filepath.Join(filepath.Dir(file), "..", "httpserve", "testdata", "tsclient")
	node = npmInstalled(tb, &tsInstall, dir, "the TypeScript SDK", filepath.Join("@modelcontextprotocol", "sdk", "package.json"))
	return node, dir
}

// npmInstalled returns node, having run npm install in dir (under mu, with
// env added) when dir's node_modules lacks the file marker: what, the
// package, names it in a failure. It skips only when node is not
// installed, unless CI requires a browser.
func npmInstalled(tb testing.TB, mu *sync.Mutex, dir, what, marker string, env ...string) string {
	tb.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		NoBrowser(tb, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", marker)); err != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		install := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund")
		install.Dir = dir
		install.Env = append(os.Environ(), env...)
		if out, err := install.CombinedOutput(); err != nil {
			tb.Fatalf("npm install of %s: %v\n%s", what, err, out)
		}
	}
	return node
}

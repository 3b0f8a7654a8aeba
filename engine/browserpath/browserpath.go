// Package browserpath finds the Chromium binary an engine launches: the
// --executable-path flag, then the environment variable Env, then the
// usual names on PATH. Both engine/cdp and engine/pw (for Chromium) use it,
// so that one flag and one variable choose the browser for every engine.
package browserpath

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Env names the environment variable that points at the browser binary
// when --executable-path is not given.
const Env = "BROWSERMCP_EXECUTABLE_PATH"

// chromiumCandidates are searched in PATH, in order.
var chromiumCandidates = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// headlessShellCandidates are preferred in headless mode: the headless shell
// costs about half as much memory per browser context as full Chromium.
var headlessShellCandidates = []string{"chromium-headless-shell", "chrome-headless-shell"}

// FindChromium returns the browser binary to launch: flag, then the
// environment variable, then PATH. In headless mode without an explicit
// choice, a headless shell on PATH wins over full Chromium.
func FindChromium(flag string, headless bool) (string, error) {
	if flag != "" {
		return lookExec(flag, "--executable-path")
	}
	if env := os.Getenv(Env); env != "" {
		return lookExec(env, Env)
	}
	names := chromiumCandidates
	if headless {
		names = append(append([]string{}, headlessShellCandidates...), names...)
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return unwrap(p), nil
		}
	}
	return "", fmt.Errorf("no Chromium found in PATH (looked for %s): install one with `apt-get install -y chromium` (Debian/Ubuntu), or point --executable-path or %s at a Chrome or Chromium binary",
		strings.Join(names, ", "), Env)
}

// debianWrappers maps Debian launcher scripts that do not exec to the
// binaries they run. Launching the binary directly saves a shell and lets
// the parent-death signal reach the browser itself.
var debianWrappers = map[string]string{
	"/usr/bin/chromium-headless-shell": "/usr/lib/chromium/chromium-headless-shell",
}

func unwrap(p string) string {
	if real, ok := debianWrappers[p]; ok {
		if _, err := os.Stat(real); err == nil {
			return real
		}
	}
	return p
}

func lookExec(p, source string) (string, error) {
	full, err := exec.LookPath(p)
	if err != nil {
		return "", fmt.Errorf("%s %q is not an executable browser: %w", source, p, err)
	}
	return full, nil
}

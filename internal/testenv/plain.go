package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// PlainChromium starts Chromium as a user would for --cdp-endpoint, with
// none of browsermcp's switches: only what this machine needs (headless,
// no sandbox as root, a debugging port, a throwaway profile, no background
// networking). It returns the browser's DevTools host, http://127.0.0.1:PORT,
// and kills the browser when the test ends.
func PlainChromium(tb testing.TB) string {
	tb.Helper()
	profile := tb.TempDir()
	args := []string{"--headless", "--remote-debugging-port=0", "--user-data-dir=" + profile,
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "about:blank"}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	browser := exec.Command(Chromium(tb), args...)
	// Debian's launchers are shell scripts that do not exec: kill the group.
	browser.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := browser.Start(); err != nil {
		tb.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { browser.Wait(); close(exited) }()
	tb.Cleanup(func() {
		syscall.Kill(-browser.Process.Pid, syscall.SIGKILL)
		<-exited
	})
	var port string
	Eventually(tb, "the plain browser to report its debugging port", func() (bool, error) {
		select {
		case <-exited:
			tb.Fatalf("the plain browser exited: %v", browser.ProcessState)
		default:
		}
		b, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort"))
		port = strings.SplitN(string(b), "\n", 2)[0]
		return err == nil && port != "", err
	})
	return "http://127.0.0.1:" + port
}

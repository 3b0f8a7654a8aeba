package testenv

import (
	"fmt"
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

// LineDiff shows the first line where got differs from want, for a test
// that compares two outlines; "" when they are equal.
func LineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n  want: %s\n  got:  %s", i+1, a, b)
		}
	}
	return ""
}

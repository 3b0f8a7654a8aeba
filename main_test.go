package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// The tests in this file call run, main's whole program, in process; those
// in stdio_test.go and engines_stdio_test.go build the binary and run it.

// noEnv is an environment with no BROWSERMCP_* variables set.
func noEnv(string) string { return "" }

func TestFlagErrorsExitTwoNamingTheFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--viewport-size", "big"}, "viewport-size"},
		{[]string{"--viewport-size", "0x10"}, "viewport-size"},
		{[]string{"--sessionTimeout", "-5"}, "sessionTimeout"},
		{[]string{"--session-timeout", "soon"}, "session-timeout"},
		{[]string{"--maxSessions", "0"}, "maxSessions"},
		{[]string{"--max-sessions", "0"}, "max-sessions"},
		{[]string{"--max-sessions", "x"}, "max-sessions"},
		{[]string{"--browser", "netscape"}, "browser"},
		{[]string{"--browser", "lynx"}, "browser"},
		{[]string{"--caps", "network,telepathy"}, "caps"},
		{[]string{"--headless=maybe"}, "headless"},
		{[]string{"--no-such-flag"}, "no-such-flag"},
		{[]string{"--nope"}, "nope"},
		// The playwright engine runs one browser: a pool is refused, not
		// ignored; so is one that cannot be.
		{[]string{"--browser", "firefox", "--pool-max-browsers", "2"}, "pool-max-browsers"},
		{[]string{"--engine", "playwright", "--pool-min-browsers", "2"}, "pool-min-browsers"},
		{[]string{"--cdp-endpoint", "http://127.0.0.1:9", "--pool-max-browsers", "2"}, "pool-max-browsers"},
		{[]string{"--pool-max-browsers", "2", "--pool-min-browsers", "3"}, "pool-min-browsers"},
		{[]string{"--pool-max-browsers", "0"}, "pool-max-browsers"},
		{[]string{"--pool-idle-timeout", "-1"}, "pool-idle-timeout"},
	} {
		var out, errb bytes.Buffer
		code := run(c.args, noEnv, strings.NewReader(""), &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), c.flag) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %s", c.args, code, errb.String(), c.flag)
		}
		if out.Len() != 0 {
			t.Errorf("%v wrote to stdout: %q", c.args, out.String())
		}
	}
}

func TestHelpAndVersion(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"--help"}, os.Getenv, strings.NewReader(""), &out, &errb); code != 0 || !strings.Contains(out.String(), "-cdp-endpoint") {
		t.Fatalf("--help: exit %d, %q", code, out.String())
	}
	out.Reset()
	if code := run([]string{"--version"}, os.Getenv, strings.NewReader(""), &out, &errb); code != 0 || !strings.HasPrefix(out.String(), "browsermcp ") {
		t.Fatalf("--version: exit %d, %q", code, out.String())
	}
}

func TestMissingBrowserFailsAtStartup(t *testing.T) {
	var out, errb bytes.Buffer
	t.Setenv("PATH", t.TempDir())
	t.Setenv("BROWSERMCP_EXECUTABLE_PATH", "")
	code := run([]string{"--headless"}, os.Getenv, strings.NewReader(""), &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "--executable-path") || !strings.Contains(errb.String(), "apt-get install") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	code = run([]string{"--executable-path", "/nonexistent/chrome"}, os.Getenv, strings.NewReader(""), &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "/nonexistent/chrome") {
		t.Fatalf("bad --executable-path: exit %d, stderr %q", code, errb.String())
	}
}

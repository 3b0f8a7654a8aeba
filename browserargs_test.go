package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// switchValues are the values of every --name=... switch on the command
// line of process pid, in order.
func switchValues(t *testing.T, pid int, name string) []string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range strings.Split(string(b), "\x00") {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			out = append(out, v)
		}
	}
	return out
}

// checkMergedFeatures checks that the browser pid got one --disable-features
// holding ours (Translate) and the user's (extra).
func checkMergedFeatures(t *testing.T, pid int, extra string) {
	t.Helper()
	got := switchValues(t, pid, "disable-features")
	if len(got) != 1 || !strings.Contains(","+got[0]+",", ",Translate,") || !strings.Contains(","+got[0]+",", ","+extra+",") {
		t.Fatalf("--disable-features of the browser = %q, want one value with Translate and %s", got, extra)
	}
}

// TestBrowserArgs passes extra switches with --browser-arg to the browser
// the server launches and to the Grid's browsers: --lang shows in the
// page's navigator.language, and a --disable-features merges into ours, one
// switch on the browser's command line. Switches the server owns are
// refused at startup with status 2.
func TestBrowserArgs(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	const feature = "AutofillServerCommunication"
	args := []string{"--browser-arg=--force-prefers-reduced-motion", "--browser-arg", "--disable-features=" + feature}
	reduced := func(s *proc, id string) string {
		s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
		return fmt.Sprint(s.ok("evaluate", map[string]any{"sessionId": id, "script": "matchMedia('(prefers-reduced-motion: reduce)').matches"})["result"])
	}

	t.Run("Local", func(t *testing.T) {
		s := startBinary(t, args...)
		id := s.ok("create_session", nil)["sessionId"].(string)
		if got := reduced(s, id); got != "true" {
			t.Fatalf("prefers-reduced-motion: reduce matches = %s, want true", got)
		}
		pid := mainBrowserPID(s.tmp)
		if pid == 0 {
			t.Fatalf("no browser process under %s", s.tmp)
		}
		checkMergedFeatures(t, pid, feature)
	})

	// Every browser of a pool is launched alike: the same switches, ours
	// and the user's merged, and a profile of its own under the runtime
	// directory.
	t.Run("Pool", func(t *testing.T) {
		s := startBinary(t, append(args, "--pool-min-browsers", "2")...)
		for range 2 {
			id := s.ok("create_session", nil)["sessionId"].(string)
			if got := reduced(s, id); got != "true" {
				t.Fatalf("prefers-reduced-motion: reduce matches = %s, want true", got)
			}
		}
		pids := s.waitBrowsers(2, "for a pool of two")
		var rest []string
		profiles := map[string]bool{}
		for _, pid := range pids {
			checkMergedFeatures(t, pid, feature)
			dirs := switchValues(t, pid, "user-data-dir")
			if len(dirs) != 1 || !strings.HasPrefix(dirs[0], filepath.Join(s.tmp, "browsermcp-runtime")+"/") {
				t.Fatalf("browser %d has profile %q; want one under the runtime directory", pid, dirs)
			}
			profiles[dirs[0]] = true
			b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			var other []string
			for _, a := range strings.Split(string(b), "\x00")[1:] {
				if !strings.HasPrefix(a, "--user-data-dir=") {
					other = append(other, a)
				}
			}
			slices.Sort(other)
			if rest != nil && !slices.Equal(rest, other) {
				t.Fatalf("the pool's browsers were launched differently:\n%q\n%q", rest, other)
			}
			rest = other
		}
		if len(profiles) != 2 {
			t.Fatalf("the two browsers share a profile: %v", profiles)
		}
	})

	t.Run("Grid", func(t *testing.T) {
		g := testenv.StartGrid(t)
		s := startBinary(t, gridArgs(t, g, args...)...)
		id := s.ok("create_session", nil)["sessionId"].(string)
		if got := reduced(s, id); got != "true" {
			t.Fatalf("prefers-reduced-motion: reduce matches on the Grid = %s, want true", got)
		}
		gs := g.Session(t, id)
		if gs == nil {
			t.Fatalf("session %s is not on the Grid", id)
		}
		checkMergedFeatures(t, g.BrowserPID(t, *gs), feature)
	})

	bin := buildBinary(t)
	refused := map[string][]string{
		"--remote-debugging-port=9222": {"--browser-arg=--remote-debugging-port=9222"},
		"--user-data-dir":              {"--browser-arg=--user-data-dir=/tmp/x"},
		"--remote-debugging-pipe":      {"--browser-arg=--remote-debugging-pipe"},
		"not a browser switch":         {"--browser-arg=lang=fr"},
		"--cdp-endpoint":               {"--browser-arg=--lang=fr", "--cdp-endpoint", "http://127.0.0.1:1"},
	}
	for want, args := range refused {
		t.Run("Refused"+strings.Fields(want)[0], func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, args...)
			cmd.Stdin = strings.NewReader("")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 {
				t.Fatalf("%v: exit = %v, want status 2; stderr:\n%s", args, err, stderr.String())
			}
			if !strings.Contains(stderr.String(), "browser-arg") || !strings.Contains(stderr.String(), strings.Split(want, "=")[0]) {
				t.Fatalf("%v: stderr must name --browser-arg and %s:\n%s", args, want, stderr.String())
			}
		})
	}
}

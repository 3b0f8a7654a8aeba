package install

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine/pw"
)

// TestPlan checks how each kind of system gets a browser: apt-get run by
// install as root or with a password-less sudo, and otherwise the one
// command to run.
func TestPlan(t *testing.T) {
	debian := system{goos: "linux", id: "debian", apt: true}
	cases := []struct {
		name    string
		sys     system
		browser string
		steps   []string // each step's argv, joined
		manual  string   // in the plan's manual command
	}{
		{"debian root", with(debian, func(s *system) { s.root = true }), pw.Firefox,
			[]string{"env DEBIAN_FRONTEND=noninteractive apt-get update -qq", "env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq firefox-esr"},
			"apt-get install -y firefox-esr"},
		{"debian sudo", with(debian, func(s *system) { s.sudo = true }), pw.Chromium,
			[]string{"sudo -n env DEBIAN_FRONTEND=noninteractive apt-get update -qq", "sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium"},
			"sudo apt-get install -y chromium"},
		{"debian without sudo", debian, pw.Firefox, nil, "`sudo apt-get install -y firefox-esr`"},
		{"ubuntu root", system{goos: "linux", id: "ubuntu", idLike: []string{"debian"}, apt: true, root: true}, pw.Firefox,
			[]string{"env DEBIAN_FRONTEND=noninteractive apt-get update -qq", "env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq firefox"},
			"apt-get install -y firefox"},
		{"debian without apt-get", system{goos: "linux", id: "debian", root: true}, pw.Firefox, nil, "package manager"},
		{"fedora", system{goos: "linux", id: "fedora", root: true}, pw.Firefox, nil, "`sudo dnf install -y firefox`"},
		{"macOS", system{goos: "darwin"}, pw.Chromium, nil, "`brew install --cask chromium`"},
		{"unknown", system{goos: "linux", id: "plan9"}, pw.Firefox, nil, "Firefox 138 or newer with this system's package manager"},
	}
	for _, c := range cases {
		p := plan(c.sys, c.browser)
		var steps []string
		for _, s := range p.steps {
			steps = append(steps, strings.Join(s.argv, " "))
			if s.timeout <= 0 {
				t.Errorf("%s: step %v has no deadline", c.name, s.argv)
			}
		}
		if !slices.Equal(steps, c.steps) {
			t.Errorf("%s: steps %q, want %q", c.name, steps, c.steps)
		}
		if !strings.Contains(p.manual, c.manual) {
			t.Errorf("%s: manual %q lacks %q", c.name, p.manual, c.manual)
		}
	}
}

func with(s system, f func(*system)) system { f(&s); return s }

func TestOSRelease(t *testing.T) {
	f := filepath.Join(t.TempDir(), "os-release")
	os.WriteFile(f, []byte("NAME=\"Ubuntu\"\nID=ubuntu\nID_LIKE=\"debian foo\"\n"), 0o600)
	id, like := osRelease(f)
	if id != "ubuntu" || !slices.Equal(like, []string{"debian", "foo"}) {
		t.Errorf("osRelease = %q, %q", id, like)
	}
}

// TestRunHasADeadline checks that a command that outlives its deadline is
// stopped and reported as such.
func TestRunHasADeadline(t *testing.T) {
	var out bytes.Buffer
	in := installer{out: &out}
	err := in.run(context.Background(), 200*time.Millisecond, "sleep", "60")
	if err == nil || !strings.Contains(err.Error(), "did not finish within 200ms") {
		t.Fatalf("run = %v, want a deadline error", err)
	}
}

// TestBrowserWithoutAWayNamesTheCommand checks that a system install
// cannot change fails naming the command to run, having run nothing.
func TestBrowserWithoutAWayNamesTheCommand(t *testing.T) {
	var out bytes.Buffer
	in := installer{out: &out, sys: system{goos: "linux", id: "debian", apt: true}}
	err := in.browser(context.Background(), pw.Firefox)
	if err == nil || !strings.Contains(err.Error(), "sudo apt-get install -y firefox-esr") {
		t.Fatalf("browser = %v", err)
	}
	if out.Len() != 0 {
		t.Errorf("it printed %q", out.String())
	}
}

package install

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/seed4af8c199/browsermcp/engine/pw"
)

// system is what decides how a browser is installed here.
type system struct {
	goos   string
	id     string   // ID of /etc/os-release: debian, ubuntu, fedora, ...
	idLike []string // its ID_LIKE
	// apt is set when apt-get is in PATH.
	apt bool
	// root: we run as root; sudo: `sudo -n` works without a password.
	root, sudo bool
}

func hostSystem() system {
	s := system{goos: runtime.GOOS, root: os.Geteuid() == 0}
	s.id, s.idLike = osRelease("/etc/os-release")
	_, err := exec.LookPath("apt-get")
	s.apt = err == nil
	if !s.root && s.apt {
		if sudo, err := exec.LookPath("sudo"); err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
			defer cancel()
			s.sudo = exec.CommandContext(ctx, sudo, "-n", "true").Run() == nil
		}
	}
	return s
}

// osRelease reads ID and ID_LIKE from an os-release file.
func osRelease(path string) (id string, like []string) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		v = strings.Trim(v, `"'`)
		switch k {
		case "ID":
			id = v
		case "ID_LIKE":
			like = strings.Fields(v)
		}
	}
	return id, like
}

func (s system) is(id string) bool { return s.id == id || slices.Contains(s.idLike, id) }

// step is one command of an installation, with its deadline.
type step struct {
	argv    []string
	timeout time.Duration
}

// installPlan is how a browser gets installed: the steps install runs
// itself (none when it cannot), and the one command a person runs.
type installPlan struct {
	steps  []step
	manual string
}

// plan says how to install browser (pw.Firefox or pw.Chromium) on s. Only
// apt-get is run by install itself, as root or with a sudo that needs no
// password; elsewhere the plan is the command to run.
func plan(s system, browser string) installPlan {
	if s.goos == "linux" && s.apt && (s.is("debian") || s.is("ubuntu")) {
		// Debian ships Firefox ESR; Ubuntu's firefox and chromium-browser
		// packages install the snaps.
		pkg := map[string]string{pw.Firefox: "firefox-esr", pw.Chromium: "chromium"}[browser]
		if s.is("ubuntu") {
			pkg = map[string]string{pw.Firefox: "firefox", pw.Chromium: "chromium-browser"}[browser]
		}
		var prefix []string
		switch {
		case s.root:
		case s.sudo:
			prefix = []string{"sudo", "-n"}
		}
		manual := "apt-get install -y " + pkg
		if !s.root {
			manual = "sudo " + manual
		}
		if !s.root && !s.sudo {
			return installPlan{manual: "run `" + manual + "` (as root, or with sudo, which asks for a password here)"}
		}
		// env passes the variable through sudo, which resets the
		// environment.
		prefix = append(prefix, "env", "DEBIAN_FRONTEND=noninteractive")
		return installPlan{manual: manual, steps: []step{
			{append(slices.Clone(prefix), "apt-get", "update", "-qq"), aptUpdateTimeout},
			{append(slices.Clone(prefix), "apt-get", "install", "-y", "-qq", pkg), aptInstallTimeout},
		}}
	}
	var cmd string
	switch {
	case s.goos == "darwin":
		cmd = map[string]string{pw.Firefox: "brew install --cask firefox", pw.Chromium: "brew install --cask chromium"}[browser]
	case s.goos == "windows":
		cmd = map[string]string{pw.Firefox: "winget install Mozilla.Firefox", pw.Chromium: "winget install Google.Chrome"}[browser]
	case s.goos == "linux" && (s.is("fedora") || s.is("rhel")):
		cmd = "sudo dnf install -y " + map[string]string{pw.Firefox: "firefox", pw.Chromium: "chromium"}[browser]
	case s.goos == "linux" && s.is("arch"):
		cmd = "sudo pacman -S --noconfirm " + map[string]string{pw.Firefox: "firefox", pw.Chromium: "chromium"}[browser]
	case s.goos == "linux" && (s.is("alpine")):
		cmd = "sudo apk add " + map[string]string{pw.Firefox: "firefox", pw.Chromium: "chromium"}[browser]
	}
	what := map[string]string{pw.Firefox: "Firefox 138 or newer", pw.Chromium: "Chromium or Chrome"}[browser]
	if cmd == "" {
		return installPlan{manual: "install " + what + " with this system's package manager, or point --executable-path at one"}
	}
	return installPlan{manual: "run `" + cmd + "` (" + what + "), or point --executable-path at one"}
}

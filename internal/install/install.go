// Package install is `browsermcp install`: it sets up what the Playwright
// engine and the browsers need on a machine that has only the binary (from
// npx or `go install`), without a checkout and without Playwright's CDN.
//
//   - driver assembles the Playwright driver the engine pins (playwright-core
//     from npm, laid out as DIR/package plus DIR/node, a link to the system's
//     node) in the user's cache directory, where the server looks for it
//     (pw.InstalledDriverDir).
//   - firefox installs the driver, then a stock Firefox with the system's
//     package manager when none is found: apt-get on Debian and Ubuntu, as
//     root or with sudo. Elsewhere it prints the one command that does.
//   - chromium installs Chromium the same way (the default cdp engine needs
//     no driver).
//   - webkit fails with what it needs: Playwright's WebKit build comes only
//     from Playwright's CDN, which this command never uses.
//
// Everything it prints goes to stderr, as the server's logs do. Every
// command it runs has a deadline.
package install

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/seed4af8c199/browsermcp/engine/browserpath"
	"github.com/seed4af8c199/browsermcp/engine/pw"
)

// The deadlines of the commands install runs.
const (
	probeTimeout      = 30 * time.Second // node --version, sudo -n true, the driver's --version
	npmTimeout        = 10 * time.Minute // npm install playwright-core
	aptUpdateTimeout  = 5 * time.Minute
	aptInstallTimeout = 20 * time.Minute
)

// minNode is the oldest node playwright-core 1.52 runs on.
const minNode = 18

// Usage is the help of `browsermcp install`.
const Usage = `Usage: browsermcp install driver|firefox|chromium|webkit

  driver    assemble the Playwright driver (playwright-core ` + pw.DriverVersion + ` from npm;
            needs node >= 18 and npm) in the user's cache directory, where
            the server looks for it; --browser firefox and --engine playwright
            need it
  firefox   the driver, and Firefox (apt-get install firefox-esr on Debian,
            as root or with sudo; elsewhere the command to run is printed)
  chromium  Chromium for the default engine (apt-get install chromium on
            Debian, as root or with sudo)
  webkit    not installable here: Playwright's WebKit build comes only from
            Playwright's CDN

Progress goes to stderr. Without a subcommand, or with serve, browsermcp is
the MCP server.
`

// ErrUsage marks a bad command line (exit status 2).
var ErrUsage = errors.New("usage")

// Main runs `browsermcp install args...` and returns the exit status: 0
// done, 1 failed, 2 a bad command line.
func Main(ctx context.Context, args []string, stderr io.Writer) int {
	err := Run(ctx, args, stderr)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, ErrUsage):
		fmt.Fprintf(stderr, "browsermcp install: %v\n\n%s", strings.TrimPrefix(err.Error(), ErrUsage.Error()+": "), Usage)
		return 2
	default:
		fmt.Fprintln(stderr, "browsermcp install:", err)
		return 1
	}
}

// Run installs each target of args in turn.
func Run(ctx context.Context, args []string, stderr io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: name what to install", ErrUsage)
	}
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		fmt.Fprint(stderr, Usage)
		return nil
	}
	for _, a := range args {
		switch a {
		case "driver", "firefox", "chromium", "webkit":
		default:
			return fmt.Errorf("%w: unknown target %q: want driver, firefox, chromium or webkit", ErrUsage, a)
		}
	}
	in := installer{out: stderr, sys: hostSystem()}
	for _, a := range args {
		var err error
		switch a {
		case "driver":
			_, err = in.driver(ctx)
		case "firefox":
			err = in.firefox(ctx)
		case "chromium":
			err = in.chromium(ctx)
		case "webkit":
			err = in.webkit()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

type installer struct {
	out io.Writer
	sys system
}

func (in installer) say(format string, a ...any) {
	fmt.Fprintf(in.out, "browsermcp install: "+format+"\n", a...)
}

// driver makes sure the pinned driver is in pw.InstalledDriverDir and
// returns it.
func (in installer) driver(ctx context.Context) (pw.Driver, error) {
	dir, err := pw.InstalledDriverDir()
	if err != nil {
		return pw.Driver{}, err
	}
	if env := os.Getenv(pw.EnvDriverPath); env != "" {
		in.say("note: %s is set (%s); the server looks only there while it is set", pw.EnvDriverPath, env)
	}
	if drv, err := pw.FindDriver(dir); err == nil {
		in.say("the Playwright driver %s is already in %s", pw.DriverVersion, dir)
		return drv, nil
	}
	node, err := checkNode(ctx)
	if err != nil {
		return pw.Driver{}, err
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return pw.Driver{}, fmt.Errorf("the Playwright driver needs npm, which is not in PATH: install it (Debian/Ubuntu: `apt-get install -y npm`) and run `%s` again", pw.InstallCommand)
	}
	in.say("assembling the Playwright driver %s from npm (playwright-core@%s) into %s...", pw.DriverVersion, pw.DriverVersion, dir)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return pw.Driver{}, err
	}
	// Everything is built beside dir and renamed into place last, so that
	// an interrupted install leaves nothing the server would take for a
	// driver.
	work, err := os.MkdirTemp(filepath.Dir(dir), ".pwdriver-")
	if err != nil {
		return pw.Driver{}, err
	}
	defer os.RemoveAll(work)
	fetch := filepath.Join(work, "npm")
	if err := os.Mkdir(fetch, 0o755); err != nil {
		return pw.Driver{}, err
	}
	if err := in.run(ctx, npmTimeout, npm, "install", "--no-audit", "--no-fund", "--no-save", "--no-package-lock", "--no-update-notifier",
		"--prefix", fetch, "playwright-core@"+pw.DriverVersion); err != nil {
		return pw.Driver{}, fmt.Errorf("npm install playwright-core@%s: %w", pw.DriverVersion, err)
	}
	built := filepath.Join(work, "driver")
	if err := os.Mkdir(built, 0o755); err != nil {
		return pw.Driver{}, err
	}
	if err := os.Rename(filepath.Join(fetch, "node_modules", "playwright-core"), filepath.Join(built, "package")); err != nil {
		return pw.Driver{}, fmt.Errorf("npm left no playwright-core: %w", err)
	}
	if err := os.Symlink(node, filepath.Join(built, "node")); err != nil {
		return pw.Driver{}, err
	}
	if _, err := pw.FindDriver(built); err != nil {
		return pw.Driver{}, err
	}
	// The driver must run: its CLI prints its version.
	vctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	v, err := exec.CommandContext(vctx, filepath.Join(built, "node"), filepath.Join(built, "package", "cli.js"), "--version").Output()
	if err != nil || !bytes.Contains(v, []byte(pw.DriverVersion)) {
		return pw.Driver{}, fmt.Errorf("the assembled driver does not run (--version printed %q): %v", strings.TrimSpace(string(v)), err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return pw.Driver{}, err
	}
	if err := os.Rename(built, dir); err != nil {
		return pw.Driver{}, err
	}
	drv, err := pw.FindDriver(dir)
	if err != nil {
		return pw.Driver{}, err
	}
	in.say("the Playwright driver %s is in %s (node: %s)", pw.DriverVersion, dir, node)
	return drv, nil
}

var nodeVersionRE = regexp.MustCompile(`^v?(\d+)\.`)

// checkNode finds node in PATH and checks its version; it returns its
// absolute path, which the driver's node link points at.
func checkNode(ctx context.Context) (string, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return "", fmt.Errorf("the Playwright driver needs node >= %d, which is not in PATH: install it (Debian/Ubuntu: `apt-get install -y nodejs npm`) and run `%s` again", minNode, pw.InstallCommand)
	}
	if node, err = filepath.Abs(node); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w", node, err)
	}
	m := nodeVersionRE.FindSubmatch(bytes.TrimSpace(out))
	if m == nil {
		return "", fmt.Errorf("%s --version printed %q, not a node version", node, strings.TrimSpace(string(out)))
	}
	if v, _ := strconv.Atoi(string(m[1])); v < minNode {
		return "", fmt.Errorf("%s is node %s; the Playwright driver needs node >= %d", node, strings.TrimSpace(string(out)), minNode)
	}
	return node, nil
}

// firefox installs the driver, then Firefox when none is found.
func (in installer) firefox(ctx context.Context) error {
	drv, err := in.driver(ctx)
	if err != nil {
		return err
	}
	exe, ferr := pw.FindExecutable(pw.Firefox, "", drv)
	if ferr == nil {
		in.say("Firefox is at %s; run the server with --browser firefox", exe)
		return nil
	}
	in.say("%v", ferr)
	if err := in.browser(ctx, pw.Firefox); err != nil {
		return err
	}
	if exe, err = pw.FindExecutable(pw.Firefox, "", drv); err != nil {
		return err
	}
	in.say("Firefox is at %s; run the server with --browser firefox", exe)
	return nil
}

// chromium installs Chromium when none is found.
func (in installer) chromium(ctx context.Context) error {
	exe, cerr := browserpath.FindChromium("", false)
	if cerr == nil {
		in.say("Chromium is at %s (the default engine needs nothing more; --engine playwright needs `%s` too)", exe, pw.InstallCommand)
		return nil
	}
	in.say("%v", cerr)
	if err := in.browser(ctx, pw.Chromium); err != nil {
		return err
	}
	exe, err := browserpath.FindChromium("", false)
	if err != nil {
		return err
	}
	in.say("Chromium is at %s", exe)
	return nil
}

// browser installs browser with the system's package manager, or fails
// naming the command that does.
func (in installer) browser(ctx context.Context, browser string) error {
	p := plan(in.sys, browser)
	if len(p.steps) == 0 {
		return fmt.Errorf("cannot install %s here by itself: %s", browser, p.manual)
	}
	in.say("installing %s: %s", browser, p.manual)
	for _, s := range p.steps {
		if err := in.run(ctx, s.timeout, s.argv[0], s.argv[1:]...); err != nil {
			return fmt.Errorf("%s: %w; run it yourself: %s", strings.Join(s.argv, " "), err, p.manual)
		}
	}
	return nil
}

// run runs a command with a deadline, its output going to in.out (stdout
// included: over stdio the server's stdout is the protocol's, and install
// keeps to the same rule).
func (in installer) run(ctx context.Context, timeout time.Duration, name string, args ...string) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = in.out, in.out
	// A child that keeps the output open must not hold us past the
	// deadline.
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return fmt.Errorf("did not finish within %v", timeout)
	}
	return err
}

// webkit succeeds only when Playwright's WebKit build is already
// installed where the driver looks for it.
func (in installer) webkit() error {
	dirs := []string{os.Getenv(pw.EnvDriverPath)}
	if d, err := pw.InstalledDriverDir(); err == nil {
		dirs = append(dirs, d)
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if drv, err := pw.FindDriver(d); err == nil {
			if _, err := pw.FindExecutable(pw.WebKit, "", drv); err == nil {
				in.say("Playwright's WebKit build is installed; run the server with --browser webkit")
				return nil
			}
		}
	}
	return webkitError()
}

// webkitError says why webkit cannot be installed here.
func webkitError() error {
	return fmt.Errorf("webkit cannot be installed by browsermcp: the playwright engine drives only Playwright's own WebKit build, " +
		"which is downloaded from Playwright's CDN (never used here), and stock WebKit (Safari, WebKitGTK) cannot be driven. " +
		"Where that CDN is reachable, `npx playwright-core@" + pw.DriverVersion + " install --with-deps webkit` installs it " +
		"(then run the server with --browser webkit, or point --executable-path at its pw_run.sh); otherwise use --browser firefox or chromium")
}

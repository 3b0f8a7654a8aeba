package pw

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/seed4af8c199/browsermcp/engine/browserpath"
)

// The browsers this engine drives.
const (
	Chromium = "chromium"
	Firefox  = "firefox"
	WebKit   = "webkit"
)

// minFirefox is the oldest Firefox whose WebDriver BiDi is complete enough
// for Playwright 1.52's BiDi backend.
const minFirefox = 138

// minFirefoxDownloads is the oldest Firefox whose WebDriver BiDi saves
// downloads where it is told (browser.setDownloadBehavior) and reports them
// (browsingContext.downloadWillBegin, downloadEnd); launch_server.js wires
// them into Playwright.
const minFirefoxDownloads = 142

// minFirefoxChoosers is the oldest Firefox this engine has seen report
// the file choosers its pages open over WebDriver BiDi
// (input.fileDialogOpened); launch_server.js wires them into Playwright.
// Older ones answer UNSUPPORTED for a chooser.
const minFirefoxChoosers = 143

// firefoxMajor is the major version in a browser version such as
// "153.7.0", or 0.
func firefoxMajor(version string) int {
	n, _ := strconv.Atoi(strings.SplitN(version, ".", 2)[0])
	return n
}

// firefoxCandidates are searched in PATH, in order. Debian ships firefox-esr.
var firefoxCandidates = []string{"firefox-esr", "firefox"}

// FindExecutable returns the binary to launch for browser: flag, then
// $BROWSERMCP_EXECUTABLE_PATH, then where the browser is normally installed.
// An empty result with a nil error means Playwright finds the browser itself.
func FindExecutable(browser, flag string, drv Driver) (string, error) {
	switch browser {
	case Chromium:
		// The full Chromium, not the headless shell: it is what this engine
		// is compared against and what --headless=false needs.
		return browserpath.FindChromium(flag, false)
	case Firefox:
		return findFirefox(flag)
	case WebKit:
		return findWebKit(flag, drv)
	}
	return "", fmt.Errorf("unknown browser %q: want chromium, firefox or webkit", browser)
}

func explicit(flag string) (path, source string) {
	if flag != "" {
		return flag, "--executable-path"
	}
	if env := os.Getenv(browserpath.Env); env != "" {
		return env, browserpath.Env
	}
	return "", ""
}

// findFirefox finds a Firefox with a working WebDriver BiDi. Playwright's
// own patched Firefox is not used: this engine drives a stock Firefox (on
// Debian, firefox-esr) over BiDi.
func findFirefox(flag string) (string, error) {
	p, source := explicit(flag)
	if p != "" {
		full, err := exec.LookPath(p)
		if err != nil {
			return "", fmt.Errorf("%s %q is not an executable Firefox: %w", source, p, err)
		}
		return full, checkFirefoxVersion(full)
	}
	for _, n := range firefoxCandidates {
		if full, err := exec.LookPath(n); err == nil {
			return full, checkFirefoxVersion(full)
		}
	}
	return "", fmt.Errorf("no Firefox found in PATH (looked for %s): install one with `apt-get install -y firefox-esr` (Debian/Ubuntu; version %d or newer), or point --executable-path or %s at a Firefox binary",
		strings.Join(firefoxCandidates, ", "), minFirefox, browserpath.Env)
}

var firefoxVersionRE = regexp.MustCompile(`Firefox (\d+)\.`)

func checkFirefoxVersion(path string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return fmt.Errorf("%s --version failed: %w", path, err)
	}
	m := firefoxVersionRE.FindSubmatch(out)
	if m == nil {
		return fmt.Errorf("%s does not look like Firefox: --version printed %q", path, strings.TrimSpace(string(out)))
	}
	if v, _ := strconv.Atoi(string(m[1])); v < minFirefox {
		return fmt.Errorf("%s is Firefox %d; WebDriver BiDi through Playwright %s needs Firefox %d or newer: upgrade with `apt-get install -y firefox-esr`",
			path, v, DriverVersion, minFirefox)
	}
	return nil
}

// findWebKit finds Playwright's WebKit build. Stock WebKit (Safari,
// WebKitGTK's MiniBrowser) lacks the protocol Playwright needs, so only the
// build Playwright installs works.
func findWebKit(flag string, drv Driver) (string, error) {
	if p, source := explicit(flag); p != "" {
		full, err := exec.LookPath(p)
		if err != nil {
			return "", fmt.Errorf("%s %q is not an executable WebKit: %w", source, p, err)
		}
		return full, nil
	}
	want, err := webkitLocation(drv)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(want); err != nil {
		//lint:ignore ST1005 the message starts with a name, and users read it whole at startup
		return "", fmt.Errorf("Playwright's WebKit build is not installed (looked for %s): install it with `%s %s install --with-deps webkit` where its CDN is reachable, or point --executable-path at its pw_run.sh; stock WebKit cannot be driven",
			want, drv.Node, filepath.Join(drv.Dir, "package", "cli.js"))
	}
	return "", nil
}

// webkitLocation is where Playwright installs its WebKit build: the
// registry directory, then webkit-<revision>/pw_run.sh.
func webkitLocation(drv Driver) (string, error) {
	b, err := os.ReadFile(filepath.Join(drv.Dir, "package", "browsers.json"))
	if err != nil {
		return "", fmt.Errorf("reading the driver's browsers.json: %w", err)
	}
	var reg struct {
		Browsers []struct {
			Name              string
			Revision          string
			RevisionOverrides map[string]string
		}
	}
	if err := json.Unmarshal(b, &reg); err != nil {
		return "", fmt.Errorf("reading the driver's browsers.json: %w", err)
	}
	rev := ""
	for _, br := range reg.Browsers {
		if br.Name == WebKit {
			rev = br.Revision
			if o, ok := br.RevisionOverrides[hostPlatform()]; ok {
				rev = o
			}
		}
	}
	if rev == "" {
		return "", fmt.Errorf("the driver's browsers.json lists no webkit")
	}
	dir := os.Getenv("PLAYWRIGHT_BROWSERS_PATH")
	switch dir {
	case "0":
		dir = filepath.Join(drv.Dir, "package", ".local-browsers")
	case "":
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(cache, "ms-playwright")
	}
	exe := "pw_run.sh"
	if runtime.GOOS == "windows" {
		exe = "Playwright.exe"
	}
	return filepath.Join(dir, "webkit-"+rev, exe), nil
}

// hostPlatform names the platform the way Playwright's registry keys its
// revision overrides (e.g. "debian11-x64"); only Linux distributions have
// overrides that matter here.
func hostPlatform() string {
	if runtime.GOOS != "linux" {
		return runtime.GOOS
	}
	f, err := os.Open("/etc/os-release")
	if err != nil {
		return "linux"
	}
	defer f.Close()
	kv := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			kv[k] = strings.Trim(v, `"`)
		}
	}
	arch := "x64"
	if runtime.GOARCH == "arm64" {
		arch = "arm64"
	}
	id, ver := kv["ID"], kv["VERSION_ID"]
	if id == "debian" {
		ver, _, _ = strings.Cut(ver, ".")
	}
	return id + ver + "-" + arch
}

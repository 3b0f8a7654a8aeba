// Package engines chooses and builds the browser engine the server runs on:
// cdp (Chromium over the DevTools protocol, engine/cdp) or playwright
// (Chromium, Firefox and WebKit, engine/pw); with a Grid URL, cdp on the
// browsers of a Selenium Grid (engine/grid). Check refuses a choice that
// cannot work before anything starts; New builds the engine and checks that
// its browser and driver are installed, so that a missing one fails at
// startup with what to install.
package engines

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/browserpath"
	"github.com/seed4af8c199/browsermcp/engine/cdp"
	"github.com/seed4af8c199/browsermcp/engine/pw"
	"github.com/seed4af8c199/browsermcp/engine/rundir"
)

// Config is what choosing and building an engine takes.
type Config struct {
	Engine         string // cdp or playwright; "" picks the default for Browser
	Browser        string // chromium, firefox or webkit
	Headless       bool
	ExecutablePath string // "": search PATH
	CDPEndpoint    string // attach to a running Chrome instead of launching one
	// GridURL runs every session on a browser of this Selenium Grid
	// (engine/grid) instead of launching one.
	GridURL          string
	GridQueueTimeout time.Duration // 0: grid.DefaultQueueTimeout
	GridKeepSessions bool          // shutdown lets go of Grid sessions instead of deleting them
	Viewport         engine.Viewport
	Dialogs          engine.DialogPolicy
	AllowedDomains   []string
	BlockedDomains   []string
	AllowFileURLs    bool
	// BrowserArgs are more switches for the browsers we start, locally or
	// on the Grid (CheckArgs).
	BrowserArgs []string
	// UserDataDir is the persistent profile of the session named default
	// (CheckUserDataDir).
	UserDataDir string
	// ProxyServer is every session's proxy, which the session on the
	// persistent profile cannot take.
	ProxyServer string
	// SessionFlags are the flags given that set up every session (e.g.
	// --ignore-https-errors); Check refuses those the engine cannot honour.
	SessionFlags []string
	// Pool is how many browsers engine cdp launches for its sessions
	// (CheckPool); the zero value is cdp.DefaultPool.
	Pool cdp.Pool
}

// firefoxCannot are the session flags Playwright's WebDriver BiDi backend
// for Firefox accepts and then ignores: the server refuses to start with
// them rather than run without them.
var firefoxCannot = []string{"--ignore-https-errors", "--user-agent", "--device", "--mobile", "--proxy-server", "--grant-permissions"}

// engines are the values of --engine: the browsers each drives and how to
// build it. defaultEngine picks one per browser when --engine is not given.
var engines = map[string]struct {
	browsers []string
	build    func(c Config, log *slog.Logger) (engine.Engine, error)
}{
	"cdp":        {[]string{"chromium"}, newCDP},
	"playwright": {[]string{"chromium", "firefox", "webkit"}, newPlaywright},
}

var defaultEngine = map[string]string{"chromium": "cdp", "firefox": "playwright", "webkit": "playwright"}

// Name is c.Engine, or the default engine for c.Browser.
func Name(c Config) string {
	if c.Engine != "" {
		return c.Engine
	}
	return defaultEngine[c.Browser]
}

// Check checks the engine against the browser, the CDP endpoint and the
// domain policy, which only the cdp engine enforces.
func Check(c Config) error {
	name := Name(c)
	e, ok := engines[name]
	switch {
	case !ok:
		return fmt.Errorf("want cdp or playwright, not %q", name)
	case !slices.Contains(e.browsers, c.Browser):
		return fmt.Errorf("--engine %s drives only %s, not %s; use --engine playwright", name, strings.Join(e.browsers, ", "), c.Browser)
	case c.CDPEndpoint != "" && name != "cdp":
		return fmt.Errorf("--cdp-endpoint needs --engine cdp")
	case c.GridURL != "" && name != "cdp":
		return fmt.Errorf("--grid-url drives Chromium over CDP: it needs --engine cdp and --browser chromium")
	case c.GridURL != "" && c.CDPEndpoint != "":
		return fmt.Errorf("--grid-url and --cdp-endpoint exclude each other: sessions run either on the Grid or in one browser")
	case c.Browser == "firefox" && slices.ContainsFunc(c.SessionFlags, func(f string) bool { return slices.Contains(firefoxCannot, f) }):
		var bad []string
		for _, f := range c.SessionFlags {
			if slices.Contains(firefoxCannot, f) {
				bad = append(bad, f)
			}
		}
		return fmt.Errorf("%s cannot be honoured with --browser firefox (Playwright's WebDriver BiDi backend ignores or refuses it); use --browser chromium", strings.Join(bad, ", "))
	case name != "cdp" && (len(c.AllowedDomains) > 0 || len(c.BlockedDomains) > 0):
		return fmt.Errorf("allowedDomains/blockedDomains are enforced only by --engine cdp; refusing to run %s without them", c.Browser)
	}
	return nil
}

// CheckArgs checks c.BrowserArgs: switches the server owns are refused
// (cdp.ParseArgs), and extra switches need a browser we start with engine
// cdp, locally or on a Grid.
func CheckArgs(c Config) error {
	if len(c.BrowserArgs) == 0 {
		return nil
	}
	if _, err := cdp.ParseArgs(c.BrowserArgs); err != nil {
		return err
	}
	switch {
	case c.CDPEndpoint != "":
		return errors.New("--cdp-endpoint attaches to a browser already running: its switches cannot be changed")
	case Name(c) != "cdp":
		return errors.New("browser switches are passed by --engine cdp, locally or on a Grid")
	}
	return nil
}

// CheckPool checks c.Pool: more than the default of one browser, started
// ahead, needs browsers that engine cdp launches itself. The playwright
// engine drives one browser through its driver, and would run every
// session in it whatever the pool said, so it refuses rather than ignores.
func CheckPool(c Config) error {
	p := c.Pool
	if p == (cdp.Pool{}) || (p.MinBrowsers == cdp.DefaultPool.MinBrowsers && p.MaxBrowsers == cdp.DefaultPool.MaxBrowsers) {
		return nil
	}
	switch {
	case c.GridURL != "":
		return errors.New("a browser pool has no effect with --grid-url, where each session has a browser of its own on the Grid")
	case c.CDPEndpoint != "":
		return errors.New("--cdp-endpoint attaches to one browser: a pool needs browsers the server launches")
	case Name(c) != "cdp":
		return fmt.Errorf("a browser pool (minBrowsers %d, maxBrowsers %d) needs --engine cdp: engine %s runs one browser", p.MinBrowsers, p.MaxBrowsers, Name(c))
	}
	return nil
}

// CheckUserDataDir checks c.UserDataDir: a persistent profile needs a
// Chromium that engine cdp launches (Playwright's persistent context is
// a browser of its own per profile, which its engine does not run), and
// a directory outside our runtime directory, whose sweep removes what it
// holds. Its session runs in the browser's own context, which takes no
// proxy and whose WebSockets the domain rules cannot hold.
func CheckUserDataDir(c Config) error {
	switch {
	case c.UserDataDir == "":
		return nil
	case Name(c) != "cdp":
		return fmt.Errorf("a persistent profile is cdp-only: it needs --engine cdp and --browser chromium, not %s on %s", Name(c), c.Browser)
	case c.CDPEndpoint != "":
		return errors.New("--cdp-endpoint attaches to a browser already running on its own profile")
	case c.GridURL != "":
		return errors.New("--grid-url runs each session on a Grid browser, with a profile of the Grid's")
	case rundir.Contains(c.UserDataDir):
		return fmt.Errorf("lies under %s, whose directories the server removes", rundir.Root())
	case c.ProxyServer != "":
		return errors.New("the session on the persistent profile runs in the browser's own context, which takes no --proxy-server")
	case len(c.AllowedDomains) > 0 || len(c.BlockedDomains) > 0:
		return errors.New("allowedDomains/blockedDomains cannot hold the WebSockets of the persistent profile's session")
	case c.Pool.MaxBrowsers > 1:
		return errors.New("one browser holds a persistent profile: it needs a pool of one browser (pool.maxBrowsers 1)")
	}
	return nil
}

// New builds the engine c names, which Check has accepted. Without a
// display it runs the browser headless, and says so on stderr.
func New(c Config, log *slog.Logger, stderr io.Writer) (engine.Engine, error) {
	if c.CDPEndpoint == "" && !c.Headless && noDisplay() {
		c.Headless = true
		fmt.Fprintln(stderr, "browsermcp: no display (DISPLAY and WAYLAND_DISPLAY are unset), running the browser headless")
	}
	if c.GridURL != "" {
		return newGrid(c, log)
	}
	return engines[Name(c)].build(c, log)
}

// chromiumSetup is what every Chromium over engine/cdp (launched,
// attached or on a Grid) takes from c: the domain policy and the checked
// extra browser switches.
func chromiumSetup(c Config) (*engine.Policy, []string, error) {
	pol, err := engine.NewPolicy(c.AllowedDomains, c.BlockedDomains, c.AllowFileURLs)
	if err != nil {
		return nil, nil, err
	}
	args, err := cdp.ParseArgs(c.BrowserArgs)
	if err != nil {
		return nil, nil, err
	}
	return pol, args, nil
}

func newCDP(c Config, log *slog.Logger) (engine.Engine, error) {
	pol, args, err := chromiumSetup(c)
	if err != nil {
		return nil, err
	}
	cc := cdp.Config{Endpoint: c.CDPEndpoint, Headless: c.Headless, Viewport: c.Viewport, Args: args, Logger: log, Policy: pol, Dialogs: c.Dialogs,
		UserDataDir: c.UserDataDir}
	// For tests and slow machines; not a documented flag.
	if d, err := time.ParseDuration(os.Getenv("BROWSERMCP_LAUNCH_TIMEOUT")); err == nil && d > 0 {
		cc.LaunchTimeout = d
	}
	if c.CDPEndpoint != "" {
		// The browser starts in the background: without this check a
		// wrong endpoint would fail only at the first session.
		ctx, cancel := context.WithTimeout(context.Background(), endpointCheckTimeout)
		defer cancel()
		product, err := cdp.CheckEndpoint(ctx, c.CDPEndpoint)
		if err != nil {
			return nil, &EndpointError{Flag: "--cdp-endpoint", URL: c.CDPEndpoint, Err: err}
		}
		log.Info("attached to the browser", "endpoint", c.CDPEndpoint, "product", product)
	}
	if c.CDPEndpoint == "" {
		if c.Pool != (cdp.Pool{}) {
			pc := c.Pool
			cc.Pool = &pc
		}
		p, err := browserpath.FindChromium(c.ExecutablePath, cc.Headless)
		if err != nil {
			return nil, err
		}
		cc.ExecPath = p
	}
	e := cdp.New(cc)
	if err := e.LockProfile(); err != nil {
		return nil, err
	}
	return e, nil
}

// endpointCheckTimeout bounds the startup check of an endpoint.
const endpointCheckTimeout = 15 * time.Second

// EndpointError is an endpoint given on the command line (--cdp-endpoint,
// --grid-url) that is wrong or does not answer at startup. main exits with
// status 2 for it, as for any bad flag.
type EndpointError struct {
	Flag, URL string
	Err       error
}

func (e *EndpointError) Error() string {
	return fmt.Sprintf("%s %s: cannot attach: %v", e.Flag, e.URL, e.Err)
}

func (e *EndpointError) Unwrap() error { return e.Err }

// IsEndpointError reports whether err is an EndpointError.
func IsEndpointError(err error) bool {
	var e *EndpointError
	return errors.As(err, &e)
}

func newPlaywright(c Config, log *slog.Logger) (engine.Engine, error) {
	pol, err := engine.NewPolicy(c.AllowedDomains, c.BlockedDomains, c.AllowFileURLs)
	if err != nil {
		return nil, err
	}
	return pw.New(pw.Config{
		Browser: c.Browser, ExecPath: c.ExecutablePath, Headless: c.Headless, Viewport: c.Viewport, Logger: log,
		Dialogs:          c.Dialogs,
		Policy:           pol,
		DriverCandidates: driverCandidates(),
	})
}

// driverCandidates are where the Playwright driver is looked for after
// $PLAYWRIGHT_DRIVER_PATH: where `browsermcp install driver` puts it (the
// user's cache directory), then where a checkout's `make pwdriver` puts it,
// relative to the binary (bin/browsermcp) and to the working directory.
func driverCandidates() []string {
	var dirs []string
	if d, err := pw.InstalledDriverDir(); err == nil {
		dirs = append(dirs, d)
	}
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Join(filepath.Dir(exe), "..", ".cache", "pwdriver"))
	}
	return append(dirs, filepath.Join(".cache", "pwdriver"))
}

func noDisplay() bool {
	return runtime.GOOS == "linux" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == ""
}

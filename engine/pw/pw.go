// Package pw implements engine.Engine with Playwright, through
// github.com/playwright-community/playwright-go and the Playwright driver (a
// Node.js process) it talks to. It drives Chromium, Firefox and WebKit:
//
//   - Chromium and WebKit are launched by the driver like in any Playwright
//     program (Chromium from the system, WebKit from Playwright's own build).
//   - Firefox is a stock Firefox (Debian's firefox-esr) driven over WebDriver
//     BiDi by Playwright's internal _bidiFirefox browser type, which
//     playwright-go does not expose: a small Node.js launch server (see
//     launch_server.js and docs/decisions) starts it, and playwright-go
//     connects to that server.
//
// As in engine/cdp, one browser serves every session and each session is a
// browser context with one page. Elements are resolved and checked by the
// same in-page script (engine/page) as in engine/cdp, so both engines fail
// with the same codes and details; Playwright's own errors are classified at this edge.
//
// The driver is never downloaded here (playwright.Install is not used): it is
// assembled from npm by `browsermcp install driver` (internal/install) or a
// checkout's `make pwdriver`; see FindDriver.
package pw

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit"
)

// Config configures the engine.
type Config struct {
	// Browser is chromium, firefox or webkit.
	Browser string
	// ExecPath is the browser binary; empty means search (FindExecutable).
	ExecPath string
	// Headless runs without a window.
	Headless bool
	// Viewport is the default page size.
	Viewport engine.Viewport
	// Dialogs says what sessions do with JavaScript dialogs; empty means
	// engine.DialogsManual.
	Dialogs engine.DialogPolicy
	// Policy refuses navigations to file: URLs unless it allows them. Host
	// rules (allowedDomains, blockedDomains) are enforced by engine/cdp
	// alone: Playwright's routes see neither redirects nor workers, so New
	// refuses a policy with host rules rather than hold it with holes.
	Policy *engine.Policy
	// DriverDir is the Playwright driver directory; empty means search
	// (FindDriver with DriverCandidates).
	DriverDir        string
	DriverCandidates []string
	// Logger receives diagnostics, including the driver's and browser's
	// stderr; nil discards them.
	Logger *slog.Logger
}

// Engine is the Playwright engine. Its browser starts in the background with
// Start; when the browser dies, the next NewSession starts a new one.
type Engine struct {
	cfg  Config
	drv  Driver
	exec string // resolved browser binary; empty lets Playwright find it
	log  *slog.Logger
	keep *kit.Keeper[*browserProc]
}

// browserProc is one driver with one launched browser; its LaunchState
// makes it an kit.Launch, lost when the browser disconnects.
type browserProc struct {
	kit.LaunchState
	// pw, browser and server are set before Ready is closed.
	pw      *playwright.Playwright
	browser playwright.Browser
	server  *launchServer // Firefox only

	shutdownOnce sync.Once
}

// New checks that the driver and the browser are installed and returns an
// engine; it does not start the browser. Its errors say exactly what to
// install, so that a server fails at startup rather than at the first
// session.
func New(cfg Config) (*Engine, error) {
	l := cfg.Logger
	if l == nil {
		l = slog.New(slog.DiscardHandler)
	}
	switch cfg.Browser {
	case Chromium, Firefox, WebKit:
	default:
		return nil, fmt.Errorf("unknown browser %q: want chromium, firefox or webkit", cfg.Browser)
	}
	if cfg.Policy.HasHostRules() {
		return nil, engine.Errorf(engine.Unsupported, "allowedDomains and blockedDomains are enforced only by the cdp engine (Chromium), and the playwright engine (browser %s) cannot hold them on redirects, workers, popups and WebSockets", cfg.Browser).
			With("browser", cfg.Browser).With("engine", "playwright").
			Suggest("Use --browser chromium with the default cdp engine, or remove the domain rules.")
	}
	drv, err := FindDriver(cfg.DriverDir, cfg.DriverCandidates...)
	if err != nil {
		return nil, err
	}
	exe, err := FindExecutable(cfg.Browser, cfg.ExecPath, drv)
	if err != nil {
		return nil, err
	}
	e := &Engine{cfg: cfg, drv: drv, exec: exe, log: l}
	// The launch bounds its own time (launchTimeout); a dead browser is
	// shut down in the background while the next one starts.
	e.keep = &kit.Keeper[*browserProc]{Start: e.launch, Drop: func(b *browserProc) { go e.shutdown(b) }, Log: l}
	return e, nil
}

// Name identifies the engine and its browser.
func (e *Engine) Name() string { return "playwright/" + e.cfg.Browser }

// Start begins launching the browser and returns at once.
func (e *Engine) Start() { e.keep.Begin() }

// Idle stops the browser while no session uses it; the next session
// starts a new one (engine.Idler).
func (e *Engine) Idle() bool { return e.keep.Release() }

// browser returns a live browser, starting a new one when the last one died.
func (e *Engine) browser(ctx context.Context) (*browserProc, error) { return e.keep.Browser(ctx) }

// launchTimeout bounds starting the driver and the browser.
const launchTimeout = 60 * time.Second

// launch starts the driver and the browser in the background.
func (e *Engine) launch() *browserProc {
	b := &browserProc{}
	go func() {
		if err := e.start(b); err != nil {
			e.shutdown(b)
			b.Failed(engine.Wrap(engine.BrowserError, err, fmt.Sprintf("could not start %s: %v", e.Name(), err)))
			return
		}
		b.browser.OnDisconnected(func(playwright.Browser) { b.MarkLost() })
		e.log.Info("browser ready", "engine", e.Name(), "exec", e.exec, "version", b.browser.Version())
		b.Started(nil)
	}()
	return b
}

// runMu makes engines that start at once take turns in playwright.Run,
// which sets playwright-go's package-wide logger.
var runMu sync.Mutex

func (e *Engine) start(b *browserProc) error {
	// Firefox's launch server does not need the driver: start both at once.
	type served struct {
		s   *launchServer
		err error
	}
	var server chan served
	if e.cfg.Browser == Firefox {
		server = make(chan served, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), launchTimeout)
			defer cancel()
			s, err := startLaunchServer(ctx, e.drv, "_bidiFirefox", map[string]any{
				"executablePath": e.exec, "headless": e.cfg.Headless, "timeout": launchTimeout.Milliseconds(),
				"firefoxUserPrefs": firefoxPrefs,
			}, e.log)
			server <- served{s, err}
		}()
	}
	logw := logWriter(e.log, "driver")
	runMu.Lock()
	pw, err := playwright.Run(&playwright.RunOptions{
		DriverDirectory: e.drv.Dir, SkipInstallBrowsers: true,
		Stdout: logw, Stderr: logw, Logger: e.log,
	})
	runMu.Unlock()
	b.pw = pw
	if server != nil {
		sv := <-server
		b.server = sv.s
		if sv.err != nil {
			return fmt.Errorf("launching %s over WebDriver BiDi: %w", e.exec, sv.err)
		}
	}
	if err != nil {
		return fmt.Errorf("starting the Playwright driver in %s: %w", e.drv.Dir, err)
	}
	headless := e.cfg.Headless
	opts := playwright.BrowserTypeLaunchOptions{Headless: &headless, Timeout: ms(launchTimeout)}
	if e.exec != "" {
		opts.ExecutablePath = &e.exec
	}
	switch e.cfg.Browser {
	case Chromium:
		// Snapshots read roles and names from Chromium's accessibility
		// engine through Element.computedRole and computedName, which
		// this Blink feature exposes (as in engine/cdp).
		opts.Args = []string{"--enable-blink-features=ComputedAccessibilityInfo"}
		b.browser, err = pw.Chromium.Launch(opts)
	case WebKit:
		b.browser, err = pw.WebKit.Launch(opts)
	case Firefox:
		b.browser, err = pw.Firefox.Connect(b.server.endpoint, playwright.BrowserTypeConnectOptions{Timeout: ms(launchTimeout)})
	}
	return err
}

// firefoxPrefs are the preferences Firefox starts with. Firefox's WebDriver
// BiDi input actions are dispatched in the top-level page's process and
// never reach an iframe that runs in another process (Fission isolates
// cross-site iframes that way), so a click on an element of a cross-site
// iframe would land on the iframe element in the parent page instead.
// Keeping web content out of per-site processes (as Puppeteer's Firefox
// profile does) lets input reach every frame. The cost is weaker process
// isolation between the sites one browser shows; sessions keep their own
// browser contexts (cookies, storage, cache) as before.
var firefoxPrefs = map[string]any{"fission.webContentIsolationStrategy": 0}

// shutdown closes what b started, best effort, within closeTimeout. Only
// the first call does anything.
func (e *Engine) shutdown(b *browserProc) {
	b.shutdownOnce.Do(func() { e.closeProc(b) })
}

func (e *Engine) closeProc(b *browserProc) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		if b.browser != nil {
			if err := b.browser.Close(); err != nil {
				e.log.Debug("closing the browser", "err", err)
			}
		}
		if b.pw != nil {
			if err := b.pw.Stop(); err != nil {
				e.log.Debug("stopping the driver", "err", err)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(closeTimeout):
		e.log.Warn("the browser did not close in time", "engine", e.Name())
	}
	if b.server != nil {
		b.server.stop(closeTimeout)
	}
}

// closeTimeout bounds a graceful close before processes are killed.
const closeTimeout = 5 * time.Second

// NewSession creates a browser context with one page.
func (e *Engine) NewSession(ctx context.Context, opts engine.SessionOptions) (engine.Session, error) {
	if opts.Profile {
		return nil, engine.Errorf(engine.BrowserError, "a persistent browser profile (--user-data-dir) needs --engine cdp on a browser it launches")
	}
	b, err := e.browser(ctx)
	if err != nil {
		return nil, err
	}
	s, err := newSession(ctx, e, b, opts)
	if err != nil {
		return nil, err
	}
	return newTabbed(s), nil
}

// Close closes the browser and the driver; sessions' contexts close with
// them.
func (e *Engine) Close() error {
	if b, ok := e.keep.Close(); ok {
		e.shutdown(b)
	}
	return nil
}

func ms(d time.Duration) *float64 {
	v := float64(d.Milliseconds())
	if v < 1 {
		v = 1 // 0 would mean "no timeout" to Playwright
	}
	return &v
}

// lineLog turns a process's output into debug log lines and keeps the
// last few, so that a failed launch can say why.
type lineLog struct {
	l      *slog.Logger
	source string

	mu   sync.Mutex
	part []byte
	tail []string
}

const keepLines = 20

func logWriter(l *slog.Logger, source string) *lineLog { return &lineLog{l: l, source: source} }

func (w *lineLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.part = append(w.part, p...)
	for {
		i := bytes.IndexByte(w.part, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimSpace(string(w.part[:i]))
		w.part = w.part[i+1:]
		if line == "" {
			continue
		}
		w.l.Debug(line, "source", w.source)
		w.tail = append(w.tail, line)
		if len(w.tail) > keepLines {
			w.tail = w.tail[1:]
		}
	}
	return len(p), nil
}

// Tail returns the last lines written.
func (w *lineLog) Tail() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.tail, "\n")
}

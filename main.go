// Command browsermcp is an MCP server that lets AI agents drive real
// browsers in isolated, concurrent sessions. See README.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/cdp"
	"github.com/seed4af8c199/browsermcp/engine/pw"
	"github.com/seed4af8c199/browsermcp/tools"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// config is the effective configuration.
type config struct {
	Browser        string
	Engine         string
	Headless       bool
	SessionTimeout time.Duration
	MaxSessions    int
	CDPEndpoint    string
	ExecutablePath string
	Viewport       engine.Viewport
}

// errUsage marks errors that exit with status 2.
var errUsage = errors.New("usage")

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args, stdout, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintln(stderr, "browsermcp:", strings.TrimPrefix(err.Error(), errUsage.Error()+": "))
		return 2
	case err != nil:
		fmt.Fprintln(stderr, "browsermcp:", err)
		return 1
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))

	eng, err := newEngine(cfg, stderr, log)
	if err != nil {
		fmt.Fprintln(stderr, "browsermcp:", err)
		return 1
	}
	// The browser starts now, in the background: initialize does not wait
	// for it; the first session does.
	eng.Start()
	mgr := engine.NewManager(eng, engine.ManagerConfig{
		Timeout: cfg.SessionTimeout, MaxSessions: cfg.MaxSessions,
		Defaults: engine.SessionOptions{Viewport: cfg.Viewport},
	})
	srv := tools.NewServer(mgr, tools.Options{Version: version, Log: log})

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	stdio := server.NewStdioServer(srv)
	stdio.SetErrorLogger(slog.NewLogLogger(log.Handler(), slog.LevelError))
	server.WithWorkerPoolSize(64)(stdio)
	err = stdio.Listen(ctx, stdin, stdout)
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		log.Error("stdio server stopped", "err", err)
	}
	shutdown(mgr, eng, log)
	return 0
}

// shutdown closes every session, then the browser we launched.
func shutdown(mgr *engine.Manager, eng engine.Engine, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	mgr.Shutdown(ctx)
	if err := eng.Close(); err != nil {
		log.Warn("closing the browser", "err", err)
	}
}

// engines are the values of --engine: the browsers each drives and how to
// build it. defaultEngine picks one per browser when --engine is not given.
var engines = map[string]struct {
	browsers []string
	build    func(cfg config, log *slog.Logger) (engine.Engine, error)
}{
	"cdp":        {[]string{"chromium"}, newCDPEngine},
	"playwright": {[]string{"chromium", "firefox", "webkit"}, newPlaywrightEngine},
}

var defaultEngine = map[string]string{"chromium": "cdp", "firefox": "playwright", "webkit": "playwright"}

// newEngine builds the engine and checks that its browser (and driver) are
// installed, so that a missing one fails at startup with what to install.
func newEngine(cfg config, stderr io.Writer, log *slog.Logger) (engine.Engine, error) {
	if cfg.CDPEndpoint == "" && !cfg.Headless && noDisplay() {
		cfg.Headless = true
		fmt.Fprintln(stderr, "browsermcp: no display (DISPLAY and WAYLAND_DISPLAY are unset), running the browser headless")
	}
	return engines[cfg.Engine].build(cfg, log)
}

func newCDPEngine(cfg config, log *slog.Logger) (engine.Engine, error) {
	c := cdp.Config{Endpoint: cfg.CDPEndpoint, Headless: cfg.Headless, Viewport: cfg.Viewport, Logger: log}
	if cfg.CDPEndpoint == "" {
		p, err := cdp.FindBrowser(cfg.ExecutablePath, c.Headless)
		if err != nil {
			return nil, err
		}
		c.ExecPath = p
	}
	return cdp.New(c), nil
}

func newPlaywrightEngine(cfg config, log *slog.Logger) (engine.Engine, error) {
	return pw.New(pw.Config{
		Browser: cfg.Browser, ExecPath: cfg.ExecutablePath, Headless: cfg.Headless, Viewport: cfg.Viewport, Logger: log,
		DriverCandidates: driverCandidates(),
	})
}

// driverCandidates are where `make pwdriver` puts the Playwright driver,
// relative to the binary (bin/browsermcp) and to the working directory; they
// are searched after $PLAYWRIGHT_DRIVER_PATH.
func driverCandidates() []string {
	dirs := []string{filepath.Join(".cache", "pwdriver")}
	if exe, err := os.Executable(); err == nil {
		dirs = append([]string{filepath.Join(filepath.Dir(exe), "..", ".cache", "pwdriver")}, dirs...)
	}
	return dirs
}

func noDisplay() bool {
	return runtime.GOOS == "linux" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == ""
}

func parseFlags(args []string, stdout, stderr io.Writer) (config, error) {
	cfg := config{Browser: "chromium", SessionTimeout: 5 * time.Minute, MaxSessions: 10, Viewport: engine.Viewport{Width: 1280, Height: 720}}
	fs := flag.NewFlagSet("browsermcp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		timeoutMS   int
		viewport    = "1280x720"
		showVersion bool
	)
	fs.StringVar(&cfg.Browser, "browser", cfg.Browser, "browser: chromium, firefox or webkit")
	fs.StringVar(&cfg.Engine, "engine", "", "`engine`: cdp (Chromium only, the default for chromium) or playwright (the default for firefox and webkit)")
	fs.BoolVar(&cfg.Headless, "headless", false, "run the browser without a window (automatic when there is no display)")
	for _, n := range []string{"sessionTimeout", "session-timeout"} {
		fs.IntVar(&timeoutMS, n, int(cfg.SessionTimeout.Milliseconds()), "idle `ms` before a session expires")
	}
	for _, n := range []string{"maxSessions", "max-sessions"} {
		fs.IntVar(&cfg.MaxSessions, n, cfg.MaxSessions, "maximum open sessions")
	}
	fs.StringVar(&cfg.CDPEndpoint, "cdp-endpoint", "", "attach to a running Chrome at this `URL` (http://host:port or ws://...)")
	fs.StringVar(&cfg.ExecutablePath, "executable-path", "", "browser binary `path` (default: $"+cdp.EnvExecutablePath+", then PATH)")
	fs.StringVar(&viewport, "viewport-size", viewport, "page size `WxH`")
	fs.BoolVar(&showVersion, "version", false, "print the version and exit")
	fs.Usage = func() {
		fmt.Fprintf(stdout, "Usage: browsermcp [flags]\n\nAn MCP server (stdio) that drives real browsers in isolated sessions.\n\nFlags:\n")
		fs.SetOutput(stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.Usage()
			return cfg, err
		}
		return cfg, fmt.Errorf("%w: %v", errUsage, err)
	}
	if showVersion {
		fmt.Fprintln(stdout, "browsermcp", version)
		return cfg, flag.ErrHelp
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	switch cfg.Browser {
	case "chromium", "firefox", "webkit":
	default:
		return cfg, fmt.Errorf("%w: invalid value %q for flag -browser: want chromium, firefox or webkit", errUsage, cfg.Browser)
	}
	if cfg.Engine == "" {
		cfg.Engine = defaultEngine[cfg.Browser]
	}
	eng, ok := engines[cfg.Engine]
	switch {
	case !ok:
		return cfg, fmt.Errorf("%w: invalid value %q for flag -engine: want cdp or playwright", errUsage, cfg.Engine)
	case !slices.Contains(eng.browsers, cfg.Browser):
		return cfg, fmt.Errorf("%w: --engine %s drives only %s, not %s; use --engine playwright", errUsage, cfg.Engine, strings.Join(eng.browsers, ", "), cfg.Browser)
	case cfg.CDPEndpoint != "" && cfg.Engine != "cdp":
		return cfg, fmt.Errorf("%w: --cdp-endpoint needs --engine cdp", errUsage)
	}
	if timeoutMS <= 0 {
		return cfg, fmt.Errorf("%w: invalid value %d for flag -sessionTimeout: must be a positive number of ms", errUsage, timeoutMS)
	}
	cfg.SessionTimeout = time.Duration(timeoutMS) * time.Millisecond
	if cfg.MaxSessions <= 0 {
		return cfg, fmt.Errorf("%w: invalid value %d for flag -maxSessions: must be at least 1", errUsage, cfg.MaxSessions)
	}
	vp, err := parseViewport(viewport)
	if err != nil {
		return cfg, fmt.Errorf("%w: invalid value %q for flag -viewport-size: %v", errUsage, viewport, err)
	}
	cfg.Viewport = vp
	return cfg, nil
}

func parseViewport(s string) (engine.Viewport, error) {
	w, h, ok := strings.Cut(strings.ToLower(s), "x")
	wi, err1 := strconv.Atoi(w)
	hi, err2 := strconv.Atoi(h)
	if !ok || err1 != nil || err2 != nil || wi <= 0 || hi <= 0 || wi > 10000 || hi > 10000 {
		return engine.Viewport{}, errors.New("want WIDTHxHEIGHT, e.g. 1280x720")
	}
	return engine.Viewport{Width: wi, Height: hi}, nil
}

// Command browsermcp is an MCP server that lets AI agents drive real
// browsers in isolated, concurrent sessions, over stdio or HTTP. See
// README.md. Settings come from config.go, the HTTP transport from http.go,
// logging from logging.go.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/cdp"
	"github.com/seed4af8c199/browsermcp/engine/pw"
	"github.com/seed4af8c199/browsermcp/internal/logbridge"
	"github.com/seed4af8c199/browsermcp/tools"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, err := loadConfig(args, getenv, stdout)
	switch {
	case errors.Is(err, errPrinted):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintln(stderr, "browsermcp:", strings.TrimPrefix(err.Error(), errUsage.Error()+": "))
		return 2
	case err != nil:
		fmt.Fprintln(stderr, "browsermcp:", err)
		return 1
	}
	logs, err := logbridge.New(logbridge.Options{Level: cfg.Logging.Level, Format: cfg.Logging.Format, File: cfg.Logging.File}, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "browsermcp:", err)
		return 1
	}
	defer logs.Close()
	log := logs.Logger

	eng, err := newEngine(cfg, stderr, log)
	if err != nil {
		fmt.Fprintln(stderr, "browsermcp:", err)
		return 1
	}
	// The browser starts now, in the background: initialize does not wait
	// for it; the first session does.
	eng.Start()
	vp, _ := parseViewport(cfg.Browser.Viewport)
	mgr := engine.NewManager(eng, engine.ManagerConfig{
		Timeout:     time.Duration(cfg.Session.DefaultTimeout) * time.Millisecond,
		MaxSessions: cfg.Session.MaxSessions,
		Defaults:    engine.SessionOptions{Viewport: vp},
	})
	srv := tools.NewServer(mgr, tools.Options{
		Version: version, Log: log,
		DisabledTools:      disabledTools(cfg.Security),
		Caps:               capsOf(cfg),
		MaxScreenshotBytes: cfg.Security.MaxScreenshotSize,
	})
	logs.Attach(srv)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if cfg.Transport == "http" {
		err = serveHTTP(ctx, cfg, srv, log, stderr)
	} else {
		err = serveStdio(ctx, srv, log, stdin, stdout)
	}
	shutdown(mgr, eng, log)
	if err != nil {
		fmt.Fprintln(stderr, "browsermcp:", err)
		return 1
	}
	return 0
}

func serveStdio(ctx context.Context, srv *server.MCPServer, log *slog.Logger, stdin io.Reader, stdout io.Writer) error {
	stdio := server.NewStdioServer(srv)
	stdio.SetErrorLogger(slog.NewLogLogger(log.Handler(), slog.LevelError))
	server.WithWorkerPoolSize(64)(stdio)
	err := stdio.Listen(ctx, stdin, stdout)
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		log.Error("stdio server stopped", "err", err)
	}
	return nil
}

// capsOf returns the opt-in tool groups; loadConfig has checked them.
func capsOf(cfg config) []tools.Group {
	caps, _ := tools.ParseCaps(strings.Join(cfg.Capabilities, ","))
	return caps
}

// disabledTools lists the tools the security settings take away.
func disabledTools(s securityConfig) []string {
	var off []string
	if !s.EnableScriptEvaluation {
		off = append(off, "evaluate")
	}
	if !s.EnableFileUpload {
		off = append(off, "upload_file")
	}
	return off
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

// engineName is --engine, or the default for --browser.
func engineName(cfg *config) string {
	if cfg.Browser.Engine != "" {
		return cfg.Browser.Engine
	}
	return defaultEngine[cfg.Browser.Type]
}

// newEngine builds the engine and checks that its browser (and driver) are
// installed, so that a missing one fails at startup with what to install.
func newEngine(cfg config, stderr io.Writer, log *slog.Logger) (engine.Engine, error) {
	if cfg.Browser.CDPEndpoint == "" && !cfg.Browser.Headless && noDisplay() {
		cfg.Browser.Headless = true
		fmt.Fprintln(stderr, "browsermcp: no display (DISPLAY and WAYLAND_DISPLAY are unset), running the browser headless")
	}
	return engines[engineName(&cfg)].build(cfg, log)
}

func newCDPEngine(cfg config, log *slog.Logger) (engine.Engine, error) {
	b := cfg.Browser
	pol, err := engine.NewPolicy(cfg.Security.AllowedDomains, cfg.Security.BlockedDomains, cfg.Security.AllowFileURLs)
	if err != nil {
		return nil, err
	}
	vp, _ := parseViewport(b.Viewport)
	c := cdp.Config{Endpoint: b.CDPEndpoint, Headless: b.Headless, Viewport: vp, Logger: log, Policy: pol, Dialogs: engine.DialogPolicy(b.Dialogs)}
	// For tests and slow machines; not a documented flag.
	if d, err := time.ParseDuration(os.Getenv("BROWSERMCP_LAUNCH_TIMEOUT")); err == nil && d > 0 {
		c.LaunchTimeout = d
	}
	if b.CDPEndpoint == "" {
		p, err := cdp.FindBrowser(b.ExecutablePath, c.Headless)
		if err != nil {
			return nil, err
		}
		c.ExecPath = p
	}
	return cdp.New(c), nil
}

func newPlaywrightEngine(cfg config, log *slog.Logger) (engine.Engine, error) {
	b := cfg.Browser
	pol, err := engine.NewPolicy(cfg.Security.AllowedDomains, cfg.Security.BlockedDomains, cfg.Security.AllowFileURLs)
	if err != nil {
		return nil, err
	}
	vp, _ := parseViewport(b.Viewport)
	return pw.New(pw.Config{
		Browser: b.Type, ExecPath: b.ExecutablePath, Headless: b.Headless, Viewport: vp, Logger: log,
		Dialogs:          engine.DialogPolicy(b.Dialogs),
		Policy:           pol,
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

func parseViewport(s string) (engine.Viewport, error) {
	w, h, ok := strings.Cut(strings.ToLower(s), "x")
	wi, err1 := strconv.Atoi(w)
	hi, err2 := strconv.Atoi(h)
	if !ok || err1 != nil || err2 != nil || wi <= 0 || hi <= 0 || wi > 10000 || hi > 10000 {
		return engine.Viewport{}, errors.New("want WIDTHxHEIGHT, e.g. 1280x720")
	}
	return engine.Viewport{Width: wi, Height: hi}, nil
}

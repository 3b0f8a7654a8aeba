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
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/engines"
	"github.com/seed4af8c199/browsermcp/internal/httpserve"
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

	eng, err := engines.New(cfg.engineConfig(), log, stderr)
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
		err = httpserve.Serve(ctx, cfg.httpOptions(), srv, log, stderr)
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

func parseViewport(s string) (engine.Viewport, error) {
	w, h, ok := strings.Cut(strings.ToLower(s), "x")
	wi, err1 := strconv.Atoi(w)
	hi, err2 := strconv.Atoi(h)
	if !ok || err1 != nil || err2 != nil || wi <= 0 || hi <= 0 || wi > 10000 || hi > 10000 {
		return engine.Viewport{}, errors.New("want WIDTHxHEIGHT, e.g. 1280x720")
	}
	return engine.Viewport{Width: wi, Height: hi}, nil
}

// Command browsermcp is an MCP server that lets AI agents drive real
// browsers in isolated, concurrent sessions, over stdio, HTTP or a
// WebSocket. See
// README.md. The settings come from internal/config, the engine from
// internal/engines, the tools from tools, the HTTP transport from
// internal/httpserve and the logger from internal/logbridge; this file wires
// them together, serves stdio, and turns the outcome into an exit status.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/cli"
	"github.com/seed4af8c199/browsermcp/internal/config"
	"github.com/seed4af8c199/browsermcp/internal/engines"
	"github.com/seed4af8c199/browsermcp/internal/httpserve"
	"github.com/seed4af8c199/browsermcp/internal/install"
	"github.com/seed4af8c199/browsermcp/internal/jsonrpc"
	"github.com/seed4af8c199/browsermcp/internal/logbridge"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/tools"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	os.Exit(run(os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole program; it returns the exit status: 0, 1 for a failure,
// 2 for a usage error.
func run(args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	// `browsermcp install ...` sets up the driver and browsers; without a
	// subcommand, or with serve, the binary is the server.
	var daemon *cli.DaemonOptions
	if len(args) > 0 {
		switch args[0] {
		case "daemon":
			o, rest, err := cli.ParseDaemonArgs(args[1:], version)
			if err != nil {
				fmt.Fprintln(stderr, "browsermcp daemon:", err)
				return 2
			}
			daemon, args = &o, rest
		case "install":
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return install.Main(ctx, args[1:], stderr)
		case "serve":
			args = args[1:]
		default:
			// `browsermcp open URL`, `snapshot -i`, ...: the command line,
			// over the daemon.
			if cli.IsCommandLine(args) {
				ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
				defer stop()
				return cli.Main(ctx, args, getenv, stdin, stdout, stderr)
			}
		}
	}
	cfg, err := config.Load(args, getenv, stdout, version)
	switch {
	case errors.Is(err, config.ErrPrinted):
		return 0
	case errors.Is(err, config.ErrUsage):
		fmt.Fprintln(stderr, "browsermcp:", strings.TrimPrefix(err.Error(), config.ErrUsage.Error()+": "))
		return 2
	case err != nil:
		fmt.Fprintln(stderr, "browsermcp:", err)
		return 1
	}
	if note := cfg.LogNote(); note != "" {
		fmt.Fprintln(stderr, note)
	}
	logs, err := logbridge.New(cfg.LogOptions(), stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "browsermcp:", err)
		return 1
	}
	defer logs.Close()
	log := logs.Logger

	// Checked by Load; selectors are parsed without a session at hand.
	_ = engine.SetTestIDAttribute(cfg.Browser.TestIDAttribute)
	eng, err := engines.New(cfg.EngineConfig(), log, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "browsermcp:", err)
		if engines.IsEndpointError(err) {
			return 2
		}
		return 1
	}
	// The browser starts now, in the background: initialize does not wait
	// for it; the first session does.
	eng.Start()
	mcfg := cfg.ManagerConfig()
	mcfg.Log = log
	mgr := sessions.New(eng, mcfg)
	srv := tools.NewServer(mgr, cfg.ToolOptions(log))
	logs.Attach(srv)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	guard := jsonrpc.Guard{MaxMessage: int64(cfg.Security.MaxMessageSize), Check: tools.Check(mgr, srv), Recode: tools.Recode, Turns: tools.Turns(mgr, srv)}
	switch {
	case daemon != nil:
		err = cli.ServeDaemon(ctx, *daemon, getenv, func(key string) http.Handler {
			opts := cfg.HTTPOptions()
			opts.APIKeys, opts.WebSocket = []string{key}, false
			opts.Check, opts.Recode, opts.Turns = guard.Check, guard.Recode, guard.Turns
			return httpserve.NewHandler(srv, opts, log)
		}, log)
	case cfg.Transport == "http" || cfg.Transport == "websocket":
		opts := cfg.HTTPOptions()
		opts.Check, opts.Recode, opts.Turns = guard.Check, guard.Recode, guard.Turns
		err = httpserve.Serve(ctx, opts, srv, log, stderr)
	default:
		err = serveStdio(ctx, srv, guard, log, stdin, stdout)
	}
	shutdown(mgr, eng, log)
	if err != nil {
		fmt.Fprintln(stderr, "browsermcp:", err)
		return 1
	}
	return 0
}

// serveStdio serves MCP on stdin and stdout until stdin ends or ctx does.
// Every message passes guard first: one it refuses is answered at once and
// never reaches mcp-go, and a line over the size limit is skipped as it
// streams in.
func serveStdio(ctx context.Context, srv *server.MCPServer, guard jsonrpc.Guard, log *slog.Logger, stdin io.Reader, stdout io.Writer) error {
	stdio := server.NewStdioServer(srv)
	stdio.SetErrorLogger(slog.NewLogLogger(log.Handler(), slog.LevelError))
	server.WithWorkerPoolSize(64)(stdio)
	out := jsonrpc.NewLockedWriter(stdout)
	err := stdio.Listen(ctx, jsonrpc.Reader(ctx, guard, stdin, out), out)
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
		log.Error("stdio server stopped", "err", err)
	}
	return nil
}

// shutdown closes every session, then the browser we launched.
func shutdown(mgr *sessions.Manager, eng engine.Engine, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	mgr.Shutdown(ctx)
	if err := eng.Close(); err != nil {
		log.Warn("closing the browser", "err", err)
	}
}

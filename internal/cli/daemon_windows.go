//go:build windows

package cli

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"time"
)

// errUnsupported is the answer of the command line on Windows: the
// daemon listens on a Unix socket in a directory only its user can enter,
// which Windows does not offer with the same guarantees. The MCP server
// (no subcommand, or serve) works there as everywhere.
var errUnsupported = errors.New("the command line needs a daemon on a Unix socket, which browsermcp does not offer on Windows; run browsermcp as an MCP server (no subcommand, or serve) instead")

// DaemonOptions configure `browsermcp daemon`.
type DaemonOptions struct {
	RuntimeDir  string
	IdleTimeout time.Duration
	Args        []string
	Version     string
}

// ServeDaemon answers errUnsupported on Windows.
func ServeDaemon(ctx context.Context, o DaemonOptions, getenv func(string) string, mcpHandler func(key string) http.Handler, log *slog.Logger) error {
	return errUnsupported
}

func checkOwner(fs.FileInfo) error { return nil }

func connect(ctx context.Context, dir string, self string, args []string) (info, bool, error) {
	return info{}, false, errUnsupported
}

func processAlive(pid int) bool { return false }

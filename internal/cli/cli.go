// Package cli is browsermcp's command line for shell agents: `browsermcp
// open URL`, `snapshot -i`, `click @e3`, ... Each command is a thin
// wrapper over one MCP tool: the commands are generated from the tool
// registry (tools.Definitions), a tool's own name being a command too,
// with short aliases for the common ones (commands.go).
//
// The commands do not hold the browser: a daemon does (`browsermcp
// daemon`, daemon_unix.go), started detached by the first command and
// reached over a Unix socket in a per-user runtime directory (0700). A
// command speaks MCP to it, Streamable HTTP over the socket (client.go),
// so every call runs through the same transport and tool layer as an MCP
// client's. The
// daemon exits after --idle-timeout without a command, or on `close --all`.
//
// --session NAME (BROWSERMCP_SESSION) names the browser session a command
// runs on; the command creates it on first use (create_session's name)
// and reuses it after, so several processes share it.
//
// Output is compact text for agents (output.go); --json prints the
// structured result. Exit status: 0 success, 1 a tool error (errorCode,
// message and suggestion on stderr) or a failure to reach the daemon, 2 a
// usage error, with the command's help.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// IsCommandLine reports whether args are the command line's rather than
// the MCP server's: their first word that is neither a flag nor a flag's
// value names a command (`browsermcp --session a open URL`), or they hold
// a flag only the command line takes. Server flags alone start the server.
func IsCommandLine(args []string) bool {
	// A bad value of a global flag (--idle-timeout 0) is still the
	// command line's to refuse when a command follows: the server would
	// answer that the command is an unexpected argument.
	g, rest, _ := parseGlobals(args, func(string) string { return "" })
	if g.json || g.sessionSet {
		return true
	}
	return len(rest) > 0 && !strings.HasPrefix(rest[0], "-")
}

// env is what a command runs with.
type env struct {
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	self   string // this binary, to start the daemon
}

// globals are the flags every command takes, anywhere on its line.
type globals struct {
	session    string
	sessionSet bool // --session was given
	json       bool
	idle       time.Duration
	idleSet    bool     // --idle-timeout was given
	serverArgs []string // server flags for the daemon, as given
	help       bool
}

// serverFlags are the server's flags a command passes to the daemon it
// starts, and checks against a running one; the boolean ones take no
// value.
var serverFlags = map[string]bool{
	"browser": false, "engine": false, "headless": true, "executable-path": false, "cdp-endpoint": false,
	"grid-url": false, "config": false, "caps": false, "viewport-size": false, "device": false,
	"user-agent": false, "ignore-https-errors": true, "allowed-domains": false, "blocked-domains": false,
	"output-dir": false, "allow-file-urls": true, "max-sessions": false, "session-timeout": false,
	"log-level": false, "allowed-paths": false, "browser-arg": false, "dialogs": false,
}

// pathFlags are the server flags that name a file or directory.
var pathFlags = map[string]bool{"config": true, "executable-path": true, "output-dir": true}

// Main runs the command line and returns the exit status.
func Main(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "browsermcp:", err)
		return exitError
	}
	e := env{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr, self: self}
	g, rest, err := parseGlobals(args, getenv)
	if err != nil {
		fmt.Fprintln(stderr, "browsermcp:", err)
		fmt.Fprint(stderr, mainHelp())
		return exitUsage
	}
	if len(rest) == 0 {
		if g.help {
			fmt.Fprint(stdout, mainHelp())
			return exitOK
		}
		fmt.Fprintln(stderr, "browsermcp: no command given")
		fmt.Fprint(stderr, mainHelp())
		return exitUsage
	}
	switch rest[0] {
	case "help":
		if len(rest) > 1 {
			if c, ok := lookup(rest[1]); ok {
				fmt.Fprint(stdout, c.help())
				return exitOK
			}
		}
		fmt.Fprint(stdout, mainHelp())
		return exitOK
	case "skill":
		return skillMain(rest[1:], e)
	case "batch":
		return batchMain(ctx, rest[1:], g, e)
	}
	c, ok := lookup(rest[0])
	if !ok {
		fmt.Fprintf(stderr, "browsermcp: unknown command %q\n", rest[0])
		if near := closest(rest[0]); near != "" {
			fmt.Fprintf(stderr, "Did you mean %q?\n\n", near)
		}
		fmt.Fprint(stderr, mainHelp())
		return exitUsage
	}
	if g.help {
		fmt.Fprint(stdout, c.help())
		return exitOK
	}
	if c.local != nil {
		return c.local(ctx, rest[1:], g, e)
	}
	inv, err := c.parse(rest[1:])
	if err != nil {
		fmt.Fprintln(stderr, "browsermcp:", err)
		fmt.Fprint(stderr, c.help())
		return exitUsage
	}
	s, code := open(ctx, g, e)
	if s == nil {
		return code
	}
	defer s.close()
	return s.run(ctx, c, inv, g.json)
}

// parseGlobals takes the global flags out of args, wherever they stand
// before a lone "--", except a server flag's name that the command
// before it takes as its own option. With an error (the first bad value),
// rest still holds the other arguments.
func parseGlobals(args []string, getenv func(string) string) (globals, []string, error) {
	g := globals{session: getenv(EnvSession), idle: DefaultIdleTimeout}
	if g.session == "" {
		g.session = "default"
	}
	var rest []string
	// A bad value does not stop the parse: the rest of the line still
	// tells a command (exit 2, naming the value) from the server's flags.
	var first error
	fail := func(err error) {
		if first == nil {
			first = err
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		if !strings.HasPrefix(a, "--") {
			if a == "-h" {
				g.help = true
				continue
			}
			rest = append(rest, a)
			continue
		}
		name, val, hasVal := strings.Cut(a[2:], "=")
		value := func() (string, error) {
			if hasVal {
				return val, nil
			}
			if i+1 >= len(args) {
				return "", fmt.Errorf("--%s needs a value", name)
			}
			i++
			return args[i], nil
		}
		switch {
		case name == "help":
			g.help = true
		case name == "json":
			g.json = !hasVal || val == "true"
		case name == "session":
			v, err := value()
			if err != nil {
				fail(err)
				continue
			}
			if v == "" {
				fail(errors.New("--session must not be empty"))
				continue
			}
			g.session, g.sessionSet = v, true
		case name == "idle-timeout":
			v, err := value()
			if err != nil {
				fail(err)
				continue
			}
			d, err := parseIdle(v)
			if err != nil {
				fail(err)
				continue
			}
			g.idle, g.idleSet = d, true
		default:
			isBool, ok := serverFlags[name]
			if !ok || commandTakes(rest, name) {
				// A command's own option: also one named as a server
				// flag when it follows a command that takes it
				// (emulate --device "iPhone 13").
				rest = append(rest, a)
				continue
			}
			if isBool {
				if !hasVal {
					val = "true"
				}
				g.serverArgs = append(g.serverArgs, "--"+name+"="+val)
				continue
			}
			v, err := value()
			if err != nil {
				fail(err)
				continue
			}
			if pathFlags[name] && v != "" {
				// The daemon may be asked again from another directory.
				if abs, err := filepath.Abs(v); err == nil {
					v = abs
				}
			}
			g.serverArgs = append(g.serverArgs, "--"+name+"="+v)
		}
	}
	return g, rest, first
}

// mismatch names the server flags a command asks for that the running
// daemon was not started with.
func mismatch(asked, running []string) []string {
	var diff []string
	for _, a := range asked {
		if !slices.Contains(running, a) {
			diff = append(diff, a)
		}
	}
	return diff
}

// daemonArgs are the server flags a command starts the daemon with: its
// own, then the command line's defaults where it gave none. Every tool
// group is on (a shell agent pays no tools/list), and a session lives as
// long as the daemon waits for commands.
func daemonArgs(g globals) []string {
	args := slices.Clone(g.serverArgs)
	has := func(name string) bool {
		return slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--"+name+"=") })
	}
	if !has("caps") && !has("config") {
		args = append(args, "--caps=all")
	}
	if !has("session-timeout") && !has("config") {
		args = append(args, fmt.Sprintf("--session-timeout=%d", g.idle.Milliseconds()))
	}
	return append(args, fmt.Sprintf("--idle-timeout=%d", g.idle.Milliseconds()))
}

// commandTakes reports whether the command that rest starts with takes an
// option called name: its own, or one of its tool's arguments.
func commandTakes(rest []string, name string) bool {
	if len(rest) == 0 {
		return false
	}
	c, ok := lookup(rest[0])
	if !ok {
		return false
	}
	if _, ok := c.option(name); ok {
		return true
	}
	if _, ok := properties(c.tool)[name]; ok {
		return true
	}
	for _, t := range c.also {
		if _, ok := properties(t)[name]; ok {
			return true
		}
	}
	return false
}

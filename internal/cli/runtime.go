package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// EnvRuntimeDir overrides where the daemon's socket and files live.
const EnvRuntimeDir = "BROWSERMCP_RUNTIME_DIR"

// EnvSession names the session of a command given no --session.
const EnvSession = "BROWSERMCP_SESSION"

// DefaultIdleTimeout is how long the daemon waits for a command before it
// exits.
const DefaultIdleTimeout = 30 * time.Minute

// runtimeDir is the per-user directory of the daemon's socket, lock, log
// and info: BROWSERMCP_RUNTIME_DIR, else browsermcp under
// XDG_RUNTIME_DIR, else browsermcp-UID under the temp directory.
func runtimeDir(getenv func(string) string) string {
	if d := getenv(EnvRuntimeDir); d != "" {
		return d
	}
	if d := getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "browsermcp")
	}
	return filepath.Join(os.TempDir(), "browsermcp-"+strconv.Itoa(os.Getuid()))
}

// ensureDir creates dir with 0700, or checks that an existing one is a
// directory of ours that no one else can enter: the socket's permission is
// the directory's.
func ensureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating the runtime directory: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("runtime directory %s is not a directory", dir)
	}
	if err := checkOwner(fi); err != nil {
		return fmt.Errorf("runtime directory %s: %w", dir, err)
	}
	if fi.Mode().Perm() != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("runtime directory %s has mode %v and cannot be made 0700: %w", dir, fi.Mode().Perm(), err)
		}
	}
	return nil
}

// files are the daemon's files in the runtime directory.
type files struct{ dir string }

func (f files) socket() string { return filepath.Join(f.dir, "daemon.sock") }
func (f files) lock() string   { return filepath.Join(f.dir, "daemon.lock") }
func (f files) info() string   { return filepath.Join(f.dir, "daemon.json") }
func (f files) log() string    { return filepath.Join(f.dir, "daemon.log") }

// info is what a daemon tells the commands about itself, in daemon.json
// (0600): its process, the key its socket asks for, and the server flags
// it was started with.
type info struct {
	PID         int      `json:"pid"`
	Key         string   `json:"key"`
	Version     string   `json:"version"`
	Args        []string `json:"args"`
	IdleTimeout int64    `json:"idleTimeoutMs"`
	Started     int64    `json:"started"`
}

func readInfo(path string) (info, error) {
	var in info
	b, err := os.ReadFile(path)
	if err != nil {
		return in, err
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return in, fmt.Errorf("reading %s: %w", path, err)
	}
	if in.Key == "" || in.PID <= 0 {
		return in, errors.New(path + " names no daemon")
	}
	return in, nil
}

// writeInfo writes in atomically, readable by its owner only.
func writeInfo(path string, in info) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	tmp := path + ".tmp" + strconv.Itoa(os.Getpid())
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// parseIdle reads --idle-timeout: a Go duration (30m, 90s) or a number
// of milliseconds, as the server's own timeouts are.
func parseIdle(s string) (time.Duration, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n <= 0 {
			return 0, fmt.Errorf("--idle-timeout must be positive, got %s", s)
		}
		return time.Duration(n) * time.Millisecond, nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("--idle-timeout must be a positive duration such as 30m or a number of ms, got %q", s)
	}
	return d, nil
}

// ParseDaemonArgs takes the daemon's own flags out of args: --idle-timeout
// (how long it waits for a command before it exits; the server's flag of
// that name, which stops the browser between sessions, does not apply to
// the daemon) and --runtime-dir. The rest are server flags.
func ParseDaemonArgs(args []string, version string) (DaemonOptions, []string, error) {
	o := DaemonOptions{IdleTimeout: DefaultIdleTimeout, Version: version}
	var rest []string
	for i := 0; i < len(args); i++ {
		name, val, hasVal := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !strings.HasPrefix(args[i], "-") || (name != "idle-timeout" && name != "runtime-dir") {
			rest = append(rest, args[i])
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return o, nil, fmt.Errorf("--%s needs a value", name)
			}
			i++
			val = args[i]
		}
		if name == "runtime-dir" {
			o.RuntimeDir = val
			continue
		}
		d, err := parseIdle(val)
		if err != nil {
			return o, nil, err
		}
		o.IdleTimeout = d
	}
	o.Args = rest
	return o, rest, nil
}

//go:build unix

package cli

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// DaemonOptions configure `browsermcp daemon`.
type DaemonOptions struct {
	// RuntimeDir holds the socket; empty: the per-user default.
	RuntimeDir  string
	IdleTimeout time.Duration
	// Args are the server flags the daemon runs with, recorded for the
	// commands that ask for others.
	Args    []string
	Version string
}

// ServeDaemon serves MCP over HTTP on the runtime directory's Unix socket
// until ctx ends, a command stops it (close --all), or no request has come
// for o.IdleTimeout. mcpHandler builds the handler of /mcp for the key the
// daemon generates: the same transport and tool layer as
// --transport http.
func ServeDaemon(ctx context.Context, o DaemonOptions, getenv func(string) string, mcpHandler func(key string) http.Handler, log *slog.Logger) error {
	dir := o.RuntimeDir
	if dir == "" {
		dir = runtimeDir(getenv)
	}
	if err := ensureDir(dir); err != nil {
		return err
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	f := files{dir}
	if dialable(f.socket()) {
		return fmt.Errorf("a daemon already listens on %s", f.socket())
	}
	kb := make([]byte, 32)
	if _, err := rand.Read(kb); err != nil {
		return err
	}
	key := base64.RawURLEncoding.EncodeToString(kb)
	me := info{PID: os.Getpid(), Key: key, Version: o.Version, Args: o.Args, IdleTimeout: o.IdleTimeout.Milliseconds(), Started: time.Now().UnixMilli()}
	// The info is in place before the socket: a command that can dial the
	// socket finds the key.
	if err := writeInfo(f.info(), me); err != nil {
		return err
	}
	// A socket left by a daemon that died is in the way; the command that
	// started us holds the lock, so no live daemon owns it.
	if err := os.Remove(f.socket()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	ln, err := net.Listen("unix", f.socket())
	if err != nil {
		return err
	}
	ul := ln.(*net.UnixListener)
	// We unlink the socket ourselves, before closing it: a command that
	// finds it gone starts a new daemon, whose socket our Close must not
	// remove.
	ul.SetUnlinkOnClose(false)
	if err := os.Chmod(f.socket(), 0o600); err != nil {
		ln.Close()
		return err
	}
	stop := make(chan struct{})
	var stopOnce sync.Once
	act := &activity{last: time.Now()}
	mux := http.NewServeMux()
	mux.Handle("/daemon/", http.StripPrefix("/daemon", daemonRoutes(key, me, func() { stopOnce.Do(func() { close(stop) }) })))
	mux.Handle("/", mcpHandler(key))
	hs := &http.Server{Handler: act.wrap(mux), ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	log.Info("daemon listening", "socket", f.socket(), "idleTimeout", o.IdleTimeout.String())

	tick := time.NewTicker(min(max(o.IdleTimeout/10, 10*time.Millisecond), time.Second))
	defer tick.Stop()
	var why string
wait:
	for {
		select {
		case <-ctx.Done():
			why = "signal"
			break wait
		case <-stop:
			why = "close --all"
			break wait
		case err := <-served:
			os.Remove(f.socket())
			return err
		case <-tick.C:
			if act.idleFor() >= o.IdleTimeout {
				why = "idle"
				break wait
			}
		}
	}
	log.Info("daemon stopping", "why", why)
	os.Remove(f.socket())
	if cur, err := readInfo(f.info()); err == nil && cur.PID == me.PID {
		os.Remove(f.info())
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}

// daemonRoutes are the daemon's own: its info, and stop.
func daemonRoutes(key string, me info, stop func()) http.Handler {
	m := http.NewServeMux()
	authorized := func(r *http.Request) bool {
		return subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte("Bearer "+key)) == 1
	}
	m.HandleFunc("GET /info", func(w http.ResponseWriter, r *http.Request) {
		if !authorized(r) {
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		me.Key = ""
		json.NewEncoder(w).Encode(me)
	})
	m.HandleFunc("POST /stop", func(w http.ResponseWriter, r *http.Request) {
		if !authorized(r) {
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		w.Write([]byte(`{"stopping":true}` + "\n"))
		stop()
	})
	return m
}

// activity counts the requests in flight and when the last one ended: the
// daemon is idle when none is in flight and the last ended long enough
// ago.
type activity struct {
	mu       sync.Mutex
	inflight int
	last     time.Time
}

func (a *activity) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.inflight++
		a.mu.Unlock()
		defer func() {
			a.mu.Lock()
			a.inflight--
			a.last = time.Now()
			a.mu.Unlock()
		}()
		h.ServeHTTP(w, r)
	})
}

func (a *activity) idleFor() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.inflight > 0 {
		return 0
	}
	return time.Since(a.last)
}

// checkOwner refuses a directory another user owns.
func checkOwner(fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("owned by uid %d, not by us (%d)", st.Uid, os.Getuid())
	}
	return nil
}

// startTimeout bounds how long a command waits for the daemon it started
// to listen.
const startTimeout = 60 * time.Second

// connect returns the info of the daemon listening in dir, starting one
// with args when none does. A socket whose daemon died is replaced;
// commands racing to start one take turns on a lock file, and all but the
// first find the daemon the first started.
func connect(ctx context.Context, dir string, self string, args []string) (info, bool, error) {
	if err := ensureDir(dir); err != nil {
		return info{}, false, err
	}
	f := files{dir}
	if in, err := readInfo(f.info()); err == nil && dialable(f.socket()) {
		return in, false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	unlock, err := lockFile(ctx, f.lock())
	if err != nil {
		return info{}, false, err
	}
	defer unlock()
	if in, err := readInfo(f.info()); err == nil && dialable(f.socket()) {
		return in, false, nil // another command started it while we waited
	}
	logf, err := os.OpenFile(f.log(), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return info{}, false, err
	}
	defer logf.Close()
	cmd := exec.Command(self, append([]string{"daemon", "--runtime-dir", dir}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return info{}, false, fmt.Errorf("starting the daemon: %w", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	poll := time.NewTicker(5 * time.Millisecond)
	defer poll.Stop()
	for {
		if in, err := readInfo(f.info()); err == nil && in.PID == cmd.Process.Pid && dialable(f.socket()) {
			return in, true, nil
		}
		select {
		case <-exited:
			return info{}, false, fmt.Errorf("the daemon exited at start: %s", tail(f.log()))
		case <-ctx.Done():
			cmd.Process.Kill()
			return info{}, false, fmt.Errorf("the daemon did not listen within %v: %s", startTimeout, tail(f.log()))
		case <-poll.C:
		}
	}
}

// lockFile takes an exclusive flock on path, polling until ctx ends.
func lockFile(ctx context.Context, path string) (func(), error) {
	fh, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err := syscall.Flock(int(fh.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { syscall.Flock(int(fh.Fd()), syscall.LOCK_UN); fh.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			fh.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			fh.Close()
			return nil, fmt.Errorf("waiting for %s: %w", path, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// tail is the end of the daemon's log, for an error.
func tail(path string) string {
	fh, err := os.Open(path)
	if err != nil {
		return "(no log)"
	}
	defer fh.Close()
	st, _ := fh.Stat()
	if st != nil && st.Size() > 2048 {
		fh.Seek(st.Size()-2048, io.SeekStart)
	}
	b, _ := io.ReadAll(fh)
	if len(b) == 0 {
		return "(empty log " + path + ")"
	}
	return string(b)
}

// processAlive reports whether pid runs.
func processAlive(pid int) bool {
	return pid > 0 && syscall.Kill(pid, 0) == nil
}

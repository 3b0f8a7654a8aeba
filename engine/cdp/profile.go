package cdp

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/rundir"
)

// A persistent profile (Config.UserDataDir) is one directory that one
// browser at a time may use: Chromium marks the one it runs on with a
// SingletonLock link naming its host and process id, and a second
// Chromium started on it hands its command line to the first and exits.
// LockProfile refuses such a profile at startup, naming the directory,
// and holds a lock of its own on it, so that a second server on the same
// directory is refused too, even before its browser has started.

// profileLock is the lock LockProfile holds on the profile directory.
type profileLock struct {
	once   sync.Once
	unlock func()
}

// release lets go of the lock, once; a nil lock is none.
func (l *profileLock) release() {
	if l != nil {
		l.once.Do(l.unlock)
	}
}

// LockProfile claims Config.UserDataDir for this engine until Close: it
// makes the directory, and fails, naming it, when another server or a
// running Chromium uses it. Call it once, before Start.
func (e *Engine) LockProfile() error {
	dir := e.cfg.UserDataDir
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("the browser profile %s: %w", dir, err)
	}
	release, err := lockDir(dir)
	if err != nil {
		return fmt.Errorf("the browser profile %s is in use by another browsermcp server: %w", dir, err)
	}
	if err := checkSingleton(dir); err != nil {
		release()
		return err
	}
	e.lock = &profileLock{unlock: release}
	return nil
}

// checkSingleton reads Chromium's SingletonLock in dir: "<host>-<pid>".
func checkSingleton(dir string) error {
	target, err := os.Readlink(filepath.Join(dir, "SingletonLock"))
	if err != nil {
		return nil // none, or not a link: Chromium's own check decides
	}
	i := strings.LastIndexByte(target, '-')
	if i < 0 {
		return nil
	}
	host, p := target[:i], target[i+1:]
	pid, err := strconv.Atoi(p)
	if err != nil {
		return nil
	}
	self, _ := os.Hostname()
	switch {
	case host != self:
		return fmt.Errorf("the browser profile %s is in use by a browser on host %s (process %d) according to its SingletonLock; remove %s if no browser uses it",
			dir, host, pid, filepath.Join(dir, "SingletonLock"))
	case holdsProfile(pid):
		return fmt.Errorf("the browser profile %s is in use by another browser (process %d); close it, or give another --user-data-dir", dir, pid)
	}
	return nil // stale: Chromium takes it over
}

// holdsProfile reports whether process pid can be the Chromium of a
// SingletonLock: it runs and, where /proc tells, its program is a
// Chromium, not another that got the pid of one gone, as Chromium checks
// too.
func holdsProfile(pid int) bool {
	if !rundir.ProcessExists(pid) {
		return false
	}
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	if err != nil {
		return true
	}
	return strings.Contains(strings.ToLower(filepath.Base(exe)), "chrom")
}

// checkProfile checks the options of a session on the persistent
// profile: it runs in the browser's own context, which takes no proxy
// of its own, and the domain rules cannot hold its WebSockets.
func (e *Engine) checkProfile(opts engine.SessionOptions, relay *socketRelay) error {
	switch {
	case e.cfg.UserDataDir == "" || e.cfg.Endpoint != "":
		return engine.Errorf(engine.BrowserError, "this browser has no persistent profile (--user-data-dir)")
	case opts.Proxy != "":
		return engine.Errorf(engine.InvalidParameters, "the session on the persistent profile (--user-data-dir) runs in the browser's own context, which takes no proxy").With("field", "proxy")
	case relay != nil:
		return engine.Errorf(engine.BrowserError, "the session on the persistent profile (--user-data-dir) cannot hold allowedDomains/blockedDomains on WebSockets")
	}
	return nil
}

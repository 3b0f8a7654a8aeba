// Package rundir keeps what a browsermcp server's browsers write on disk
// (their profile directories) under one directory of ours,
// os.TempDir()/browsermcp-runtime, each named by its owner's process id and
// start time. A server that exits cleanly removes its directories; one that
// was killed (SIGKILL) cannot, so the next server to make a directory
// there sweeps those of owners that are gone.
package rundir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// RootName is the name of the runtime directory under os.TempDir().
const RootName = "browsermcp-runtime"

// Root is the runtime directory: os.TempDir()/browsermcp-runtime.
func Root() string { return filepath.Join(os.TempDir(), RootName) }

var sweepOnce sync.Map // root -> struct{}: swept once per process and root

// MkdirTemp makes a new directory for this process under Root, named
// <prefix>-<pid>.<start>-<random>. The first call for a root sweeps the
// directories of owners that are gone.
func MkdirTemp(prefix string) (string, error) {
	root := Root()
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", fmt.Errorf("making the runtime directory: %w", err)
	}
	if _, done := sweepOnce.LoadOrStore(root, struct{}{}); !done {
		Sweep(root)
	}
	return os.MkdirTemp(root, fmt.Sprintf("%s-%s-", prefix, self()))
}

// self is this process's owner tag: <pid>.<start>.
func self() string {
	pid := os.Getpid()
	return fmt.Sprintf("%d.%d", pid, startTime(pid))
}

// Sweep removes the directories under root whose owner process is gone,
// and returns them. A directory whose name it cannot read is left alone.
func Sweep(root string) []string {
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range ents {
		pid, start, ok := owner(e.Name())
		if !ok || alive(pid, start) {
			continue
		}
		dir := filepath.Join(root, e.Name())
		// RemoveAll tries again for a moment: a killed browser's last
		// helper can still write in its profile as the sweep runs, and
		// one try then fails with "directory not empty" (seen on a
		// loaded machine), leaving the profile for good.
		if RemoveAll(dir) == nil {
			removed = append(removed, dir)
		}
	}
	return removed
}

// owner reads <prefix>-<pid>.<start>-<random>.
func owner(name string) (pid int, start uint64, ok bool) {
	parts := strings.Split(name, "-")
	if len(parts) < 3 {
		return 0, 0, false
	}
	p, s, found := strings.Cut(parts[len(parts)-2], ".")
	if !found {
		return 0, 0, false
	}
	pid, err1 := strconv.Atoi(p)
	start, err2 := strconv.ParseUint(s, 10, 64)
	if err1 != nil || err2 != nil || pid <= 0 {
		return 0, 0, false
	}
	return pid, start, true
}

// alive reports whether the process pid that started at start still
// runs. Where /proc tells start times (Linux), a pid reused by another
// process counts as gone.
func alive(pid int, start uint64) bool {
	if start != 0 {
		if _, err := os.Stat("/proc/self/stat"); err == nil {
			st, ok := procStat(pid)
			// A zombie is gone too: it only waits for its parent to reap it.
			return ok && st.start == start && st.state != "Z"
		}
	}
	return processExists(pid)
}

// startTime is the process's start time in clock ticks since boot
// (/proc/<pid>/stat, field 22); 0 when unknown or the process is gone.
func startTime(pid int) uint64 {
	st, _ := procStat(pid)
	return st.start
}

type stat struct {
	state string
	start uint64
}

// procStat reads a process's state and start time from /proc.
func procStat(pid int) (stat, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return stat{}, false
	}
	// The command name, in parentheses, may hold spaces: count fields
	// after its closing parenthesis, where field 3 (state) is the first.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return stat{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return stat{}, false
	}
	v, _ := strconv.ParseUint(f[19], 10, 64)
	return stat{state: f[0], start: v}, true
}

// RemoveAll removes dir, trying again for a few seconds while it fails:
// a browser's helper processes can still write in their profile for a
// moment after the browser exited.
func RemoveAll(dir string) error {
	deadline := time.Now().Add(removeFor)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		err := os.RemoveAll(dir)
		if err == nil || errors.Is(err, os.ErrNotExist) || time.Now().After(deadline) {
			return err
		}
		<-tick.C
	}
}

// removeFor bounds RemoveAll's retries.
const removeFor = 5 * time.Second

// ProcessExists reports whether a process with this id runs; where the
// system cannot tell, it reports true.
func ProcessExists(pid int) bool { return processExists(pid) }

// Contains reports whether dir lies in Root, where the sweep may remove
// it: a directory a user names (a persistent profile) must not.
func Contains(dir string) bool {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	root := Root()
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	rel, err := filepath.Rel(root, abs)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

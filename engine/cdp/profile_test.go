package cdp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine/cdp"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// TestLockProfile: a persistent profile is claimed by one engine at a
// time, and freed by its Close; a SingletonLock of a live Chromium on this
// host refuses it, and a stale one (its process gone, or its pid now
// another program's) does not. Each refusal names the directory. No
// engine starts a browser.
func TestLockProfile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "profile")
	first := cdp.New(cdp.Config{UserDataDir: dir})
	if err := first.LockProfile(); err != nil {
		t.Fatal(err)
	}
	second := cdp.New(cdp.Config{UserDataDir: dir})
	if err := second.LockProfile(); err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "another browsermcp server") {
		t.Fatalf("a second engine on the profile: %v", err)
	}
	first.Close()
	if err := second.LockProfile(); err != nil {
		t.Fatalf("once the first engine closed: %v", err)
	}
	second.Close()

	// A SingletonLock naming a running Chromium of this host.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	browser := exec.CommandContext(ctx, testenv.Chromium(t), "--headless", "--no-sandbox", "--user-data-dir="+filepath.Join(t.TempDir(), "other"),
		"--remote-debugging-port=0", "about:blank")
	if err := browser.Start(); err != nil {
		t.Fatal(err)
	}
	defer browser.Wait()
	defer cancel()
	host, _ := os.Hostname()
	lock := filepath.Join(dir, "SingletonLock")
	e := cdp.New(cdp.Config{UserDataDir: dir})
	for _, tc := range []struct {
		pid  int
		what string
	}{{browser.Process.Pid, "a live Chromium"}, {os.Getpid(), "a live process that is not a Chromium (a reused pid)"}, {1 << 30, "a process that is gone"}} {
		os.Remove(lock)
		if err := os.Symlink(host+"-"+strconv.Itoa(tc.pid), lock); err != nil {
			t.Fatal(err)
		}
		err := e.LockProfile()
		if tc.pid == browser.Process.Pid {
			if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "in use by another browser") {
				t.Errorf("a SingletonLock of %s: %v", tc.what, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("a SingletonLock of %s: %v", tc.what, err)
		}
		e.Close()
		e = cdp.New(cdp.Config{UserDataDir: dir})
	}
}

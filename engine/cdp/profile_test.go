package cdp_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine/cdp"
)

// TestLockProfile: a persistent profile is claimed by one engine at a
// time, and freed by its Close; a SingletonLock of a live Chromium on this
// host refuses it, and a stale one does not. Each refusal names the
// directory. No browser starts.
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

	host, _ := os.Hostname()
	lock := filepath.Join(dir, "SingletonLock")
	if err := os.Symlink(host+"-"+strconv.Itoa(os.Getpid()), lock); err != nil {
		t.Fatal(err)
	}
	e := cdp.New(cdp.Config{UserDataDir: dir})
	if err := e.LockProfile(); err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "in use by another browser") {
		t.Fatalf("a profile with a live SingletonLock: %v", err)
	}
	os.Remove(lock)
	// A pid that cannot be running: the lock of a browser that is gone.
	if err := os.Symlink(host+"-"+strconv.Itoa(1<<30), lock); err != nil {
		t.Fatal(err)
	}
	if err := e.LockProfile(); err != nil {
		t.Fatalf("a profile with a stale SingletonLock: %v", err)
	}
	e.Close()
}

package rundir

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

func TestSweepRemovesOnlyDeadOwners(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("start times come from /proc")
	}
	t.Setenv("TMPDIR", t.TempDir())
	root := Root()
	if err := os.MkdirAll(root, 0o700); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	dead := cmd.Process.Pid
	me := os.Getpid()
	mk := func(name string) string {
		d := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Join(d, "Default"), 0o700); err != nil {
			t.Fatal(err)
		}
		return d
	}
	ours := mk(fmt.Sprintf("chromium-%d.%d-1", me, startTime(me)))
	gone := mk(fmt.Sprintf("chromium-%d.%d-2", dead, 12345))
	reused := mk(fmt.Sprintf("chromium-%d.%d-3", me, startTime(me)+1))
	other := mk("not-ours")

	removed := Sweep(root)
	for _, d := range []string{gone, reused} {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s (owner gone) is still there; swept %v", d, removed)
		}
	}
	for _, d := range []string{ours, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed: %v", d, err)
		}
	}
	d, err := MkdirTemp("firefox")
	if err != nil {
		t.Fatal(err)
	}
	if pid, start, ok := owner(filepath.Base(d)); !ok || pid != me || start != startTime(me) {
		t.Fatalf("MkdirTemp made %s, whose owner reads as %d.%d (%v)", d, pid, start, ok)
	}
}

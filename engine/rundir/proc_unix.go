//go:build unix

package rundir

import (
	"errors"
	"syscall"
)

// processExists reports whether a process with this id exists (signal 0).
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

//go:build unix

package cdp

import (
	"errors"
	"os"
	"syscall"
)

// lockDir takes an exclusive flock on the directory itself, which writes
// nothing into it; the lock goes with the process.
func lockDir(dir string) (func(), error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errors.New("it is locked")
		}
		return nil, err
	}
	return func() { f.Close() }, nil
}

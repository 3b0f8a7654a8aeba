package engine

import (
	"errors"
	"syscall"
)

// diskFull tells whether err is the file system's "no space left on
// device" or "disk quota exceeded".
func diskFull(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

package testenv

import (
	"path/filepath"
	"runtime"
)

// PlaywrightDriverDir is where `make pwdriver` puts the driver in this
// repository; FindDriver looks there after $PLAYWRIGHT_DRIVER_PATH.
func PlaywrightDriverDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", ".cache", "pwdriver")
}

//go:build !unix

package cdp

// lockDir takes no lock where flock is missing: Chromium's SingletonLock
// check (checkSingleton) is the only one.
func lockDir(string) (func(), error) { return func() {}, nil }

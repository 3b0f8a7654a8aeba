//go:build !unix

package rundir

// processExists cannot tell here, so every owner counts as alive and
// nothing is swept.
func processExists(int) bool { return true }

package page

import (
	"regexp"
	"strconv"

	"github.com/seed4af8c199/browsermcp/engine"
)

var refPattern = regexp.MustCompile(`^(f[1-9][0-9]*)?e([1-9][0-9]*)$`)

// ParseRef splits a ref from a snapshot into its frame alias ("" for the
// page, "fK" for the K-th cross-origin frame) and its number; a string that
// is not a ref is INVALID_PARAMETERS.
func ParseRef(ref string) (alias string, n int, err error) {
	m := refPattern.FindStringSubmatch(ref)
	if m != nil {
		// A number too large for an int was never given out; Atoi's
		// saturated value must not stand for it.
		if n, err = strconv.Atoi(m[2]); err == nil {
			return m[1], n, nil
		}
	}
	return "", 0, engine.Errorf(engine.InvalidParameters, "ref %q is not a ref from a snapshot (like e12 or f1e7)", ref).
		With("field", "ref")
}

// StaleRef is the ELEMENT_NOT_FOUND (reason stale_ref) error for a ref
// whose element is gone; why says how.
func StaleRef(ref, why string) *engine.Error {
	return engine.Errorf(engine.ElementNotFound, "ref %s no longer names an element: %s", ref, why).
		With("reason", "stale_ref").With("ref", ref).
		Suggest("Take a new snapshot and use the refs it shows; refs of removed elements, of a previous page or of another tab do not come back.")
}

// UnknownRef is the ELEMENT_NOT_FOUND (reason unknown_ref) error for a ref
// the session never gave out.
func UnknownRef(ref string) *engine.Error {
	return engine.Errorf(engine.ElementNotFound, "ref %s was never given out in this session", ref).
		With("reason", "unknown_ref").With("ref", ref).
		Suggest("Use a ref from the latest snapshot of this session.")
}

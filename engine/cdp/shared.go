package cdp

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// ElementScript returns js/element.js, the in-page function that resolves a
// target and checks it for an action. engine/pw evaluates the same script so
// that both engines find the same element and fail with the same codes and
// details.
func ElementScript() string { return elementJS }

// ElementCheck is what ElementScript returns, decoded from JSON.
type ElementCheck = elemResult

// ElementError classifies a failed ElementCheck into the engine error every
// engine returns for it; it returns nil when the check passed.
func ElementError(r ElementCheck, tg engine.Target, timeout time.Duration) error {
	return elemError(r, tg, timeout)
}

// EvalScript returns js/eval.js, the in-page runner of engine.EvalRequest
// functions. engine/pw evaluates the same script so that results, waits and
// failures match.
func EvalScript() string { return evalJS }

// EvalOutcome is what EvalScript returns, decoded from JSON.
type EvalOutcome = evalOut

// EvalResult turns an EvalOutcome into the JSON result or the engine error
// every engine returns for it.
func EvalResult(r EvalOutcome, tg engine.Target, timeout time.Duration) (json.RawMessage, error) {
	return decodeEval(r, tg, timeout)
}

// ParseKey parses a key such as "Control+Shift+A" plus extra modifiers as
// engine/cdp's Press does, with the same INVALID_PARAMETERS errors, and
// returns the modifiers and the key as DOM key names ("Control", "Enter",
// " ", "a").
func ParseKey(key string, extra []string) (mods []string, name string, err error) {
	ms, k, err := parseKey(key, extra)
	if err != nil {
		return nil, "", err
	}
	for _, m := range ms {
		mods = append(mods, modifierBits[strings.ToLower(m)].key)
	}
	return mods, k.Key, nil
}

// SnapshotScript returns js/snapshot.js, the in-page walk that builds the
// accessibility outline and keeps the ref registry (window.__bmcp). engine/pw
// evaluates the same script, so that both engines print the same outline
// and give out refs under the same rules.
func SnapshotScript() string { return snapshotJS }

// SnapshotArgs are the arguments of SnapshotScript.
type SnapshotArgs = walkArgs

// SnapshotOutcome is what SnapshotScript returns, decoded from JSON.
type SnapshotOutcome = walkOut

// SnapshotError classifies a failed SnapshotOutcome for the subtree tg into
// the engine error every engine returns for it; nil when the walk succeeded.
func SnapshotError(out SnapshotOutcome, tg engine.Target) error { return walkErr(out, tg) }

// SpliceFrames replaces each line of out that stands for a cross-origin
// frame by frame's outline of that frame's content (given its index in the
// walk's frame list), indented to the line.
func SpliceFrames(out SnapshotOutcome, frame func(idx int) (string, error)) (string, error) {
	return spliceFrames(out, frame)
}

// MaxFrameDepth bounds the nesting of cross-origin frames a snapshot walks.
const MaxFrameDepth = maxFrameDepth

// TruncateOutline cuts an outline at the last line boundary within max
// characters (0: no limit) and says so; it reports whether it cut.
func TruncateOutline(text string, max int) (string, bool) { return truncateOutline(text, max) }

// CountRefs counts the refs an outline shows.
func CountRefs(text string) int { return len(refToken.FindAllStringIndex(text, -1)) }

// ParseRef splits a ref from a snapshot into its frame alias ("" for the
// page, "fK" for the K-th cross-origin frame) and its number; a string that
// is not a ref is INVALID_PARAMETERS.
func ParseRef(ref string) (alias string, n int, err error) { return parseRef(ref) }

// UnknownRef is the ELEMENT_NOT_FOUND (reason unknown_ref) error for a ref
// the session never gave out.
func UnknownRef(ref string) *engine.Error { return unknownRef(ref) }

// StaleRef is the ELEMENT_NOT_FOUND (reason stale_ref) error for a ref
// whose element is gone; why says how.
func StaleRef(ref, why string) *engine.Error { return staleRef(ref, why) }

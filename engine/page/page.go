// Package page holds what runs in, or reasons about, the page for every
// engine: engine/cdp and engine/pw evaluate the same in-page scripts and
// decode their answers here, so that both engines find the same element,
// print the same outline and fail with the same codes and details.
//
// The scripts (under js/) are:
//
//   - the snapshot walk (SnapshotScript), which prints the accessibility
//     outline of a document and gives its elements refs; SnapshotArgs are its
//     arguments, SnapshotOutcome its answer, and SpliceFrames,
//     TruncateOutline and CountRefs finish the outline;
//   - the element check (ElementScript), which resolves a target and checks
//     it for one action (a click's wait for a still box and its hit test,
//     typing's focus); ElementCheck is its answer and ElementError the error
//     it means. For a pointer action it also guards the input that follows
//     (Guard*): the hit script (HitScript) ends the guard, Hit is what the
//     input reached and HitError the error when that was another element;
//   - the evaluation runner (EvalScript), which runs an engine.EvalRequest's
//     function on the page or its targets; EvalOutcome is its answer and
//     EvalResult the result or error it means;
//   - the form actions' scripts (fill, select, checked, scroll), which
//     Fill, Select, SetChecked and Scroll run through an engine's Act (its
//     Evaluate that settles and reports what the script caused) and turn
//     into the engine.Session results and errors.
//
// Refs. A snapshot gives every element that can be acted on a ref, "eN" in
// the page and in the same-origin frames it reaches, "fKeN" in the frame
// whose content runs in world fK (a cross-origin frame). Each world keeps a
// registry (window.__bmcp, see js/snapshot.js) from refs to WeakRefs of
// their elements and back, so a ref names one DOM node for as long as the
// node lives. N comes from one counter per session, shared by its tabs, that
// only grows, so a ref is never reused for another node, not even in another
// tab, and a ref below the counter that the registry no longer resolves is
// known to be stale rather than unknown. A ref of another tab, or of a closed
// one, is stale in the current tab: its registry never gave out that number.
// ParseRef reads a ref; StaleRef and UnknownRef are the errors for refs that
// name nothing.
//
// Keys. ParseKey reads a key press such as "Control+Shift+A" the same way
// for every engine.
package page

// Ends the guard that js/element.js set on the input of an action (see its
// guard) and returns what it saw: {none: true} when no event of the action
// reached this world's windows, {ok: true, receivedBy} when the first one
// reached the target, or {missed: true, blocked, reason, element,
// receivedBy, hit, hitText, coveredBy, event} when another element
// received it (blocked: the action's events were stopped before the page
// saw them). When no event reached them, the guard hit-tests the point:
// another element there received the input where no guard could see it (a
// cross-origin frame that covered the target as the input arrived), and
// the answer is {missed: true, unseen: true, ...}, never blocked.
function () {
  const g = window[Symbol.for("browsermcp.guard")];
  return g ? g.stop(true) : { none: true };
}

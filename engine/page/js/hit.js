// Ends the guard that js/element.js set on the input of an action (see its
// guard) and returns what it saw: {none: true} when no event of the action
// reached this world's windows, {ok: true, receivedBy} when the first one
// reached the target, or {missed: true, blocked, reason, element,
// receivedBy, hit, hitText, coveredBy, event} when another element
// received it (blocked: the action's events were stopped before the page
// saw them).
function () {
  const g = window[Symbol.for("browsermcp.guard")];
  return g ? g.stop() : { none: true };
}

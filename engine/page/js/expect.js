// Tells the engine, through the binding named by __NAME__, that the page
// is about to start what the browser reports only later: a download by an
// <a download> link (clicked in the document, or detached and clicked from
// script) or a popup (window.open, a link to another window). The engine
// then waits, bounded, for the browser to report it, so the action's
// result can name it. It only listens: the page's behaviour is unchanged.
(() => {
  const name = "__NAME__";
  const note = (what) => {
    try { globalThis[name](what); } catch {}
  };
  const sameOrigin = (a) => {
    try {
      const u = new URL(a.href, location.href);
      return u.protocol === "blob:" || u.protocol === "data:" || u.origin === location.origin;
    } catch { return false; }
  };
  const anchor = (a) => {
    if (!a || !a.href) return;
    if (a.hasAttribute("download") && sameOrigin(a)) note("download");
    else if (a.target && !/^_(self|parent|top)$/i.test(a.target)) note("popup");
  };
  // Last on the event's path: a handler that cancelled the click has run.
  addEventListener("click", (e) => {
    if (e.defaultPrevented || e.button !== 0) return;
    anchor(e.composedPath().find((n) => n instanceof HTMLAnchorElement || n instanceof HTMLAreaElement));
  });
  // A detached anchor's click never reaches the window.
  const click = HTMLElement.prototype.click;
  const proto = HTMLAnchorElement.prototype;
  Object.defineProperty(proto, "click", {
    configurable: true, writable: true,
    value: { click() { if (!this.isConnected) anchor(this); return click.call(this); } }.click,
  });
  const open = window.open;
  window.open = { open(...args) { note("popup"); return open.apply(this, args); } }.open;
})();

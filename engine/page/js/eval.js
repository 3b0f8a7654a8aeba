// Runs fn in the page, on the target element(s) when a selector is given,
// and returns {json} (the JSON text of the result) or {error, ...}. It waits
// up to a.timeout for the target to appear, retrying on animation frames.
//
// With a.state ("attached", "detached", "visible" or "hidden") it first
// waits until the first match is in that state, and returns {timeout: true}
// when it is not by the deadline; fn then gets the match or null.
//
// a = {kind: ""|"css"|"xpath"|"el", sel, el, all, timeout, args, state}
async (a, fn) => {
  const deadline = Date.now() + (a.timeout || 0);
  const query = __QUERY__;
  const find = () => {
    // "el": the element a ref named, passed in by the engine.
    if (a.kind === "el") return a.el && a.el.isConnected ? [a.el] : [];
    // With all every match; otherwise only the first, which is cheaper
    // when it is in the document (see query.js).
    if (a.all) return query(a.kind, a.sel, true);
    const el = query(a.kind, a.sel, false);
    return el ? [el] : [];
  };
  const next = () => new Promise((res) => {
    let done = false;
    const f = () => { if (!done) { done = true; res(); } };
    requestAnimationFrame(f);
    setTimeout(f, 50);
  });
  const visible = (el) => {
    const r = el.getBoundingClientRect(), st = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && st.visibility !== "hidden";
  };
  const reached = (el) => {
    switch (a.state) {
      case "attached": return !!el;
      case "detached": return !el;
      case "visible": return !!el && visible(el);
      case "hidden": return !el || !visible(el);
    }
  };
  let target;
  if (a.kind && a.state) {
    for (;;) {
      let el;
      try {
        el = find()[0] || null;
      } catch (e) {
        return { error: "invalid_selector", message: String((e && e.message) || e) };
      }
      if (reached(el)) { target = el; break; }
      if (Date.now() >= deadline) return { timeout: true };
      await next();
    }
  } else if (a.kind) {
    for (;;) {
      let els;
      try {
        els = find();
      } catch (e) {
        return { error: "invalid_selector", message: String((e && e.message) || e) };
      }
      if (a.kind === "el" && els.length === 0) return { error: "stale" };
      if (els.length > 0 || Date.now() >= deadline) {
        if (els.length === 0 && !a.all) return { error: "not_found" };
        target = a.all ? els : els[0];
        break;
      }
      await next();
    }
  }
  let v;
  try {
    v = a.kind ? await fn(target, ...(a.args || [])) : await fn(...(a.args || []));
  } catch (e) {
    return { error: "script", message: String((e && e.stack) || e) };
  }
  return encode(v);

  function encode(v) {
    if (v === undefined) return { json: "null" };
    const t = typeof v;
    if (t === "function" || t === "symbol" || t === "bigint") return { error: "not_serializable", type: t };
    if (t === "number" && !isFinite(v)) return { error: "not_serializable", type: String(v) };
    // DOM nodes, collections of them and the window have no JSON of their
    // own (JSON.stringify would give {} or {"0":{},...}): anywhere in the
    // value, they make it not serializable, named.
    const dom = (x) => x === window ? "Window"
      : (x instanceof Node || x instanceof NodeList || x instanceof HTMLCollection) ? x.constructor.name : "";
    let found = "";
    try {
      const json = JSON.stringify(v, function (k, x) {
        const d = x !== null && typeof x === "object" ? dom(x) : "";
        if (d) { found = d; throw new TypeError(d + " is not JSON"); }
        return x;
      });
      return { json: json === undefined ? "null" : json };
    } catch (e) {
      if (found) return { error: "not_serializable", type: found };
      return { error: "not_serializable", type: t, message: String((e && e.message) || e) };
    }
  }
}

// Resolves an element and checks it for one action, inside the page, in one
// round trip. It retries on every animation frame (or 50 ms when frames do
// not run) until the element is ready or the deadline passes, and returns
// either a result or {error, reason, ...} for the engine to classify.
//
// a = {op: "point"|"focus", kind: "css"|"xpath", sel, timeout, force, clear}
async (a) => {
  const deadline = Date.now() + (a.timeout || 0);
  const find = () => {
    if (a.kind === "xpath") {
      return document.evaluate(a.sel, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue;
    }
    return document.querySelector(a.sel);
  };
  const describe = (el) => {
    if (!el || !el.tagName) return String(el);
    let s = el.tagName.toLowerCase();
    if (el.id) s += "#" + el.id;
    else if (typeof el.className === "string" && el.className.trim()) s += "." + el.className.trim().split(/\s+/).slice(0, 2).join(".");
    return s;
  };
  const visible = (el) => {
    const st = getComputedStyle(el);
    if (st.visibility === "hidden" || st.visibility === "collapse") return "hidden";
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return st.display === "none" ? "hidden" : "zero_size";
    return "";
  };
  const disabled = (el) => el.matches(":disabled") || el.getAttribute("aria-disabled") === "true";
  const inView = (r) => r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth;

  const point = (el) => {
    if (!a.force) {
      const v = visible(el);
      if (v) return { error: "not_clickable", reason: v, element: describe(el) };
      if (disabled(el)) return { error: "not_clickable", reason: "disabled", element: describe(el) };
    }
    let rects = [...el.getClientRects()];
    if (!rects.some(inView)) {
      el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
      rects = [...el.getClientRects()];
    }
    const r = rects.find(inView) || el.getBoundingClientRect();
    const left = Math.max(r.left, 0), right = Math.min(r.right, innerWidth);
    const top = Math.max(r.top, 0), bottom = Math.min(r.bottom, innerHeight);
    const x = (left + right) / 2, y = (top + bottom) / 2;
    if (a.force) return { x, y };
    if (right <= left || bottom <= top) return { error: "not_clickable", reason: "outside_viewport", element: describe(el) };
    let hit = document.elementFromPoint(x, y);
    while (hit && hit.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    const owns = (h) => {
      for (let n = h; n; n = n.parentNode || n.host) if (n === el) return true;
      return false;
    };
    if (!hit || !owns(hit)) {
      return { error: "not_clickable", reason: "covered", element: describe(el), coveredBy: describe(hit) };
    }
    return { x, y };
  };

  const textTypes = new Set(["", "text", "search", "email", "url", "tel", "password", "number", "date", "datetime-local", "month", "time", "week"]);
  const focus = (el) => {
    const tag = el.tagName.toLowerCase();
    const isInput = tag === "input" && textTypes.has((el.getAttribute("type") || "").toLowerCase());
    if (!isInput && tag !== "textarea" && !el.isContentEditable) {
      return { error: "not_editable", reason: "not_a_text_field", element: describe(el) };
    }
    if (disabled(el)) return { error: "not_editable", reason: "disabled", element: describe(el) };
    if (el.readOnly) return { error: "not_editable", reason: "readonly", element: describe(el) };
    const v = visible(el);
    if (v) return { error: "not_editable", reason: v, element: describe(el) };
    el.scrollIntoView({ block: "nearest", inline: "nearest", behavior: "instant" });
    el.focus();
    if (document.activeElement !== el && !el.contains(document.activeElement)) {
      return { error: "not_editable", reason: "not_focusable", element: describe(el) };
    }
    if (a.clear) {
      if (el.isContentEditable) el.textContent = "";
      else el.value = "";
      el.dispatchEvent(new Event("input", { bubbles: true }));
    }
    if (el.isContentEditable) {
      const s = getSelection();
      s.selectAllChildren(el);
      s.collapseToEnd();
    } else {
      try { el.setSelectionRange(el.value.length, el.value.length); } catch (e) { /* type=email etc. */ }
    }
    return { ok: true };
  };

  const next = () => new Promise((res) => {
    let done = false;
    const f = () => { if (!done) { done = true; res(); } };
    requestAnimationFrame(f);
    setTimeout(f, 50);
  });

  for (;;) {
    let el;
    try {
      el = find();
    } catch (e) {
      return { error: "invalid_selector", message: String((e && e.message) || e) };
    }
    if (el && el.nodeType !== 1) el = el.parentElement;
    let res = el ? (a.op === "focus" ? focus(el) : point(el)) : { error: "not_found" };
    if (!res.error || Date.now() >= deadline) return res;
    await next();
  }
}

// Resolves an element and checks it for one action, inside the page, in one
// round trip. It retries on every animation frame (or 50 ms when frames do
// not run) until the element is ready or the deadline passes, and returns
// either a result or {error, reason, ...} for the engine to classify.
//
// a = {op: "point"|"focus"|"frame", kind: "css"|"xpath", sel, timeout,
// force, clear, guard, x, y}. Without sel the element is `this` (a ref the engine
// resolved). A point is in the viewport of this world's top window: the
// check climbs through same-origin frames, hit-testing the frame element at
// each level. Op "frame" does that climb for a point (x, y) inside `this`,
// an iframe whose content runs in another world.
//
// A point is only given for an element that holds still: the same box, and
// the same point, in two animation frames in a row (Playwright's "stable"),
// unless forced; an element that keeps moving until the deadline is
// {error: "not_clickable", reason: "not_stable"}. With a.guard ("click",
// "hover" or "down": the input that follows) the check then guards that
// input: see guard below, and js/hit.js, which ends the guard and says what
// it saw. Guard "drop" (a drag's target) waits for a still box, even when
// forced, and guards nothing.
async function (a) {
  const self = this;
  const deadline = Date.now() + (a.timeout || 0);
  const query = __QUERY__;
  const find = () => {
    if (!a.sel) return self && self.isConnected ? self : null;
    return query(a.kind, a.sel, false);
  };
  // An id or class the page wrote with other characters than word ones is
  // CSS-escaped: still a selector, and no outline syntax ([ref=e7]).
  const ident = (s) => /^[\w-]+$/.test(s) ? s : CSS.escape(s);
  const describe = (el) => {
    if (!el || !el.tagName) return String(el);
    let s = el.tagName.toLowerCase();
    if (el.id) s += "#" + ident(el.id);
    else if (typeof el.className === "string" && el.className.trim()) s += "." + el.className.trim().split(/\s+/).slice(0, 2).map(ident).join(".");
    return s;
  };
  // text is a short snippet of what el shows, to name it in an error beside
  // describe's tag#id.
  const text = (el) => {
    if (!el || !el.tagName) return "";
    const t = String(el.innerText || el.value || el.getAttribute("aria-label") || el.getAttribute("title") || "").replace(/\s+/g, " ").trim();
    return t.length > 40 ? t.slice(0, 39) + "…" : t;
  };
  const visible = (el) => {
    const st = getComputedStyle(el);
    if (st.visibility === "hidden" || st.visibility === "collapse") return "hidden";
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return st.display === "none" ? "hidden" : "zero_size";
    return "";
  };
  const disabled = (el) => el.matches(":disabled") || el.getAttribute("aria-disabled") === "true";
  const winOf = (el) => el.ownerDocument.defaultView;
  const inView = (r, w) => r.bottom > 0 && r.right > 0 && r.top < w.innerHeight && r.left < w.innerWidth;
  // Ancestry crosses shadow boundaries: a shadow host is the parent of the
  // top elements of its shadow root.
  const owns = (el, h) => {
    for (let n = h; n; n = n.parentNode || n.host) if (n === el) return true;
    return false;
  };
  const up = (n) => n.parentElement || (n.parentNode && n.parentNode.host) || null;
  // cover names what covers el: the outermost ancestor of the hit element
  // that does not contain el, such as an overlay's root (div#cookie-banner)
  // rather than the button inside it.
  const cover = (el, hit) => {
    let c = hit;
    for (let p = c && up(c); p && !owns(p, el); p = up(c)) c = p;
    return c;
  };
  // missed is what a forced click at a point that hit the element hit
  // instead of el: it goes ahead, and the engine reports who received it.
  const missed = (el, hit) => ({ missed: true, receivedBy: hit ? describe(hit) : "nothing", hit: describe(hit), hitText: text(hit), coveredBy: hit ? describe(cover(el, hit)) : "" });
  // GUARDED are the events of each kind of guarded input; the first one
  // decides (see guard).
  const GUARDED = {
    click: ["pointerdown", "mousedown", "pointerup", "mouseup", "click", "auxclick", "dblclick", "contextmenu"],
    hover: ["mousemove"],
    down: ["pointerdown", "mousedown"],
  };
  const hitAt = (doc, x, y) => {
    let hit = doc.elementFromPoint(x, y);
    while (hit && hit.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(x, y);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  };
  // climb turns a point inside frame element fe's content into a point in
  // this world's top window, checking at each level that the frame element
  // is what the point hits.
  // pts gets the point in each window on the way up, for the guard; lastHit
  // is what covered the element at the last check, whose text an error
  // quotes (read once, at the end: it may be long).
  let pts = [];
  let lastHit = null;
  const climb = (fe, x, y, res) => {
    res = res || {};
    pts = [x, y];
    for (; fe; ) {
      const w = winOf(fe);
      let r = fe.getBoundingClientRect();
      const cs = getComputedStyle(fe);
      const ox = r.left + fe.clientLeft + parseFloat(cs.paddingLeft), oy = r.top + fe.clientTop + parseFloat(cs.paddingTop);
      let px = x + ox, py = y + oy;
      if (!a.force && (px < 0 || py < 0 || px >= w.innerWidth || py >= w.innerHeight)) {
        fe.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
        r = fe.getBoundingClientRect();
        px = x + r.left + fe.clientLeft + parseFloat(cs.paddingLeft);
        py = y + r.top + fe.clientTop + parseFloat(cs.paddingTop);
        if (px < 0 || py < 0 || px >= w.innerWidth || py >= w.innerHeight) {
          return { error: "not_clickable", reason: "outside_viewport", element: describe(fe) };
        }
      }
      const hit = hitAt(fe.ownerDocument, px, py);
      if (hit !== fe) {
        if (!a.force) {
          lastHit = hit;
          return { error: "not_clickable", reason: "covered", element: describe(fe), coveredBy: describe(cover(fe, hit)), hit: describe(hit) };
        }
        if (!res.missed) res = { ...res, ...missed(fe, hit) };
      }
      x = px; y = py;
      pts.push(x, y);
      let next = null;
      try { next = w !== window ? w.frameElement : null; } catch (e) { next = null; }
      fe = next;
    }
    return { ...res, x, y };
  };

  const point = (el) => {
    const w = winOf(el);
    if (!a.force) {
      const v = visible(el);
      if (v) return { error: "not_clickable", reason: v, element: describe(el) };
      if (disabled(el)) return { error: "not_clickable", reason: "disabled", element: describe(el) };
    }
    let rects = [...el.getClientRects()];
    if (!rects.some((r) => inView(r, w))) {
      el.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
      rects = [...el.getClientRects()];
    }
    const r = rects.find((r) => inView(r, w)) || el.getBoundingClientRect();
    const left = Math.max(r.left, 0), right = Math.min(r.right, w.innerWidth);
    const top = Math.max(r.top, 0), bottom = Math.min(r.bottom, w.innerHeight);
    const x = (left + right) / 2, y = (top + bottom) / 2;
    if (!a.force && (right <= left || bottom <= top)) return { error: "not_clickable", reason: "outside_viewport", element: describe(el) };
    const hit = hitAt(el.ownerDocument, x, y);
    let res = { element: describe(el), receivedBy: describe(el) };
    if (!hit || !owns(el, hit)) {
      if (!a.force) {
        lastHit = hit;
        return { error: "not_clickable", reason: "covered", element: describe(el), coveredBy: describe(cover(el, hit)), hit: describe(hit) };
      }
      res = { ...res, ...missed(el, hit) };
    }
    let fe = null;
    try { fe = w !== window ? w.frameElement : null; } catch (e) { fe = null; }
    return climb(fe, x, y, res);
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
    // The document's active element is the shadow host of a focused
    // element inside a shadow root: look through to the focused one.
    let active = el.ownerDocument.activeElement;
    while (active && active.shadowRoot && active.shadowRoot.activeElement) active = active.shadowRoot.activeElement;
    if (!owns(el, active)) {
      return { error: "not_editable", reason: "not_focusable", element: describe(el) };
    }
    if (a.clear) {
      if (el.isContentEditable) el.textContent = "";
      else el.value = "";
      el.dispatchEvent(new Event("input", { bubbles: true }));
    }
    if (el.isContentEditable) {
      const s = winOf(el).getSelection();
      s.selectAllChildren(el);
      s.collapseToEnd();
    } else {
      try { el.setSelectionRange(el.value.length, el.value.length); } catch (e) { /* type=email etc. */ }
    }
    return { ok: true };
  };

  // guard watches the input of the action that follows (GUARDED[kind]) in
  // el's window and each same-origin window above it, at the point the
  // check gave (pts): the first such event must reach el, or an element
  // inside it, in el's own window. When it reaches another element (el
  // moved away, or something covers it now), that event and every later one
  // of the action are stopped at the window, before the page's handlers see
  // them, unless forced; js/hit.js ends the guard and says what it saw.
  // Playwright guards its clicks the same way.
  const guard = (el, kind) => {
    const KEY = Symbol.for("browsermcp.guard");
    if (window[KEY]) window[KEY].stop();
    // A guard left behind (an action that failed before its input) lapses.
    const g = { until: Date.now() + 10000, seen: null };
    const hooks = [];
    const watch = (want, px, py, own) => (e) => {
      if (!e.isTrusted || g.seen && !g.seen.missed) return;
      if (Date.now() > g.until) return g.stop();
      // Input elsewhere (a fake move after a scroll, the user's own mouse)
      // is not the action's.
      if (!g.seen && (Math.abs(e.clientX - px) > 2 || Math.abs(e.clientY - py) > 2)) return;
      if (!g.seen) {
        const hit = (e.composedPath && e.composedPath()[0]) || e.target;
        if (own && hit && hit.nodeType === 1 && owns(el, hit)) {
          g.seen = { ok: true, receivedBy: describe(el) };
          return;
        }
        const r = want.getBoundingClientRect();
        const under = px >= r.left && px <= r.right && py >= r.top && py <= r.bottom;
        g.seen = { missed: true, reason: under ? "covered" : "moved", element: describe(el), event: e.type,
          receivedBy: hit && hit.nodeType === 1 ? describe(hit) : "nothing", hit: describe(hit), hitText: text(hit),
          coveredBy: hit && hit.nodeType === 1 ? describe(cover(want, hit)) : "" };
      }
      if (!a.force) {
        g.seen.blocked = true;
        e.preventDefault();
        e.stopImmediatePropagation();
      }
    };
    let w = winOf(el), want = el;
    for (let i = 0; ; i += 2) {
      const f = watch(want, pts[i], pts[i + 1], want === el);
      for (const t of GUARDED[kind]) w.addEventListener(t, f, true);
      hooks.push([w, f, want, pts[i], pts[i + 1]]);
      let fe = null;
      try { fe = w !== window ? w.frameElement : null; } catch (e) { fe = null; }
      if (!fe || i + 3 >= pts.length) break;
      want = fe;
      w = winOf(fe);
    }
    // look is a hit-test at the point after the input, for when no event
    // of it reached these windows: the input went elsewhere (into a
    // cross-origin frame that covered el as it arrived, where no guard can
    // listen), or nowhere. What is at the point now is what received it,
    // unless that is el. A drag is not looked at: its drop may have moved
    // the source away from the point.
    const look = () => {
      if (kind === "down") return null;
      for (let i = hooks.length - 1; i >= 0; i--) {
        const [w, , want, px, py] = hooks[i];
        let hit;
        try { hit = hitAt(w.document, px, py); } catch (e) { return null; }
        if (hit && (want === el ? owns(el, hit) : hit === want)) continue;
        const r = want.getBoundingClientRect();
        const under = px >= r.left && px <= r.right && py >= r.top && py <= r.bottom;
        return { missed: true, unseen: true, reason: under ? "covered" : "moved", element: describe(el),
          receivedBy: hit ? describe(hit) : "nothing", hit: describe(hit), hitText: text(hit),
          coveredBy: hit ? describe(cover(want, hit)) : "" };
      }
      return null;
    };
    // stop ends the guard; after the input (final), an input the guard did
    // not see is looked for at the point.
    g.stop = (final) => {
      for (const [w, f] of hooks) for (const t of GUARDED[kind]) w.removeEventListener(t, f, true);
      if (window[KEY] === g) delete window[KEY];
      return g.seen || (final && look()) || { none: true };
    };
    window[KEY] = g;
  };

  const next = () => new Promise((res) => {
    let done = false;
    const f = () => { if (!done) { done = true; res(); } };
    requestAnimationFrame(f);
    setTimeout(f, 50);
  });

  // settle climbs from iframe el until the point stays put for a frame. The
  // iframe may still be moving: a scroll that the frame's own content asked
  // for reaches this document asynchronously (from another process), and the
  // browser routes input into the frame by the last painted layout.
  const settle = async (el) => {
    let res = climb(el, a.x, a.y);
    for (let i = 0; i < 20 && !res.error; i++) {
      await next();
      const again = climb(el, a.x, a.y);
      if (again.error || (again.x === res.x && again.y === res.y)) return again;
      res = again;
    }
    return res;
  };

  // box is where el is and where a click would land, to compare frames.
  const box = (el, res) => {
    const r = el.getBoundingClientRect();
    return [r.left, r.top, r.width, r.height, res.x, res.y].join(",");
  };
  // moving says whether an animation or transition that moves things (any
  // but those of the QUIET properties, such as a fade) runs on el or an
  // element around it. A transition of transform starts on the compositor,
  // and the box the page reads may hold still for its first frames: the box
  // alone would call such an element still.
  const QUIET = new Set(["opacity", "color", "backgroundColor", "borderColor", "boxShadow", "outlineColor", "filter", "visibility", "textShadow", "fill", "stroke", "caretColor"]);
  const KEYS = new Set(["offset", "computedOffset", "easing", "composite"]);
  const moving = (el) => {
    for (let n = el; n; n = up(n)) {
      if (!n.getAnimations) continue;
      for (const an of n.getAnimations()) {
        if (an.playState !== "running" && !an.pending) continue;
        const kf = an.effect && an.effect.getKeyframes ? an.effect.getKeyframes() : [];
        const props = kf.flatMap((k) => Object.keys(k)).filter((p) => !KEYS.has(p));
        if (props.length === 0 || props.some((p) => !QUIET.has(p))) return true;
      }
    }
    return false;
  };
  const still = !a.force || a.guard === "drop";
  let prev = "", samples = 0;

  for (;;) {
    let el;
    try {
      el = find();
    } catch (e) {
      return { error: "invalid_selector", message: String((e && e.message) || e) };
    }
    if (el && el.nodeType !== 1) el = el.parentElement;
    let res;
    if (!el) res = { error: a.sel ? "not_found" : "stale" };
    else if (a.op === "frame") res = await settle(el);
    else if (a.op === "focus") res = focus(el);
    else {
      res = point(el);
      if (!res.error && still) {
        // The box must be the same as one frame ago; the first look only
        // takes it.
        const b = box(el, res);
        if (b !== prev || moving(el)) res = { error: "not_clickable", reason: "not_stable", element: describe(el) };
        prev = b;
        samples++;
      } else prev = "";
    }
    if (!res.error) {
      if (a.op === "point" && GUARDED[a.guard]) guard(el, a.guard);
      return res;
    }
    // An element seen only once has not had the chance to hold still.
    if (Date.now() >= deadline && !(res.reason === "not_stable" && samples < 2)) {
      if (res.reason === "covered" && lastHit) res.hitText = text(lastHit);
      return res;
    }
    await next();
  }
}

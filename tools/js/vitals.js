async () => {
  // Reads the Web Vitals from the browser's own observers. Entries come
  // from the buffer (buffered: true); Event Timing buffers only entries
  // of 104 ms or more, so an observer registered on the first call keeps
  // every interaction of 16 ms or more from then on, in window.__bmcpVitals.
  const types = (window.PerformanceObserver && PerformanceObserver.supportedEntryTypes) || [];
  const has = t => types.includes(t);
  const ua = navigator.userAgent;
  const browser = /Firefox\//.test(ua) ? "firefox" : /Chrome\//.test(ua) ? "chromium" : /Safari\//.test(ua) ? "webkit" : "this browser";
  const round = v => Math.round(v * 10) / 10;
  const cut = (s, n) => { s = (s || "").replace(/\s+/g, " ").trim(); return s.length > n ? s.slice(0, n) + "…" : s; };
  const selector = el => {
    if (!el || el.nodeType !== 1) return "";
    if (el.id) return "#" + CSS.escape(el.id);
    const parts = [];
    for (let e = el; e && e.nodeType === 1 && e !== document.documentElement; e = e.parentElement) {
      if (e.id) { parts.unshift("#" + CSS.escape(e.id)); break; }
      let part = e.localName, n = 1, same = false;
      for (let s = e.previousElementSibling; s; s = s.previousElementSibling) if (s.localName === e.localName) n++;
      for (let s = e.nextElementSibling; s && !same; s = s.nextElementSibling) same = s.localName === e.localName;
      if (n > 1 || same) part += ":nth-of-type(" + n + ")";
      parts.unshift(part);
    }
    return parts.join(" > ");
  };
  const describe = (el, url) => {
    if (!el || el.nodeType !== 1) {
      if (el && el.nodeType === 3) el = el.parentElement; else return url ? {src: cut(url, 200)} : null;
    }
    const d = {tag: el.localName, selector: selector(el)};
    if (el.id) d.id = el.id;
    if (typeof el.className === "string" && el.className.trim()) d["class"] = cut(el.className, 80);
    const src = url || el.currentSrc || el.src || "";
    if (src) d.src = cut(src, 200);
    const text = cut(el.innerText || el.textContent || el.getAttribute("alt") || el.getAttribute("aria-label") || "", 80);
    if (text) d.text = text;
    if (!el.isConnected) d.removed = true;
    return d;
  };
  const take = async (type, extra) => {
    if (!has(type)) return null;
    const list = [];
    const o = new PerformanceObserver(l => list.push(...l.getEntries()));
    try { o.observe(Object.assign({type, buffered: true}, extra || {})); } catch (e) { return null; }
    await new Promise(r => setTimeout(r, 50));
    list.push(...o.takeRecords());
    o.disconnect();
    return list;
  };
  // An interaction's entries (pointerdown, pointerup, click, ...) merge as
  // web-vitals' attribution does: from the first input to the last frame,
  // processing from the first handler's start to the last one's end.
  const merge = (byId, e) => {
    const g = byId.get(e.interactionId);
    const end = e.startTime + e.duration;
    if (!g) {
      byId.set(e.interactionId, {start: e.startTime, pStart: e.processingStart, pEnd: e.processingEnd, end, duration: e.duration,
        name: e.name, target: e.target, longest: e.processingEnd - e.processingStart});
      if (byId.size > 500) byId.delete(byId.keys().next().value);
      return;
    }
    g.start = Math.min(g.start, e.startTime);
    g.pStart = Math.min(g.pStart, e.processingStart);
    g.pEnd = Math.max(g.pEnd, e.processingEnd);
    g.end = Math.max(g.end, end);
    g.duration = Math.max(g.duration, e.duration);
    if (e.processingEnd - e.processingStart > g.longest) {
      g.longest = e.processingEnd - e.processingStart;
      g.name = e.name;
      g.target = e.target || g.target;
    }
    g.target = g.target || e.target;
  };
  // The lasting observer of interactions.
  let keep = window.__bmcpVitals;
  if (!keep && has("event")) {
    keep = window.__bmcpVitals = {byId: new Map(), since: performance.now()};
    try {
      new PerformanceObserver(l => {
        for (const e of l.getEntries()) if (e.interactionId) merge(keep.byId, e);
      }).observe({type: "event", buffered: true, durationThreshold: 16});
    } catch (e) { /* the buffered read below still answers */ }
  }
  const [lcps, shifts, events, paints] = await Promise.all([
    take("largest-contentful-paint"), take("layout-shift"), take("event", {durationThreshold: 16}), take("paint")]);
  const nav = performance.getEntriesByType("navigation")[0];
  const act = (nav && nav.activationStart) || 0;
  const out = {url: location.href, browser, observedSince: keep ? round(keep.since) : null,
    supported: {lcp: has("largest-contentful-paint"), cls: has("layout-shift"), inp: has("event"), paint: has("paint")}};

  let ttfb = null;
  if (nav) {
    ttfb = Math.max(0, nav.responseStart - act);
    out.ttfb = {value: round(ttfb), parts: {
      redirect: round(Math.max(0, nav.redirectEnd - nav.redirectStart)),
      dns: round(Math.max(0, nav.domainLookupEnd - nav.domainLookupStart)),
      connect: round(Math.max(0, nav.connectEnd - nav.connectStart)),
      server: round(Math.max(0, nav.responseStart - (nav.requestStart || nav.responseStart)))}};
  }

  const fcpEntry = (paints || performance.getEntriesByName("first-contentful-paint")).find(e => e.name === "first-contentful-paint");
  const resources = performance.getEntriesByType("resource");
  if (fcpEntry) {
    const fcp = Math.max(0, fcpEntry.startTime - act);
    const blocking = resources.filter(r => r.renderBlockingStatus === "blocking" && r.responseEnd - act <= fcp)
      .sort((a, b) => b.responseEnd - a.responseEnd).slice(0, 3)
      .map(r => ({url: cut(r.name, 200), ms: round(r.responseEnd - r.startTime), endMs: round(r.responseEnd - act)}));
    out.fcp = {value: round(fcp), blocking, blockingKnown: resources.length === 0 || "renderBlockingStatus" in resources[0]};
  }

  if (lcps && lcps.length) {
    const e = lcps[lcps.length - 1];
    const value = Math.max(0, e.startTime - act);
    const t = ttfb || 0;
    const res = e.url ? resources.find(r => r.name === e.url) : null;
    const reqStart = Math.max(t, res ? (res.requestStart || res.startTime) - act : 0);
    const respEnd = Math.max(reqStart, res ? res.responseEnd - act : 0);
    const render = Math.max(respEnd, value);
    out.lcp = {value: round(value), element: describe(e.element, e.url), url: e.url ? cut(e.url, 200) : "", size: e.size,
      parts: {ttfb: round(t), resourceLoadDelay: round(reqStart - t), resourceLoadDuration: round(respEnd - reqStart), elementRenderDelay: round(render - respEnd)}};
  }

  if (shifts) {
    let cls = 0, win = 0, first = 0, last = 0, largest = null;
    for (const e of shifts) {
      if (e.hadRecentInput) continue;
      if (win && e.startTime - last < 1000 && e.startTime - first < 5000) { win += e.value; } else { win = e.value; first = e.startTime; }
      last = e.startTime;
      cls = Math.max(cls, win);
      if (!largest || e.value > largest.value) largest = e;
    }
    out.cls = {value: Math.round(cls * 10000) / 10000, shifts: shifts.filter(e => !e.hadRecentInput).length};
    if (largest) {
      out.cls.largest = {value: Math.round(largest.value * 10000) / 10000, atMs: round(largest.startTime - act),
        nodes: (largest.sources || []).map(s => describe(s.node)).filter(Boolean).slice(0, 5)};
    }
  }

  if (events) {
    // The buffered entries are those the lasting observer saw too, if it
    // was there: they merge into a copy of its groups idempotently.
    const byId = new Map();
    for (const [id, g] of (keep ? keep.byId : [])) byId.set(id, Object.assign({}, g));
    let withId = 0;
    for (const e of events) {
      if (!e.interactionId) continue;
      withId++;
      merge(byId, e);
    }
    const all = [...byId.values()].sort((a, b) => b.duration - a.duration);
    out.inp = {interactions: all.length, idSupported: withId > 0 || all.length > 0 || !events.length || "interactionId" in events[0]};
    if (all.length) {
      const e = all[Math.min(all.length - 1, Math.floor(all.length / 50))];
      Object.assign(out.inp, {value: round(e.duration), type: e.name, atMs: round(e.start - act), target: describe(e.target),
        parts: {inputDelay: round(Math.max(0, e.pStart - e.start)),
          processing: round(Math.max(0, e.pEnd - e.pStart)),
          presentation: round(Math.max(0, e.end - e.pEnd))}});
    }
  }
  return out;
}

// The settle tracker: installed in every document's main world before the
// page's own scripts (an init script), it lets an action wait for the work
// it set off in the page, not only for its network requests.
//
// A generation is one action's share of the page's work. It begins with the
// first input event (a trusted mousedown, keydown, input, mousemove…) after
// the previous one settled, or explicitly (begin) before a script acts like
// a user (fill, select, scroll). While it is live, every event the tracker
// sees makes the running task the generation's, and the generation's tag
// follows its work: a timer or animation frame requested in a tagged task
// runs tagged, and so does what that one requests. Timers of at most
// cfg.max ms, frames and requests (fetch, XMLHttpRequest) started under the
// tag are pending until they run, end or are cancelled; work started before
// the action (a clock's interval, a
// page's own animation loop) keeps its own tag and is not waited for. A
// MutationObserver sees the DOM changes of tagged tasks.
//
// settle(a) resolves when the live generation is quiet: nothing tagged
// pending, and, once something asynchronous happened (a tagged timer, frame
// or request, or a tagged change while settling), no tagged activity for
// a.quiet ms; at the latest after a.max ms. After a script scrolled
// (begin(true)), it first waits for the scroll event, whose handlers run
// with a later frame, or for two frames (counted from the settle) without it. An action that changed the page only in
// its own event handlers (the common click or key press) has nothing
// pending and settles at once.
//
// Invisible enough: the page's functions are wrapped in Proxies, so they
// keep their name, length, identity checks between window properties and
// their "[native code]" source; callbacks run with the page's own this and
// arguments; ids are the browser's. The tracker keeps what it uses of the
// page's globals from before any page script ran, and its own state in a
// closure; the one handle, window[Symbol.for("browsermcp.settle")], is not
// enumerable.
(cfg) => {
  const KEY = Symbol.for("browsermcp.settle");
  const w = window;
  if (Object.prototype.hasOwnProperty.call(w, KEY)) return;
  const apply = Reflect.apply;
  const defineProperty = Object.defineProperty;
  const getDescriptor = Object.getOwnPropertyDescriptor;
  const perf = w.performance, perfNow = perf.now;
  const now = () => apply(perfNow, perf, []);
  const nSetTimeout = w.setTimeout, nClearTimeout = w.clearTimeout, nRAF = w.requestAnimationFrame;
  const later = (f, ms) => apply(nSetTimeout, w, [f, ms]);
  const doc = w.document, hiddenGet = getDescriptor(w.Document.prototype, "hidden").get;
  const hidden = () => !!apply(hiddenGet, doc, []);
  const cancel = (id) => apply(nClearTimeout, w, [id]);

  // g is the latest generation; live says whether it still takes events.
  let g = { id: 0, timers: 0, frames: 0, requests: 0, async: false, last: 0, frame: false, scrolled: false };
  let live = false;
  // cur is the generation of the task that runs now (0: none of ours). It
  // is not reset after a task: the microtasks that follow it (promise
  // reactions, the observer's records) belong to the same work.
  let cur = 0;
  // pending holds the tag of each tracked timer and frame request, by id.
  const timers = Object.create(null), frames = Object.create(null);
  let waiter = null; // the running settle's check

  const mine = () => cur !== 0 && cur === g.id;
  const activity = () => {
    g.last = now();
    if (waiter) {
      g.async = true; // changes while settling: something is still going on
      waiter();
    }
  };

  const observer = new w.MutationObserver(() => { if (mine()) activity(); });
  const takeRecords = observer.takeRecords, observe = observer.observe, disconnect = observer.disconnect;
  let observing = false;
  const flush = () => {
    if (observing && apply(takeRecords, observer, []).length && mine()) activity();
  };

  const begin = (frame) => {
    g = { id: g.id + 1, timers: 0, frames: 0, requests: 0, async: false, last: now(), frame: !!frame, scrolled: false };
    live = true;
    cur = g.id;
    if (!observing) {
      try {
        apply(observe, observer, [w.document, { subtree: true, childList: true, attributes: true, characterData: true }]);
        observing = true;
      } catch (e) { /* no document yet */ }
    }
  };

  // run calls a page callback as work of generation tag.
  const run = (tag, cb, self, args) => {
    flush();
    cur = tag;
    try {
      return apply(cb, self, args);
    } finally {
      if (tag !== 0 && tag === g.id) {
        flush();
        g.last = now();
        if (waiter) waiter();
      }
    }
  };

  const wrap = (name, handler) => {
    const d = getDescriptor(w, name);
    if (!d || typeof d.value !== "function") return;
    d.value = new Proxy(d.value, { apply: handler });
    defineProperty(w, name, d);
  };
  const rest = (args, first) => {
    const a = [first];
    for (let i = 1; i < args.length; i++) a[i] = args[i];
    return a;
  };

  wrap("setTimeout", (target, self, args) => {
    const cb = args[0], tag = cur;
    if (typeof cb !== "function") return apply(target, self, args);
    let id = 0, tracked = false;
    const fn = function () {
      if (tracked) {
        delete timers[id];
        if (tag === g.id) g.timers--;
      }
      return run(tag, cb, this, arguments);
    };
    id = apply(target, self, rest(args, fn));
    const delay = typeof args[1] === "number" ? args[1] : 0;
    if (tag !== 0 && tag === g.id && live && delay <= cfg.max) {
      tracked = true;
      timers[id] = tag;
      g.timers++;
      g.async = true;
    }
    return id;
  });
  // Work started by an interval never counts: a poll or a ticking clock
  // would hold every action to the cap.
  wrap("setInterval", (target, self, args) => {
    const cb = args[0];
    if (typeof cb !== "function") return apply(target, self, args);
    return apply(target, self, rest(args, function () { return run(0, cb, this, arguments); }));
  });
  const clearer = (target, self, args) => {
    const id = args[0], tag = timers[id];
    if (tag !== undefined) {
      delete timers[id];
      if (tag === g.id) {
        g.timers--;
        if (waiter) waiter();
      }
    }
    return apply(target, self, args);
  };
  wrap("clearTimeout", clearer);
  wrap("clearInterval", clearer);
  wrap("requestAnimationFrame", (target, self, args) => {
    const cb = args[0], tag = cur;
    if (typeof cb !== "function") return apply(target, self, args);
    let id = 0, tracked = false;
    const fn = function () {
      if (tracked) {
        delete frames[id];
        if (tag === g.id) g.frames--;
      }
      return run(tag, cb, this, arguments);
    };
    id = apply(target, self, [fn]);
    if (tag !== 0 && tag === g.id && live) {
      tracked = true;
      frames[id] = tag;
      g.frames++;
      g.async = true;
    }
    return id;
  });
  wrap("cancelAnimationFrame", (target, self, args) => {
    const id = args[0], tag = frames[id];
    if (tag !== undefined) {
      delete frames[id];
      if (tag === g.id) {
        g.frames--;
        if (waiter) waiter();
      }
    }
    return apply(target, self, args);
  });

  // Requests of tagged work (fetch, XMLHttpRequest) are pending until they
  // end: the engine sees them too, but a driver may report them late.
  const then = Promise.prototype.then;
  const requestEnded = (my) => () => {
    if (my === g) {
      my.requests--;
      // The page's own reactions to the response run next, as its work.
      cur = my.id;
      activity();
    }
  };
  wrap("fetch", (target, self, args) => {
    const p = apply(target, self, args);
    if (mine() && live) {
      g.requests++;
      g.async = true;
      const end = requestEnded(g);
      apply(then, p, [end, end]);
    }
    return p;
  });
  const XHR = w.XMLHttpRequest, listen = w.EventTarget.prototype.addEventListener;
  if (XHR) {
    const d = getDescriptor(XHR.prototype, "send");
    if (d && typeof d.value === "function") {
      d.value = new Proxy(d.value, {
        apply(target, self, args) {
          if (mine() && live && self instanceof XHR) {
            const my = g;
            apply(listen, self, ["loadend", requestEnded(my), { once: true }]);
            const r = apply(target, self, args);
            my.requests++;
            my.async = true;
            return r;
          }
          return apply(target, self, args);
        },
      });
      defineProperty(XHR.prototype, "send", d);
    }
  }

  // Input events begin a generation; while one is live, every listed event
  // makes its task the generation's. The listeners are passive and come
  // first (capture, on window, before any page script), so they neither
  // delay scrolling nor see less than the page.
  const opens = Object.create(null), follows = Object.create(null);
  for (const t of ["pointerdown", "pointerup", "pointermove", "pointerover", "mousedown", "mouseup", "mousemove", "mouseover",
    "click", "auxclick", "dblclick", "contextmenu", "keydown", "keyup", "keypress", "beforeinput", "input", "change",
    "wheel", "touchstart", "touchend", "dragstart", "dragend", "drop", "compositionend", "paste"]) opens[t] = true;
  for (const t of ["scroll", "scrollend", "focus", "blur", "focusin", "focusout", "submit", "reset", "select",
    "toggle", "transitionend", "animationend", "dragover", "dragenter", "dragleave"]) follows[t] = true;
  const onEvent = (e) => {
    if (!live && e.isTrusted && opens[e.type]) begin(false);
    if (live) {
      flush();
      cur = g.id;
      if (e.type === "scroll" && !g.scrolled) {
        g.scrolled = true;
        if (waiter) later(waiter, 0); // after the page's own scroll handlers
      }
    }
  };
  for (const t in opens) w.addEventListener(t, onEvent, { capture: true, passive: true });
  for (const t in follows) w.addEventListener(t, onEvent, { capture: true, passive: true });

  const settle = (a) => {
    const start = now(), my = g;
    if (!live) return Promise.resolve({ waited: 0 });
    return new Promise((resolve) => {
      let timer = 0, done = false;
      const finish = (capped) => {
        if (done) return;
        done = true;
        cancel(timer);
        if (waiter === check) waiter = null;
        if (my === g) {
          live = false;
          if (observing) {
            apply(disconnect, observer, []);
            observing = false;
          }
        }
        resolve({ waited: Math.round(now() - start), capped, pending: my.timers + my.frames + my.requests });
      };
      const check = () => {
        if (done) return;
        flush();
        const t = now();
        let wait = a.max - (t - start);
        if (wait <= 0 || my !== g) return finish(wait <= 0);
        if (my.frame && !my.scrolled && (!hidden() || t - start < 4 * a.quiet)) {
          // A script scrolled: the page's scroll handlers run with a
          // later frame (or never, when nothing moved). A hidden page has
          // no frames: it is given 4 quiet periods; a visible one waits
          // for its frames however slow they come (up to a.max).
          if (hidden()) wait = Math.min(wait, 4 * a.quiet - (t - start));
        } else if (my.timers <= 0 && my.frames <= 0 && my.requests <= 0) {
          if (!my.async) return finish(false);
          const q = a.quiet - (t - my.last);
          if (q <= 0) return finish(false);
          wait = Math.min(wait, q);
        }
        cancel(timer);
        timer = later(check, wait);
      };
      waiter = check;
      if (my.frame && !my.scrolled) {
        // The scroll events of the script's scroll (it ran before this
        // settle) come with the next frame, if anything moved: two frames
        // from now, none is coming. Counted from here, not from begin: on
        // a loaded machine frames may pass between begin and the scroll.
        apply(nRAF, w, [() => apply(nRAF, w, [() => {
          my.scrolled = true;
          if (waiter) waiter();
        }])]);
      }
      check();
    });
  };

  // The same-origin frames below this document have trackers of their
  // own (the init script runs in every document): an action inside one
  // (a click on a ref in an iframe) begins its generation there, so
  // beginning and settling go down the tree. A cross-origin frame cannot
  // be reached from here and is not waited for.
  const framesGet = (getDescriptor(w, "frames") || {}).get;
  const all = Promise.all, promise = w.Promise;
  const children = () => {
    const out = [];
    try {
      const f = framesGet ? apply(framesGet, w, []) : w;
      for (let i = 0; i < f.length; i++) {
        try {
          const t = f[i][KEY];
          if (t && t.tree) out.push(t);
        } catch (e) { /* cross-origin */ }
      }
    } catch (e) { /* detached */ }
    return out;
  };
  const merge = (rs) => {
    const o = { waited: 0, capped: false, pending: 0 };
    for (const r of rs) {
      o.waited = Math.max(o.waited, r.waited || 0);
      o.capped = o.capped || !!r.capped;
      o.pending += r.pending || 0;
    }
    return o;
  };
  const tree = {
    begin: (frame) => {
      begin(frame);
      for (const t of children()) t.tree.begin(frame);
    },
    settle: (a) => {
      const own = settle(a), kids = children();
      if (!kids.length) return own;
      return apply(then, apply(all, promise, [[own, ...kids.map((t) => t.tree.settle(a))]]), [merge]);
    },
  };

  defineProperty(w, KEY, { value: Object.freeze({ begin: tree.begin, settle: tree.settle, tree: Object.freeze(tree) }), enumerable: false });
}

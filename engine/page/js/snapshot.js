// Builds the accessibility outline of one document (and of the same-origin
// frames inside it) in one round trip. Roles and accessible names come from
// Chromium's own accessibility engine (Element.computedRole and
// computedName, which read the page's AXObjectCache); this script only walks
// the DOM in order, decides what is worth showing and prints it. Refs are kept
// in a registry on the window of this world: a WeakMap gives an element its
// ref back on every snapshot, and a Map of WeakRefs turns a ref into its
// element again, so a ref names one node for as long as the node lives and a
// removed node can be told apart from an unknown ref. The registry also
// keeps the next number it would give out (R.next), and a walk starts from
// the larger of that and a.next: a walk whose answer never reached the
// engine (a cancelled call) gave out numbers the engine does not know of,
// and they must not be given out again.
//
// Other browsers, and a Chromium started without
// --enable-blink-features=ComputedAccessibilityInfo (one we attach to), do
// not expose their accessibility engine to pages. The walk then computes
// roles and names itself (see "Fallback" below): the ARIA role attribute,
// the implicit roles of HTML elements as Chromium names them, and a compact
// accessible-name computation, so that common HTML reads the same on every
// browser.
//
// Every string the page controls (names, values, text, URLs, attributes)
// is printed so that it cannot pass for outline syntax: whitespace,
// Unicode line separators included, collapses to one space, so no string
// starts a line; names and values are quoted with \ " [ ] escaped and
// control and bidi characters written \uXXXX; text is quoted the same way
// whenever it holds one of those characters or | or is just "…"; URLs have
// them percent-encoded; numbers are digits. A string longer than
// a.maxText code points is cut there and marked "…" [+N chars], N the code
// points left out. Text a sighted user does not see (clipped to a pixel,
// off-screen, zero-sized, transparent, in a collapsed box) is marked
// [offscreen].
//
// a = {prefix, next, depth, interactiveOnly, maxText, kind?, sel?, track?,
// fresh?, doc?, base?}; with no sel the walk starts at `this` when it is an
// element, else at the document. Returns {text, next, frames, url, title,
// doc, gen} or {error, message}; with doc and base (the document and walk
// count of the engine's view, see "Change tracking"), {clean} or {patch}
// in place of text; a tracked walk adds transient, the text lines of what
// appeared and went away since the last one, when there was any. Lines
// that hold only "\u0001N" stand for the cross-origin frame R.frames[N],
// which the engine walks in its own world and splices in.
function (a) {
  const native = "computedRole" in Element.prototype;
  let R = window.__bmcp;
  // Only a registry in the page's own world (engine/pw) can meet one the
  // page planted. This catches a careless fake, not a forgery of the right
  // shape: the page's world gives no real protection.
  if (R && !(R.refs instanceof Map && R.ids instanceof WeakMap)) return { error: "registry_taken" };
  if (!R) {
    R = {
      refs: new Map(), ids: new WeakMap(), frames: [], next: 1,
      get(r) {
        const w = this.refs.get(r), el = w && w.deref();
        return el && el.isConnected ? el : null;
      },
    };
    Object.defineProperty(window, "__bmcp", { value: R });
  }
  // A tracked walk asked about the view the engine holds (a.doc, a.base)
  // answers {clean} when nothing was recorded since it, without walking.
  if (a.doc && R.mo && R.doc === a.doc && R.gen === a.base && !a.fresh && !R.lastFrames) {
    R.note(R.mo.takeRecords());
    if (R.checkFields()) R.dirty = true;
    if (!R.dirty) return { clean: true, next: Math.max(a.next, R.next | 0), frames: 0, url: document.location.href, title: document.title, doc: R.doc, gen: R.gen };
  }
  R.frames = [];
  // Refs whose element is gone are dropped on a walk that visits every
  // element; one that reuses what it kept (cache) leaves that for later.
  if (!a.track || a.fresh || !R.mo) for (const [r, w] of R.refs) if (!w.deref()) R.refs.delete(r);
  // Change tracking (a.track: a whole-page walk, which becomes the
  // agent's view of the document). R.doc names this document in this
  // world; R.gen counts the tracked walks; R.dirty says whether anything
  // was recorded since the last one. One MutationObserver watches the
  // document, and every shadow root and same-origin frame document the
  // walk enters; capture-phase listeners record what changes a field's
  // state, or what is on screen, without a mutation.
  if (!R.doc) {
    R.doc = Math.random().toString(36).slice(2) + Date.now().toString(36);
    R.gen = 0;
    R.dirty = true;
  }
  //
  // The same records say which elements a tracked walk must visit again
  // (see "Cache" below): R.stale maps an element to the last round (R.seq)
  // a change was recorded in it or under it, R.deep an element whose
  // whole subtree may print otherwise (its attributes changed, so styles
  // below it may have; or it moved); R.allSeq is the last round in which
  // something changed that can touch any element (a style sheet, a
  // scroll, a resize), R.mutSeq the last round in which a mutation was
  // recorded (see R.roles). R.added holds the nodes added since the last
  // tracked walk (the first MAX_ADDED): one that is no longer in the
  // document when the walk comes appeared and went away in between, as a
  // toast does (see "Transient").
  if (a.track && !R.mo) {
    const MAX_ADDED = 256;
    R.added = [];
    R.seq = 1;
    R.allSeq = 0;
    R.mutSeq = 0;
    R.roles = new WeakMap();
    R.stale = new WeakMap();
    R.deep = new WeakMap();
    R.watched = new WeakSet();
    const up = (n) => n.parentNode || n.host || (n.nodeType === 9 && n.defaultView && n.defaultView.frameElement) || null;
    R.mark = (n, deep) => {
      const s = R.seq;
      if (deep && n.nodeType === 1) R.deep.set(n, s);
      for (let x = n; x; x = up(x)) {
        if (x.nodeType !== 1) continue;
        const t = x.localName;
        if (t === "style" || t === "link" || t === "head") { R.allSeq = s; return; }
        if (R.stale.get(x) === s) return;
        R.stale.set(x, s);
        // A label's text is its control's name.
        if (t === "label" && x.control && x.control !== n) R.mark(x.control, false);
      }
    };
    R.note = (recs) => {
      if (!recs.length) return;
      R.dirty = true;
      R.mutSeq = R.seq;
      for (const r of recs) {
        if (r.type === "childList") {
          for (const n of r.addedNodes) {
            if (n.nodeType === 1) R.deep.set(n, R.seq);
            if ((n.nodeType === 1 || n.nodeType === 3) && R.added.length < MAX_ADDED) R.added.push(n);
          }
          R.mark(r.target, false);
        } else {
          R.mark(r.target, r.type === "attributes");
          // A modal dialog makes the rest of the page inert.
          if (r.type === "attributes" && (r.target.localName === "dialog" || r.attributeName === "aria-modal")) R.allSeq = R.seq;
        }
      }
    };
    R.mo = new MutationObserver(R.note);
    R.onEvent = (e) => {
      R.dirty = true;
      if (e.type === "scroll" || e.type === "resize" || e.type === "hashchange") { R.allSeq = R.seq; return; }
      const t = e.composedPath ? e.composedPath()[0] : e.target;
      if (t && t.nodeType === 1) {
        R.mark(t, true);
        // Styles of its siblings may follow its state (:checked + label),
        // and those around it its focus (:focus-within), a few levels up.
        let p = t.parentElement;
        for (let i = e.type === "focusin" || e.type === "focusout" ? 3 : 1; p && i > 0; i--, p = p.parentElement) R.deep.set(p, R.seq);
      }
    };
    // The state of form fields, which a script can change without a
    // mutation or an event (el.value = x, el.checked = true): each walk
    // compares it with the last tracked walk's, field by field, and marks
    // the fields that differ. The browser keeps these collections up to
    // date; reading them costs no search of the document.
    const fields = ["input", "textarea", "select"].map((t) => document.getElementsByTagName(t));
    const state = (el) => el.value + (el.checked ? "\u0001" : "\u0002") + (el.indeterminate ? "\u0003" : "") +
      (el.localName === "select" ? el.selectedIndex : "");
    R.fieldStates = new WeakMap();
    R.checkFields = () => {
      let changed = false;
      for (const c of fields) for (let i = 0; i < c.length; i++) {
        if (R.fieldStates.get(c[i]) !== state(c[i])) {
          changed = true;
          R.mark(c[i], false);
        }
      }
      return changed;
    };
    R.saveFields = () => {
      R.fieldStates = new WeakMap();
      for (const c of fields) for (let i = 0; i < c.length; i++) R.fieldStates.set(c[i], state(c[i]));
    };
  }
  const watch = (root) => {
    if (!a.track || R.watched.has(root)) return;
    R.watched.add(root);
    R.mo.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
    if (root.nodeType === 9) {
      // The end of a transition or an animation changes styles with no
      // mutation: what the walk read as where it goes may have gone
      // elsewhere.
      for (const ev of ["input", "change", "toggle", "scroll", "focusin", "focusout", "transitionend", "transitioncancel",
        "animationend", "animationcancel"]) root.addEventListener(ev, R.onEvent, { capture: true, passive: true });
      if (root.defaultView) for (const ev of ["resize", "hashchange"]) root.defaultView.addEventListener(ev, R.onEvent, { passive: true });
    }
  };
  watch(document);
  if (a.track) {
    R.note(R.mo.takeRecords());
    R.checkFields();
    if (a.fresh) R.allSeq = R.seq;
  }
  let next = Math.max(a.next, R.next | 0);
  const refOf = (el) => {
    let r = R.ids.get(el);
    if (!r) {
      r = a.prefix + "e" + next++;
      R.next = next;
      R.ids.set(el, r);
      R.refs.set(r, new WeakRef(el));
    }
    return r;
  };

  const SKIP = new Set(["script", "style", "template", "noscript", "head", "meta", "link", "title", "datalist"]);
  // Roles that can be acted on; their elements always get a ref.
  const ACT = new Set(["link", "button", "textbox", "searchbox", "checkbox", "radio", "combobox", "listbox", "option",
    "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "switch", "slider", "spinbutton", "treeitem", "scrollbar"]);
  // Roles that orient an agent: kept by interactiveOnly.
  const ORIENT = new Set(["heading", "banner", "navigation", "main", "contentinfo", "complementary", "search", "form",
    "region", "dialog", "alertdialog", "iframe", "tablist", "menu", "menubar", "tree", "grid", "table", "toolbar", "radiogroup"]);
  // Roles whose element adds nothing but its content.
  const FLAT = new Set(["generic", "none", "presentation", "emphasis", "strong", "superscript", "subscript", "mark",
    "time", "deletion", "insertion", "code", "term", "definition", "LabelText", "Abbr", "Ruby", "rowgroup", "caption",
    "legend", "figcaption", "StaticText", ""]);
  // Roles whose name is worth reading.
  const NAMED = new Set([...ACT, ...ORIENT, "img", "image", "figure", "group", "article", "alert", "status", "progressbar",
    "meter", "math", "note", "tabpanel", "dialog", "log", "marquee", "timer", "treegrid", "row", "cell", "columnheader", "rowheader"]);
  const LIVE = new Set(["status", "alert", "log", "marquee", "timer"]);
  // Containers that vanish when they hold exactly one element and no name.
  const THIN = new Set(["listitem", "paragraph", "group", "section", "region", "article", "cell", "gridcell", "blockquote",
    "figure", "note", "form"]);
  // Inline elements: their text joins the text around it without a space.
  const INLINE = new Set(["a", "span", "em", "strong", "b", "i", "u", "small", "sup", "sub", "code", "abbr", "mark", "time",
    "s", "q", "cite", "dfn", "kbd", "samp", "var", "bdi", "bdo", "data", "label", "font", "big", "tt", "del", "ins"]);
  const only = a.interactiveOnly;

  // Links show their href as the page wrote it, which is relative to the
  // page already; only an absolute URL on this origin loses its origin.
  // Resolving every href (el.href, new URL) costs more than the rest of
  // the walk.
  let originDoc = null, origin = "";
  // What of a URL could read as outline syntax (whitespace ends it, " [ ]
  // open a name or an attribute, … marks a cut), or hide: control and
  // bidi characters.
  const URL_ESC = /[\s\u0085"\[\]\\\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2026]/g;
  const shortURL = (el) => {
    const raw = el.getAttribute("href");
    if (raw === null) return "";
    const h = raw.trim();
    if (/^javascript:/i.test(h)) return "javascript:";
    const doc = el.ownerDocument;
    if (doc !== originDoc) originDoc = doc, origin = doc.location.origin;
    // A document without an origin of its own (srcdoc, about:blank) has
    // "null" for one: nothing to take off.
    const u = origin !== "null" && h.startsWith(origin) && (h.length === origin.length || h[origin.length] === "/") ? h.slice(origin.length) || "/" : h;
    return u.replace(URL_ESC, encodeURIComponent);
  };
  const clickable = (el, st) => {
    if (el.onclick || el.hasAttribute("onclick") || el.isContentEditable && el.contentEditable === "true") return true;
    // Drag sources and drop targets are what drag_and_drop acts on.
    if (el.getAttribute("draggable") === "true" || el.hasAttribute("ondrop")) return true;
    const ti = el.getAttribute("tabindex");
    if (ti !== null && +ti >= 0) return true;
    return st === "pointer";
  };

  // Node: {t: text, ib: inline boundary} or {role, name, ref, attrs, url, value, kids, frame}.
  // visitKids visits the children of el in the flat tree (its shadow root's,
  // or a slot's assigned nodes), walking sibling pointers: iterating a
  // NodeList costs more than the rest of a visit on a page of links.
  const visitKids = (el, kids, ctx) => {
    if (el.localName === "slot") {
      const s = el.assignedNodes({ flatten: true });
      if (s.length) {
        for (const n of s) visitNode(n, kids, ctx);
        return;
      }
    }
    if (el.shadowRoot) watch(el.shadowRoot);
    for (let n = (el.shadowRoot || el).firstChild; n; n = n.nextSibling) visitNode(n, kids, ctx);
  };
  const visitNode = (n, kids, ctx) => {
    const type = n.nodeType;
    if (type === 3) {
      // interactiveOnly keeps text only inside what has a ref, where it
      // tells what the element is (a clickable div has no name).
      if (ctx.hidden || only && !ctx.inRef) return;
      const t = n.nodeValue;
      if (t && /\S/.test(t)) kids.push({ t: t.replace(/\s+/g, " "), vh: ctx.tvh });
      else if (t && kids.length && kids[kids.length - 1].t !== undefined) kids.push({ t: " " });
    } else if (type === 1) visit(n, kids, ctx);
  };
  const childList = (el) => {
    if (el.shadowRoot) return el.shadowRoot.childNodes;
    if (el.localName === "slot") {
      const s = el.assignedNodes({ flatten: true });
      if (s.length) return s;
    }
    return el.childNodes;
  };

  // Fallback: roles and names without the browser's accessibility engine.
  // Roles use Chromium's vocabulary ("image", "sectionheader", "" where
  // Chromium exposes none), because the sets above are written in it.
  const IMPLICIT = {
    article: "article", aside: "complementary", blockquote: "blockquote", button: "button", caption: "caption",
    code: "code", dd: "definition", del: "deletion", s: "deletion", details: "group", dfn: "term", dialog: "dialog",
    dt: "term", em: "emphasis", fieldset: "group", figure: "figure", form: "form", hr: "separator", ins: "insertion",
    li: "listitem", main: "main", mark: "mark", menu: "list", meter: "meter", nav: "navigation", ol: "list", ul: "list",
    optgroup: "group", option: "option", output: "status", p: "paragraph", progress: "progressbar", search: "search",
    strong: "strong", sub: "subscript", sup: "superscript", table: "table", tbody: "rowgroup", thead: "rowgroup",
    tfoot: "rowgroup", textarea: "textbox", time: "time", tr: "row", address: "group", hgroup: "group", img: "image",
    h1: "heading", h2: "heading", h3: "heading", h4: "heading", h5: "heading", h6: "heading",
    dl: "", summary: "", label: "", legend: "", figcaption: "", abbr: "", canvas: "", video: "", audio: "",
    math: "", iframe: "", frame: "", ruby: "", rt: "", object: "", embed: "", map: "",
  };
  const INPUT = {
    search: "searchbox", number: "spinbutton", range: "slider", checkbox: "checkbox", radio: "radio", button: "button",
    submit: "button", reset: "button", image: "button", file: "button", hidden: "none",
  };
  // Chromium gives a date, time or colour field no ARIA role (and Firefox
  // takes month and week for text): each is a textbox, as Playwright's
  // getByRole has it, so that the outline shows it with a ref to fill.
  const NO_ROLE = new Set(["color", "date", "time", "datetime-local", "month", "week"]);
  const ARIA = new Set(("alert alertdialog application article banner blockquote button caption cell checkbox code " +
    "columnheader combobox complementary contentinfo definition deletion dialog document emphasis feed figure form " +
    "generic grid gridcell group heading img insertion link list listbox listitem log main mark marquee math menu " +
    "menubar menuitem menuitemcheckbox menuitemradio meter navigation none note option paragraph presentation " +
    "progressbar radio radiogroup region row rowgroup rowheader scrollbar search searchbox separator slider " +
    "spinbutton status strong subscript superscript switch tab table tablist tabpanel term textbox time timer " +
    "toolbar tooltip tree treegrid treeitem").split(" "));
  const SECTIONING = "article, aside, main, nav, section";
  const SECTIONED = "article, aside, nav, section";
  const TABLE_PART = new Set(["caption", "thead", "tbody", "tfoot", "tr", "td", "th"]);
  const labelled = (el) => el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby") || el.hasAttribute("title");
  // An element that can take focus, or that has a global ARIA property,
  // keeps its own role under role="none" (ARIA's presentational role
  // conflict resolution, which Chromium applies).
  const FOCUSABLE = new Set(["button", "input", "select", "textarea", "iframe", "summary"]);
  const keepsRole = (el, tag) => FOCUSABLE.has(tag) || (tag === "a" || tag === "area") && el.hasAttribute("href") ||
    el.hasAttribute("tabindex") || el.isContentEditable || el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby") ||
    el.hasAttribute("aria-describedby") || el.hasAttribute("aria-live");
  const roleOf = (el, tag) => {
    const explicit = el.getAttribute("role");
    if (explicit) {
      for (const r of explicit.trim().toLowerCase().split(/\s+/)) {
        if (!ARIA.has(r)) continue;
        if (r === "img") return "image";
        if (r === "none" || r === "presentation") {
          if (keepsRole(el, tag)) break;
          return "none";
        }
        return r;
      }
    }
    // The parts of a presentational table or list are presentational too,
    // and so are those of a table used for layout.
    const owner = TABLE_PART.has(tag) ? el.closest("table") : tag === "li" ? el.parentElement : null;
    if (owner && (/^(none|presentation)$/.test((owner.getAttribute("role") || "").trim()) ||
      owner.localName === "table" && !owner.hasAttribute("role") && !dataTable(owner))) return "none";
    switch (tag) {
      case "table": return dataTable(el) ? "table" : "none";
      case "a": case "area": return el.hasAttribute("href") ? "link" : "generic";
      case "header": return el.parentElement && el.parentElement.closest(SECTIONING) ? "sectionheader" : "banner";
      case "footer": return el.parentElement && el.parentElement.closest(SECTIONING) ? "sectionfooter" : "contentinfo";
      case "section": return labelled(el) ? "region" : "generic";
      // An aside inside sectioning content is a landmark only when named.
      case "aside": return el.parentElement && el.parentElement.closest(SECTIONED) && !labelled(el) ? "generic" : "complementary";
      case "select": return el.multiple || el.size > 1 ? "listbox" : "combobox";
      case "td": return el.closest("table") && /^(grid|treegrid)$/.test(el.closest("table").getAttribute("role")) ? "gridcell" : "cell";
      case "th": {
        const sc = (el.getAttribute("scope") || "").toLowerCase();
        if (sc === "row" || sc === "rowgroup") return "rowheader";
        if (sc === "col" || sc === "colgroup") return "columnheader";
        return el.parentElement && el.parentElement.querySelector(":scope > td") ? "rowheader" : "columnheader";
      }
      case "input": {
        const ty = (el.getAttribute("type") || "").toLowerCase();
        if (ty in INPUT) return INPUT[ty];
        if (NO_ROLE.has(ty)) return "textbox";
        return el.hasAttribute("list") ? "combobox" : "textbox";
      }
    }
    if (el.namespaceURI === SVG_NS) return svgRole(el, tag);
    if (tag in IMPLICIT) return IMPLICIT[tag];
    return el.getAttribute("draggable") === "true" ? "group" : "generic";
  };
  const SVG_NS = "http://www.w3.org/2000/svg";
  // Whether a table holds data rather than layout, after Chromium's
  // heuristic (AXNodeObject::IsDataTable): a caption, header sections,
  // columns, a th or header attributes, many rows, or cells that mostly
  // have borders or a background of their own, or rows striped in turn.
  const dataTables = new WeakMap();
  const dataTable = (t) => {
    let d = dataTables.get(t);
    if (d === undefined) {
      d = tableHoldsData(t);
      dataTables.set(t, d);
    }
    return d;
  };
  const tableHoldsData = (t) => {
    if (t.isContentEditable || t.getAttribute("summary") || t.tHead || t.tFoot || t.caption || t.getAttribute("rules") ||
      t.querySelector(":scope > colgroup, :scope > col")) return true;
    const rows = t.rows, n = rows.length;
    if (n >= 20) return true;
    if (n === 0 || n === 1 && rows[0].cells.length === 1) return false;
    const ts = getComputedStyle(t), sp = ts.borderSpacing.split(" ");
    const spacing = parseFloat(sp[0]) > 0 && parseFloat(sp[sp.length - 1]) > 0;
    let valid = 0, bordered = 0, coloured = 0, top = 0, bottom = 0, left = 0, right = 0;
    const stripes = [];
    for (let r = 0; r < n; r++) {
      for (const cell of rows[r].cells) {
        if (cell.localName === "th" || cell.getAttribute("headers") || cell.getAttribute("abbr") || cell.getAttribute("axis") ||
          cell.getAttribute("scope")) return true;
        const cs = getComputedStyle(cell);
        if (cs.display === "none" || cell.offsetWidth < 1 || cell.offsetHeight < 1) continue;
        valid++;
        if (cs.emptyCells === "hide") return true;
        const bt = parseFloat(cs.borderTopWidth) > 0, bb = parseFloat(cs.borderBottomWidth) > 0;
        const bl = parseFloat(cs.borderLeftWidth) > 0, br = parseFloat(cs.borderRightWidth) > 0;
        if (bt && bb || bl && br) bordered++;
        top += bt, bottom += bb, left += bl, right += br;
        const bg = cs.backgroundColor;
        if (spacing && bg !== ts.backgroundColor && bg !== "rgba(0, 0, 0, 0)" && bg !== "transparent") coloured++;
        if (bordered >= 10 || coloured >= 10) return true;
        if (r < 5 && r === stripes.length) stripes.push(getComputedStyle(rows[r]).backgroundColor);
      }
    }
    if (valid <= 1) return false;
    const need = Math.floor(valid / 2);
    if (bordered >= need || top >= need || bottom >= need || left >= need || right >= need || coloured >= need) return true;
    if (stripes.length > 2) {
      for (let k = 1; k < stripes.length; k++) if ((k % 2 === 1) === (stripes[k] === stripes[0])) return false;
      return true;
    }
    return false;
  };
  // SVG elements, as Chromium exposes them: an svg is an image unless it
  // holds text, a g a group, a shape a graphics symbol.
  const SVG_SHAPES = new Set(["rect", "circle", "ellipse", "line", "path", "polygon", "polyline"]);
  const svgRole = (el, tag) => {
    if (tag === "svg") return el.querySelector(":scope > title") || !el.querySelector("text") ? "image" : "";
    if (tag === "g" || tag === "foreignObject") return "group";
    if (SVG_SHAPES.has(tag)) return "graphics-symbol";
    return "generic";
  };
  const squash = (s) => (s || "").replace(/\s+/g, " ").trim();
  // The text of an element's ::before or ::after: the strings and
  // attr() values of its CSS content, or its alternative text (content:
  // "★" / "Favourite"), which Chromium puts into names computed from
  // content. Firefox leaves attr() unresolved in the computed value.
  const pseudo = (el, which) => {
    const c = getComputedStyle(el, which).content;
    if (!c || c === "none" || c === "normal" || c.indexOf('"') < 0 && c.indexOf("attr(") < 0) return "";
    const unq = (x) => x.replace(/\\(.)/g, "$1");
    const alt = c.match(/\/\s*"((?:[^"\\]|\\.)*)"\s*$/);
    if (alt) return unq(alt[1]);
    let out = "";
    for (const m of c.matchAll(/"((?:[^"\\]|\\.)*)"|attr\(\s*([\w-]+)\s*\)/g)) {
      out += m[2] !== undefined ? el.getAttribute(m[2]) || "" : unq(m[1]);
    }
    return out;
  };
  // An svg is named by its own title element.
  const svgTitle = (el) => {
    const tt = el.querySelector(":scope > title");
    return tt ? squash(tt.textContent) : "";
  };
  // The text an element gives to a name computed from content (accname
  // step 2F): its text and generated content, the alt of its images, the
  // value of embedded controls, the labels of labelled children; hidden
  // parts are left out. Only an inline child joins the text around it
  // without a space, as in Chromium.
  // HOLDER: roles of elements that hold others (a tree item's group, a
  // menu item's submenu): Chromium gives a name computed from content
  // their label, and none of their text.
  const HOLDER = new Set(("alert alertdialog application article banner blockquote complementary contentinfo dialog " +
    "document feed figure group listbox log main marquee menu menubar navigation note progressbar radiogroup " +
    "rowgroup row search status table tablist tabpanel timer toolbar tree treegrid grid").split(" "));
  const contentText = (el, self) => {
    let out = pseudo(el, "::before");
    for (const n of childList(el)) {
      if (n.nodeType === 3) { out += n.nodeValue; continue; }
      if (n.nodeType !== 1 || n === self || SKIP.has(n.localName) || n.getAttribute("aria-hidden") === "true") continue;
      const cs = getComputedStyle(n);
      if (cs.display === "none" || cs.visibility === "hidden" || cs.visibility === "collapse") continue;
      const t = n.localName, lbl = squash(n.getAttribute("aria-label"));
      let part;
      if (lbl) part = lbl;
      else if (t === "img" || t === "area") part = n.getAttribute("alt") || "";
      else if (t === "input" && !/^(checkbox|radio|file|image|hidden)$/i.test(n.type)) part = n.value;
      else if (t === "textarea") part = n.value;
      else if (t === "select") part = n.selectedOptions && n.selectedOptions[0] ? n.selectedOptions[0].label : "";
      else if (t === "br" || t === "wbr") part = " ";
      else if (t === "svg") part = svgTitle(n) || contentText(n, self);
      else if (HOLDER.has(roleOf(n, t))) part = "";
      else part = contentText(n, self);
      out += cs.display === "inline" ? part : " " + part + " ";
    }
    return out + pseudo(el, "::after");
  };
  const byIds = (el, ids) => {
    const root = el.getRootNode();
    return squash(ids.trim().split(/\s+/).map((id) => {
      const r = root.getElementById ? root.getElementById(id) : document.getElementById(id);
      return r ? squash(r.getAttribute("aria-label")) || contentText(r, null) : "";
    }).join(" "));
  };
  const FROM_CONTENT = new Set(["button", "link", "heading", "cell", "gridcell", "columnheader", "rowheader", "option",
    "tab", "menuitem", "menuitemcheckbox", "menuitemradio", "treeitem", "checkbox", "radio", "switch", "tooltip", "term"]);
  // A file input reads as Chromium shows it: its label (or "Choose File")
  // and what is chosen.
  const nameOf = (el, role, tag) => {
    const n = baseName(el, role, tag);
    if (tag !== "input" || el.type !== "file") return n;
    const fs = el.files || [];
    return (n || (el.multiple ? "Choose Files" : "Choose File")) + ": " +
      (fs.length === 0 ? "No file chosen" : fs.length === 1 ? fs[0].name : fs.length + " files");
  };
  const baseName = (el, role, tag) => {
    const lb = el.getAttribute("aria-labelledby");
    if (lb) {
      const n = byIds(el, lb);
      if (n) return n;
    }
    const al = squash(el.getAttribute("aria-label"));
    if (al) return al;
    let n = "";
    if (tag === "input" || tag === "select" || tag === "textarea" || tag === "meter" || tag === "progress" || tag === "output") {
      const ty = (el.getAttribute("type") || "").toLowerCase();
      if (tag === "input" && (ty === "button" || ty === "submit" || ty === "reset")) {
        return el.value || (ty === "submit" ? "Submit" : ty === "reset" ? "Reset" : "");
      }
      if (tag === "input" && ty === "image") return el.getAttribute("alt") || el.value || "Submit";
      if (el.labels) n = squash([...el.labels].map((l) => contentText(l, el)).join(" "));
      if (!n && (role === "textbox" || role === "searchbox" || role === "combobox" || role === "spinbutton")) n = squash(el.getAttribute("title") || el.getAttribute("placeholder"));
      return n;
    }
    switch (tag) {
      case "img": case "area":
        if (el.hasAttribute("alt")) return squash(el.getAttribute("alt"));
        break;
      case "fieldset": {
        const lg = el.querySelector(":scope > legend");
        if (lg) n = squash(contentText(lg, null));
        break;
      }
      case "table":
        if (el.caption) n = squash(contentText(el.caption, null));
        break;
      case "svg": n = svgTitle(el); break;
      case "optgroup": n = squash(el.label); break;
      case "option": n = squash(el.label); break;
    }
    if (n) return n;
    if (FROM_CONTENT.has(role) || role === "row" && el.closest("[role=grid], [role=treegrid]")) n = squash(contentText(el, null));
    return n || squash(el.getAttribute("title"));
  };

  // Inline formatting tags whose role can only be a flat one, unless an
  // attribute gives them a role, focus or a handler: asking Chromium for
  // their role would cost the same again for no information.
  const PLAIN = new Set(["span", "b", "i", "em", "strong", "small", "sup", "sub", "u", "s", "abbr", "cite", "q", "bdi",
    "bdo", "font", "big", "tt", "var", "kbd", "samp", "dfn", "wbr"]);
  const plainRole = (el) => !el.hasAttribute("role") && !el.hasAttribute("tabindex") && !el.hasAttribute("onclick") &&
    !el.hasAttribute("contenteditable") && !el.hasAttribute("aria-label") && !el.hasAttribute("aria-labelledby");

  // The name of an element named from its content that holds only text is
  // that text (accname step 2F); asking Chromium costs a tree walk per link.
  const FROM_TEXT = new Set(["link", "button", "option", "menuitem", "tab", "treeitem", "heading", "cell", "columnheader", "rowheader"]);
  const textName = (el, role) => {
    if (!FROM_TEXT.has(role) || el.firstElementChild || el.hasAttribute("aria-label") || el.hasAttribute("aria-labelledby") ||
      el.localName === "input" || el.localName === "select" || el.localName === "textarea") return undefined;
    const t = el.textContent.replace(/\s+/g, " ").trim();
    return t || undefined;
  };

  // Whether an element the accessibility tree keeps is hidden from sight
  // with all it holds: transparent, scaled to nothing, clipped to a pixel
  // (screen-reader-only text) or placed where no scrolling reaches. The
  // computed style answers most; only a positioned element is measured.
  const ZERO_SCALE = /^matrix\(0, 0, 0, 0,|^matrix3d\(0, 0, 0, 0, 0, 0, 0, 0,/;
  // An opacity or a transform on its way (a transition, or an animation
  // that runs or waits for its delay) reads as where it goes: a modal that
  // fades in is shown, a toast that fades out is not. The walk comes as
  // soon as the action settled, while the fade has just begun, and no
  // mutation marks its end, so no later walk would see it arrive. The
  // document's animations are listed once per walk: most pages have none.
  const anims = new Map();
  const goal = (el, prop) => {
    const doc = el.ownerDocument;
    let m = anims.get(doc);
    if (!m) {
      m = new Map();
      anims.set(doc, m);
      const list = doc.getAnimations ? doc.getAnimations() : [];
      for (const an of list) {
        const fx = an.effect, tg = fx && fx.target;
        // One driven by scrolling (a ScrollTimeline) goes nowhere by itself.
        if (!tg || an.playState === "finished" || an.playState === "idle" || !fx.getKeyframes || an.timeline !== doc.timeline) continue;
        const tm = fx.getComputedTiming();
        if (!(tm.iterations < Infinity)) continue;
        // Where it ends: its last keyframe, or its first when it ends
        // played backwards.
        const alt = tm.direction === "alternate" || tm.direction === "alternate-reverse";
        let back = tm.direction === "reverse" || tm.direction === "alternate-reverse";
        if (alt && Math.ceil(tm.iterations) % 2 === 0) back = !back;
        if (an.playbackRate < 0) back = !back;
        const ks = fx.getKeyframes();
        for (const p of ["opacity", "transform", "height", "maxHeight", "width", "maxWidth"]) {
          const k = back ? ks.find((k) => k[p] !== undefined) : ks.findLast((k) => k[p] !== undefined);
          if (k) m.set(tg, Object.assign(m.get(tg) || {}, { [p]: String(k[p]) }));
        }
      }
    }
    const g = m.size ? m.get(el) : undefined;
    return g && g[prop];
  };
  const ZERO_FN = /^(?:scale[XY3d]*|matrix(?:3d)?)\(\s*0(?:\.0*)?(?:px)?\s*[,)]/;
  // A clip-path that leaves nothing: an inset of half the box or more, or
  // a circle or an ellipse of radius 0.
  const NO_AREA = /^inset\((?:[5-9]\d|\d{3,})(?:\.\d+)?%|^(?:circle|ellipse)\(0(?:px|%)?[\s)]/;
  // A size on its way (an accordion that opens or closes with a
  // transition) reads as where it goes, as an opacity does.
  const goalSize = (el, a, b) => {
    const g = goal(el, a) ?? goal(el, b);
    return g === undefined ? undefined : parseFloat(g);
  };
  // unseen answers CLIPPED (truthy) when only a box that is not positioned
  // hides what it holds, by clipping it.
  const CLIPPED = 2;
  const unseen = (el, cs) => {
    const op = goal(el, "opacity");
    if (op !== undefined ? parseFloat(op) === 0 : cs.opacity === "0") return true;
    const to = goal(el, "transform");
    if (to !== undefined ? ZERO_FN.test(to.trim()) : cs.transform !== "none" && ZERO_SCALE.test(cs.transform)) return true;
    const cp = cs.clipPath;
    if (cp !== "none" && NO_AREA.test(cp)) return true;
    const pos = cs.position;
    const placed = pos === "absolute" || pos === "fixed";
    // A box that clips what overflows it (a collapsed panel: height 0,
    // overflow hidden) shows nothing when it is a pixel or less across;
    // an inline box or display: contents clips nothing.
    const clips = cs.display !== "inline" && cs.display !== "contents" && (cs.overflowX !== "visible" || cs.overflowY !== "visible");
    if (!placed && !clips) return false;
    if (placed) {
      const c = cs.clip;
      if (c !== "auto" && c.startsWith("rect(")) {
        const v = c.slice(5).split(/,?\s+|,/).map(parseFloat);
        if (v.length === 4 && !v.some(isNaN) && (v[1] - v[3] <= 1 || v[2] - v[0] <= 1)) return true;
      }
    }
    const b = el.getBoundingClientRect();
    if (clips) {
      const gh = goalSize(el, "height", "maxHeight"), gw = goalSize(el, "width", "maxWidth");
      // A size that does not parse (auto, none) is not zero.
      const h = gh === undefined ? b.height : isNaN(gh) ? Infinity : gh;
      const w = gw === undefined ? b.width : isNaN(gw) ? Infinity : gw;
      if (h <= 1 && cs.overflowY !== "visible" || w <= 1 && cs.overflowX !== "visible") return placed || pos !== "static" ? true : CLIPPED;
    }
    if (!placed) return false;
    // A drawer that slides in (a transform on its way) is where it goes.
    const [dx, dy] = to !== undefined ? shift(el, cs.transform, to) : [0, 0];
    const r = { left: b.left + dx, right: b.right + dx, top: b.top + dy, bottom: b.bottom + dy };
    const w = el.ownerDocument.defaultView || window, iw = w.innerWidth, ih = w.innerHeight;
    if (pos === "fixed") return r.right <= 0 || r.bottom <= 0 || r.left >= iw || r.top >= ih;
    const d = el.ownerDocument.documentElement, sx = w.scrollX, sy = w.scrollY;
    return r.right + sx <= 0 || r.bottom + sy <= 0 || r.left + sx >= Math.max(d.scrollWidth, iw) || r.top + sy >= Math.max(d.scrollHeight, ih);
  };
  // clear says whether an element's own text is drawn in a transparent
  // colour with nothing else to show it: a gradient clipped to the text,
  // a shadow or a stroke draws it.
  const CLEAR = /^rgba\(.*,\s*0\)$|\/\s*0\)$|^transparent$/;
  const clear = (cs) => {
    const fill = cs.webkitTextFillColor || cs.color;
    return CLEAR.test(fill) && cs.backgroundClip !== "text" && cs.webkitBackgroundClip !== "text" &&
      cs.textShadow === "none" && !(parseFloat(cs.webkitTextStrokeWidth) > 0);
  };
  // pushedOut says whether a negative text-indent (image replacement:
  // text-indent: -9999px) put all an element holds left of the page.
  const pushedOut = (el, cs) => {
    if (!(parseFloat(cs.textIndent) < 0)) return false;
    const doc = el.ownerDocument, w = doc.defaultView || window;
    const r = doc.createRange();
    r.selectNodeContents(el);
    const rs = r.getClientRects();
    if (!rs.length) return false;
    for (const x of rs) if (x.right + w.scrollX > 0) return false;
    return true;
  };
  // shift is how far the translation of the transform to moves el from
  // where its computed transform now has it; percentages are of its box.
  // [0, 0] for what does not parse.
  const shift = (el, now, to) => {
    try {
      const W = el.offsetWidth, H = el.offsetHeight;
      const pc = (v, of) => v.trim().endsWith("%") ? parseFloat(v) * of / 100 + "px" : v;
      const t = to.replace(/translate(X|Y|3d)?\(([^)]*)\)/g, (m, ax, args) => {
        const v = args.split(",");
        const of = (i) => ax === "Y" || !ax && i === 1 || ax === "3d" && i === 1 ? H : W;
        return "translate" + (ax || "") + "(" + v.map((x, i) => pc(x, of(i))).join(",") + ")";
      });
      const end = new DOMMatrix(t), cur = new DOMMatrix(now === "none" ? "none" : now);
      return [end.e - cur.e, end.f - cur.f];
    } catch (e) {
      return [0, 0];
    }
  };

  // Cache: a tracked walk keeps, per element, what visit() gave for it
  // (R.cache: {key, seq, items}, key being the walk's context there), and
  // the next tracked walk gives that again for an element in which nothing
  // was recorded since (R.stale, R.deep and R.allSeq, above), without
  // visiting it. What depends on more than an element's subtree is never
  // kept, and neither is any element that holds it: an iframe (its
  // document can navigate unseen; a cross-origin one is walked apart), a
  // file field (its files change unseen), a slot (it shows nodes from
  // outside its subtree). Other form fields are compared (R.checkFields).
  const cacheOn = !!a.track && !a.sel && !(this && this.nodeType === 1);
  if (cacheOn && !R.cache) R.cache = new WeakMap();
  let nocache = 0, deepAbove = 0;
  const visit = (el, kids, ctx) => {
    if (!cacheOn) return visitOne(el, kids, ctx);
    const key = (ctx.hidden ? "h" : "") + (ctx.inAct ? "a" : "") + (ctx.inRef ? "r" : "") + (ctx.closed ? "c" : "") +
      (ctx.vh ? "v" : "") + (ctx.vc ? "x" : "") + (ctx.tvh ? "t" : "") + "|" + (ctx.cursor || "");
    const above = deepAbove;
    deepAbove = Math.max(above, R.deep.get(el) || 0, R.allSeq);
    const hit = R.cache.get(el);
    if (hit && hit.key === key && Math.max(deepAbove, R.stale.get(el) || 0) <= hit.seq) {
      for (const k of hit.items) kids.push(k);
      deepAbove = above;
      return;
    }
    const start = kids.length, nc = nocache;
    visitOne(el, kids, ctx);
    deepAbove = above;
    if (nocache === nc) R.cache.set(el, { key, seq: R.seq, items: kids.slice(start) });
    else R.cache.delete(el);
  };
  // Chromium's role of an element follows from the document, not from
  // its state: a tracked walk keeps the role it read (R.roles), and the
  // next one reads it again only when a mutation, a style sheet, a scroll
  // or a resize was recorded since, or the element's visibility changed.
  // Reading computedRole first brings the page's rendering up to date,
  // which after typing costs more than the rest of the walk.
  const roleIn = (el, hidden) => {
    if (!cacheOn) return el.computedRole || "";
    const c = R.roles.get(el);
    if (c && c.hidden === hidden && Math.max(R.mutSeq, R.allSeq) <= c.seq) return c.role;
    const role = el.computedRole || "";
    R.roles.set(el, { role, hidden, seq: R.seq });
    return role;
  };
  // A native control that aria-label alone names has that name, whatever
  // its state: reading the attribute spares computedName, which brings
  // the rendering up to date as computedRole does.
  const CONTROLS = new Set(["input", "textarea", "select", "button"]);
  const ariaName = (el, role) => {
    if (!ACT.has(role) || !CONTROLS.has(el.localName) || el.hasAttribute("aria-labelledby")) return undefined;
    const l = el.getAttribute("aria-label");
    return l && l === l.replace(WS, " ").trim() ? l : undefined;
  };
  // A modal <dialog> makes the rest of the page inert, and Chromium's
  // computedName answers "" for an inert element: opening one took the
  // name of every link, heading, group and table outside it, and an
  // action's changes said so. Such an element is named by the walk's own
  // computation, as it reads without the dialog.
  let modal;
  const inert = (el) => {
    if (modal === undefined) {
      try { modal = document.querySelector("dialog:modal"); } catch (e) { modal = null; }
    }
    return !!modal && !modal.contains(el);
  };
  const UNCACHED = new Set(["iframe", "frame", "slot"]);
  const visitOne = (el, kids, ctx) => {
    const tag = el.localName;
    if (UNCACHED.has(tag) || tag === "input" && el.type === "file") nocache++;
    if (tag === "br") { if (!only) kids.push({ t: " " }); return; }
    if (SKIP.has(tag) || el.getAttribute("aria-hidden") === "true") return;
    // One computed style answers display, visibility and cursor; it costs
    // less than checkVisibility.
    const cs = getComputedStyle(el);
    if (cs.display === "none") return;
    const hidden = cs.visibility !== "visible";
    const plain = PLAIN.has(tag) && plainRole(el);
    // What a closed details hides, but its summary, has no role: Chromium
    // keeps it out of the accessibility tree.
    const closed = ctx.closed && !(tag === "summary" && el.parentElement && el.parentElement.localName === "details");
    let role = plain ? "generic" : native ? roleIn(el, hidden) : closed ? "" : roleOf(el, tag);
    if (!role && !closed && tag === "input" && NO_ROLE.has(el.type)) role = "textbox";
    const cursor = ctx.cursor;
    const st = ACT.has(role) || ctx.inAct ? "" : cs.cursor;
    // vh: the element and all it holds are visually hidden; tvh: its own
    // text is (a zero font size hides only what it applies to).
    // What a closed details or hidden="until-found" holds is not drawn,
    // and the accessibility tree leaves it out, yet its text is kept:
    // marked, so that a page cannot hide instructions there.
    // vc: vh comes from a box that clips what overflows it and is not
    // positioned, whose clip an absolutely or fixed positioned element
    // escapes (until a positioned element contains it again).
    const inh = ctx.vh && !(ctx.vc && (cs.position === "absolute" || cs.position === "fixed"));
    const u = inh || closed ? false : !hidden && unseen(el, cs);
    const vh = inh || closed || !!u;
    const vc = inh ? ctx.vc && cs.position === "static" : u === CLIPPED;
    const shut = closed || tag === "details" && !el.open || cs.contentVisibility === "hidden";
    const sub = { hidden, cursor: st || cursor, inAct: ctx.inAct || ACT.has(role), inRef: ctx.inRef,
      closed: shut, vh, vc, tvh: vh || shut || cs.fontSize === "0px" || !hidden && (clear(cs) || pushedOut(el, cs)) };
    if (tag === "label" && el.control) {
      // The label's text is the control's name: show the control only.
      if (!el.contains(el.control)) return;
      for (const n of childList(el)) if (n.nodeType === 1) visit(n, kids, sub);
      return;
    }
    let act = !hidden && ACT.has(role);
    if (!act && !hidden && role !== "iframe" && clickable(el, st === "pointer" && cursor !== "pointer" ? "pointer" : "")) act = true;
    const node = { role, kids: [], vh };
    if (act) {
      node.ref = refOf(el);
      sub.inRef = true;
    }
    if (!hidden && (NAMED.has(role) || act)) node.name = textName(el, role) ?? (native ? ariaName(el, role) ?? (el.computedName || (inert(el) ? nameOf(el, role, tag) : "")) : nameOf(el, role, tag));
    if (tag === "iframe" || tag === "frame") {
      node.role = "iframe";
      node.name = node.name || el.getAttribute("title") || "";
      let doc = null;
      try { doc = el.contentDocument; } catch (e) { /* cross-origin */ }
      if (doc && doc.documentElement) {
        watch(doc);
        visitKids(doc.body || doc.documentElement, node.kids, { hidden: false, cursor: "" });
      } else {
        R.frames.push(el);
        node.kids.push({ frame: R.frames.length - 1 });
      }
      kids.push(node);
      return;
    }
    if (role === "link") node.url = shortURL(el);
    if (act) {
      const at = [];
      if (el.matches(":disabled") || el.getAttribute("aria-disabled") === "true") at.push("disabled");
      if (role === "checkbox" || role === "radio" || role === "switch" || role === "menuitemcheckbox" || role === "menuitemradio") {
        const c = el.indeterminate ? "mixed" : (el.checked ?? el.getAttribute("aria-checked") === "true");
        if (c === "mixed") at.push("checked=mixed"); else if (c) at.push("checked");
      }
      if (role === "option" || role === "tab" || role === "treeitem") {
        if (el.selected || el.getAttribute("aria-selected") === "true") at.push("selected");
      }
      const ex = el.getAttribute("aria-expanded");
      if (ex) at.push(ex === "true" ? "expanded" : "collapsed");
      const pr = el.getAttribute("aria-pressed");
      if (pr === "true" || pr === "mixed") at.push(pr === "true" ? "pressed" : "pressed=mixed");
      if (at.length) node.attrs = at;
      if ((tag === "input" || tag === "textarea") && role !== "checkbox" && role !== "radio" && role !== "button") {
        if (el.type !== "password" && el.value) node.value = el.value;
      } else if (tag === "select" && role === "combobox") {
        const o = el.selectedOptions && el.selectedOptions[0];
        if (o) node.value = o.label;
      } else if (role === "slider" || role === "spinbutton") {
        const v = el.getAttribute("aria-valuetext") || el.getAttribute("aria-valuenow") || el.value;
        if (v) node.value = String(v);
      }
    } else if (role === "heading") {
      // Only digits: the attribute is the page's to write.
      const al = (el.getAttribute("aria-level") || "").trim();
      const lv = /^[1-9][0-9]{0,2}$/.test(al) ? al : /^h[1-6]$/.test(tag) ? tag[1] : "";
      if (lv) node.attrs = ["level=" + lv];
    }
    if (tag !== "input" && tag !== "textarea") visitKids(el, node.kids, sub);
    if (tag === "select") {
      // Closed selects hide their options from checkVisibility; list them.
      if (!node.kids.length) for (const o of el.options) {
        const r = refOf(o);
        node.kids.push({ role: "option", name: o.label, ref: r, kids: [], attrs: o.selected ? ["selected"] : undefined });
      }
    }
    const keep = node.ref || (only ? ORIENT.has(role) : !FLAT.has(role) && !hidden);
    if (!keep) {
      const sep = !INLINE.has(tag);
      if (sep) kids.push({ t: " " });
      for (const k of node.kids) kids.push(k);
      if (sep) kids.push({ t: " " });
      return;
    }
    kids.push(node);
  };

  // Merges adjacent text and trims it.
  const tidy = (kids) => {
    const out = [];
    // Visually hidden text stays apart from visible text; a space joins
    // either.
    for (const k of kids) {
      const last = out[out.length - 1];
      if (k.t !== undefined && last && last.t !== undefined && (!k.vh === !last.vh || !/\S/.test(k.t))) last.t += k.t;
      else if (k.t !== undefined && last && last.t !== undefined && !/\S/.test(last.t)) last.t += k.t, last.vh = k.vh;
      else out.push(k.t !== undefined ? { t: k.t, vh: k.vh } : k);
    }
    const res = [];
    for (const k of out) {
      if (k.t !== undefined) {
        k.t = k.t.replace(/\s+/g, " ").trim();
        if (k.t) res.push(k);
      } else res.push(k);
    }
    return res;
  };
  // Printing the page's strings (see the top of this file). WS is every
  // line break and space JavaScript knows, and NEL; CTRL what would hide
  // or reorder text; SYN what makes a text be quoted.
  const WS = /[\s\u0085]+/g;
  const CTRL = /[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;
  const SYN = /[\\"\[\]|\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
  const maxText = a.maxText > 0 ? a.maxText : 0;
  // clip cuts s at maxText code points: [what is shown, how many are not].
  const clip = (s) => {
    if (!maxText || s.length <= maxText) return [s, 0];
    const cp = Array.from(s);
    return cp.length <= maxText ? [s, 0] : [cp.slice(0, maxText).join(""), cp.length - maxText];
  };
  const more = (n) => n ? "… [+" + n + " chars]" : "";
  const esc = (s) => s.replace(/[\\"\[\]]/g, "\\$&").replace(CTRL, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
  const q = (s) => {
    const [v, n] = clip(s.replace(WS, " ").trim());
    return '"' + esc(v) + (n ? '…" [+' + n + " chars]" : '"');
  };
  const tx = (s) => {
    s = s.replace(WS, " ").trim();
    return s === "…" || SYN.test(s) || maxText && s.length > maxText ? q(s) : s;
  };
  const ROLE = /^[A-Za-z][A-Za-z0-9-]*$/;
  const textOnly = (kids) => kids.length === 1 && kids[0].t !== undefined;
  const cut = a.depth > 0 ? a.depth : Infinity;
  const lines = [];
  let size = 0;

  // A tracked walk keeps the lines each node printed (R.emitted): a node
  // that the cache gave again prints the same lines, at the same place.
  // Only nodes that print a few lines are kept: a line is cheaper to print
  // again than to keep at every level above it.
  const emitted = cacheOn ? R.emitted || (R.emitted = new WeakMap()) : null;
  // off: an ancestor's line already says [offscreen].
  const emit = (node, ind, lvl, off) => {
    if (!emitted || node.t !== undefined || node.frame !== undefined) return emitOne(node, ind, lvl, off);
    const m = emitted.get(node);
    if (m && m.ind === ind && m.lvl === lvl && m.off === off) {
      for (const l of m.lines) lines.push(l);
      return;
    }
    const start = lines.length;
    emitOne(node, ind, lvl, off);
    if (lines.length - start >= 4) emitted.set(node, { ind, lvl, off, lines: lines.slice(start) });
  };
  const emitOne = (node, ind, lvl, off) => {
    if (node.t !== undefined) {
      lines.push(ind + (node.vh && !off ? "- text [offscreen]: " : "- text: ") + tx(node.t));
      return;
    }
    if (node.frame !== undefined) {
      lines.push(ind + "\u0001" + node.frame);
      return;
    }
    let kids = tidy(node.kids);
    // A thin container around one element is just that element.
    if (!node.ref && !node.name && THIN.has(node.role) && kids.length === 1 && kids[0].t === undefined && kids[0].frame === undefined) {
      emit(kids[0], ind, lvl, off);
      return;
    }
    // An empty container says nothing, unless it is a landmark or a live
    // region that content will appear in.
    if (!kids.length && !node.ref && !node.name && node.value === undefined && !ORIENT.has(node.role) && !LIVE.has(node.role)) return;
    let head = ind + "- " + (ROLE.test(node.role) ? node.role : "generic");
    if (node.name) head += " " + q(node.name);
    if (node.attrs) for (const at of node.attrs) head += " [" + at + "]";
    if (node.vh && !off) head += " [offscreen]";
    off = off || node.vh;
    // Text shown on the node's own line: hidden text only under a line
    // that says so.
    const inline = (k) => k.t !== undefined && (!k.vh || off);
    if (node.ref) head += " [ref=" + node.ref + "]";
    if (node.url) {
      const [u, n] = clip(node.url);
      head += " " + u + more(n);
    }
    if (node.role === "row") {
      // A row reads as its cells' text; what can be acted on nests below.
      const parts = [], nested = [];
      const part = (k) => parts.push(tx(k.t) + (k.vh && !off ? " [offscreen]" : ""));
      for (const c of kids) {
        if (c.t !== undefined) { part(c); continue; }
        const ck = c.ref || c.frame !== undefined ? [c] : tidy(c.kids);
        if (!c.ref && c.frame === undefined && textOnly(ck)) { part(ck[0]); continue; }
        if (!c.ref && c.frame === undefined && !ck.length) { parts.push(""); continue; }
        for (const x of ck) if (x.t !== undefined) part(x); else nested.push(x);
      }
      while (parts.length && parts[parts.length - 1] === "") parts.pop();
      if (parts.length) head += ": " + parts.join(" | ");
      kids = nested;
      if (!kids.length) { lines.push(head); return; }
      if (lvl + 1 >= cut) { lines.push(head + " …"); return; }
      lines.push(head);
      for (const k of kids) emit(k, ind + "  ", lvl + 1, off);
      return;
    }
    // Text that only repeats the name says nothing new (a link's text, a
    // table's caption, a group's legend).
    if (node.name) {
      const nm = node.name.replace(/\s+/g, " ").trim();
      kids = kids.filter((k) => k.t === undefined || !nm.includes(k.t));
    }
    if (node.value !== undefined) head += ": " + q(node.value);
    if (!kids.length) { lines.push(head); return; }
    if (node.value === undefined && textOnly(kids) && inline(kids[0])) { lines.push(head + ": " + tx(kids[0].t)); return; }
    let open = node.value !== undefined ? "" : ":";
    if (lvl + 1 >= cut) { lines.push(head + open + " …"); return; }
    // Leading text goes on the container's own line, as in a row: one line
    // and one "- text:" fewer per paragraph.
    if (open && inline(kids[0])) {
      open += " " + tx(kids[0].t);
      kids = kids.slice(1);
    }
    const at = lines.length;
    lines.push(head + open);
    for (const k of kids) emit(k, ind + "  ", lvl + 1, off);
    // Children that all turned out empty leave no dangling colon.
    if (lines.length === at + 1) lines[at] = head;
  };

  // Transient: the text of the nodes added since the last view that are
  // no longer in the document (a toast that showed "Saved!" and went
  // away), printed as outline text lines so that a page cannot forge
  // syntax with it. A node inside another such node is that node's text;
  // text still in the document (a list re-rendered into an equal one) did
  // not go away; script and style hold no text a user reads. Only the
  // first MAX_TRANSIENT texts are answered.
  const MAX_TRANSIENT = 5;
  const textOf = (n) => {
    const parts = [];
    const walkText = (x) => {
      if (x.nodeType === 3) { parts.push(x.nodeValue); return; }
      if (x.nodeType !== 1 || SKIP.has(x.localName) || x.getAttribute("aria-hidden") === "true") return;
      const sep = !INLINE.has(x.localName);
      if (sep) parts.push(" ");
      if (x.shadowRoot) for (let c = x.shadowRoot.firstChild; c; c = c.nextSibling) walkText(c);
      for (let c = x.firstChild; c; c = c.nextSibling) walkText(c);
      if (sep) parts.push(" ");
    };
    walkText(n);
    return parts.join("").replace(WS, " ").trim();
  };
  const gone = (added) => {
    const cand = added.filter((n, i) => !n.isConnected && added.indexOf(n) === i);
    const out = [], seen = new Set();
    // The text each document (this one, or a same-origin frame's) still
    // holds, shadow trees included; read once, and only when a node went.
    const present = new Map();
    for (const n of cand) {
      if (out.length >= MAX_TRANSIENT) break;
      if (cand.some((m) => m !== n && m.contains(n))) continue;
      const t = textOf(n);
      if (!t || seen.has(t)) continue;
      seen.add(t);
      const d = n.ownerDocument;
      if (!present.has(d)) present.set(d, d.documentElement ? textOf(d.body || d.documentElement) : "");
      if (present.get(d).includes(t)) continue;
      out.push("- text: " + tx(t));
    }
    return out;
  };

  let root = this && this.nodeType === 1 ? this : null;
  if (a.sel) {
    try {
      root = (__QUERY__)(a.kind, a.sel, false);
    } catch (e) {
      return { error: "invalid_selector", message: String((e && e.message) || e) };
    }
    if (!root) return { error: "not_found" };
    if (root.nodeType !== 1) root = root.parentElement;
  }
  const top = [];
  if (root) visit(root, top, { hidden: false, cursor: "" });
  else visitKids(document.body || document.documentElement, top, { hidden: false, cursor: "" });
  for (const k of tidy(top)) emit(k, "", 0, false);
  // Asked about the view the engine holds, a tracked walk answers only
  // the lines between the head and the tail it shares with that view.
  let patch = null, transient = null;
  if (a.track) {
    const old = R.lines;
    if (a.doc && R.doc === a.doc && R.gen === a.base && old && !R.frames.length && !R.lastFrames) {
      const n = Math.min(old.length, lines.length);
      let h = 0, t = 0;
      while (h < n && old[h] === lines[h]) h++;
      while (t < n - h && old[old.length - 1 - t] === lines[lines.length - 1 - t]) t++;
      patch = { head: h, tail: t, mid: lines.slice(h, lines.length - t) };
    }
    R.lines = lines;
    R.lastFrames = R.frames.length;
    // What the walk itself saw is the new view.
    R.mo.takeRecords();
    transient = R.added.length ? gone(R.added) : null;
    R.added = [];
    R.dirty = false;
    R.gen++;
    R.seq++;
    R.saveFields();
  }
  const out = { next, frames: R.frames.length, url: document.location.href, title: document.title, doc: R.doc, gen: R.gen };
  if (transient && transient.length) out.transient = transient;
  if (patch) out.patch = patch;
  else out.text = lines.join("\n");
  return out;
}

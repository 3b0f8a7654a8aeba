// Builds the Playwright locator of one element (generate_locator, and the
// code line of every action): the first of these strategies that matches
// exactly this element and nothing else in its document, checked here with
// the semantics of Playwright's own engines (injectedScript.ts,
// roleUtils.ts, roleSelectorUtils.ts, selectorEvaluator.ts), so that the
// locator the test file runs finds what the agent acted on:
//   1. getByRole(role, {name}): ARIA role, explicit or implicit; the
//      accessible name, a case-insensitive substring after whitespace
//      normalisation, or the whole string with exact; hidden elements
//      (display:none, visibility, aria-hidden) never match;
//   2. getByLabel: the text of an element's labels, aria-labelledby or
//      aria-label;
//   3. getByPlaceholder: the placeholder attribute (not normalised);
//   4. getByTestId: the test id attribute, whole and case-sensitive;
//   5. getByText: the smallest element whose text (textContent, or the
//      value of a button input) holds the string;
//   6. a CSS path: an id that is unique and does not look generated, else
//      tag names and :nth-of-type up the tree until the path is unique.
// Each string strategy tries the substring match first and exact second.
// A path that is still not unique (inside shadow roots, whose parts
// Playwright's CSS queries separately) takes .nth(i).
//
// Playwright's queries pierce open shadow roots; so does every count here,
// in the order Playwright's role engine visits them (a root's elements,
// then the shadow roots found in it).
//
// An element in a same-origin frame gets the frameLocator chain of the
// iframe elements above it, each a CSS locator in its parent document
// (its id, name or title when unique, else its path). From inside a
// cross-origin frame the iframe element cannot be reached (frameElement is
// null there, by the same-origin policy), so no chain can be built:
// {error: "cross_origin"}.
//
// (el, testIdAttribute) => {frames, kind, role, name, value, exact, nth, count}
(el, testIdAttr) => {
  const norm = (s) => String(s || "").replace(/\u200b/g, "").trim().replace(/\s+/g, " ");
  const css = (s) => (window.CSS && CSS.escape ? CSS.escape(s) : String(s).replace(/[^\w-]/g, (c) => "\\" + c));
  const attrVal = (s) => '"' + String(s).replace(/\\/g, "\\\\").replace(/"/g, '\\"') + '"';
  const parentOf = (e) => e.parentElement || (e.parentNode && e.parentNode.host) || null;

  // Every element under root, piercing open shadow roots, in the order of
  // Playwright's role engine.
  const deepAll = (root) => {
    const out = [], shadows = [];
    if (root.shadowRoot) shadows.push(root.shadowRoot);
    for (const e of root.querySelectorAll("*")) {
      out.push(e);
      if (e.shadowRoot) shadows.push(e.shadowRoot);
    }
    for (const s of shadows) out.push(...deepAll(s));
    return out;
  };
  const deepQuery = (root, sel) => {
    const out = [...root.querySelectorAll(sel)];
    for (const e of root.querySelectorAll("*")) if (e.shadowRoot) out.push(...deepQuery(e.shadowRoot, sel));
    return out;
  };

  // --- Visibility for the accessibility tree (isElementHiddenForAria).
  const styleOf = (e) => e.ownerDocument.defaultView.getComputedStyle(e);
  const hiddenCache = new Map();
  const hiddenUp = (e) => {
    // display:none or aria-hidden on e or above it.
    if (!e) return false;
    if (hiddenCache.has(e)) return hiddenCache.get(e);
    const st = styleOf(e);
    const h = st.display === "none" || e.getAttribute("aria-hidden") === "true" || hiddenUp(parentOf(e));
    hiddenCache.set(e, h);
    return h;
  };
  const SKIPPED = new Set(["style", "script", "noscript", "template"]);
  const hiddenForAria = (e) => {
    if (SKIPPED.has(e.localName)) return true;
    const st = styleOf(e);
    const opt = e.localName === "option" && e.closest("select");
    if (st.display === "contents" && e.localName !== "slot") {
      for (let c = e.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 1 && !hiddenForAria(c)) return false;
        if (c.nodeType === 3 && /\S/.test(c.nodeValue)) return false;
      }
      return true;
    }
    if (!opt && e.localName !== "slot" && st.visibility !== "visible") return true;
    return hiddenUp(e);
  };

  // --- Roles (roleUtils.ts: getAriaRole).
  const ROLES = new Set(("alert alertdialog application article banner blockquote button caption cell checkbox code " +
    "columnheader combobox complementary contentinfo definition deletion dialog directory document emphasis feed " +
    "figure form generic grid gridcell group heading img insertion link list listbox listitem log main mark marquee " +
    "math meter menu menubar menuitem menuitemcheckbox menuitemradio navigation none note option paragraph " +
    "presentation progressbar radio radiogroup region row rowgroup rowheader scrollbar search searchbox separator " +
    "slider spinbutton status strong subscript superscript switch tab table tablist tabpanel term textbox time " +
    "timer toolbar tooltip tree treegrid treeitem").split(" "));
  const GLOBAL_ARIA = ["aria-atomic", "aria-busy", "aria-controls", "aria-current", "aria-describedby", "aria-details",
    "aria-dropeffect", "aria-flowto", "aria-grabbed", "aria-hidden", "aria-keyshortcuts", "aria-label",
    "aria-labelledby", "aria-live", "aria-owns", "aria-relevant", "aria-roledescription"];
  // A form or section is a landmark when its author named it
  // (hasExplicitAccessibleName).
  const explicitName = (e) => !!(e.getAttribute("aria-label") || "").trim() || !!e.getAttribute("aria-labelledby");
  const hasGlobalAria = (e) => GLOBAL_ARIA.some((a) => e.hasAttribute(a));
  const focusable = (e) => {
    const t = e.localName;
    if (["button", "input", "select", "textarea"].includes(t)) return !e.disabled;
    if ((t === "a" || t === "area") && e.hasAttribute("href")) return true;
    if (t === "iframe" || t === "summary") return true;
    return e.hasAttribute("tabindex") || e.isContentEditable;
  };
  const LANDMARK_BLOCKERS = "article, aside, main, nav, section";
  const INPUT_ROLE = { button: "button", checkbox: "checkbox", image: "button", number: "spinbutton", radio: "radio",
    range: "slider", reset: "button", submit: "button", file: "button" };
  const IMPLICIT = {
    a: (e) => e.hasAttribute("href") ? "link" : null,
    area: (e) => e.hasAttribute("href") ? "link" : null,
    article: () => "article", aside: () => "complementary", blockquote: () => "blockquote", button: () => "button",
    caption: () => "caption", code: () => "code", datalist: () => "listbox", dd: () => "definition",
    del: () => "deletion", details: () => "group", dfn: () => "term", dialog: () => "dialog", dt: () => "term",
    em: () => "emphasis", fieldset: () => "group", figure: () => "figure",
    footer: (e) => e.parentElement && e.parentElement.closest(LANDMARK_BLOCKERS) ? null : "contentinfo",
    header: (e) => e.parentElement && e.parentElement.closest(LANDMARK_BLOCKERS) ? null : "banner",
    form: (e) => explicitName(e) ? "form" : null,
    h1: () => "heading", h2: () => "heading", h3: () => "heading", h4: () => "heading", h5: () => "heading", h6: () => "heading",
    hr: () => "separator", html: () => "document",
    img: (e) => e.getAttribute("alt") === "" && !e.getAttribute("title") && !hasGlobalAria(e) && !focusable(e) ? "presentation" : "img",
    input: (e) => {
      const type = (e.type || "").toLowerCase();
      if (type === "search") return e.hasAttribute("list") ? "combobox" : "searchbox";
      if (["email", "tel", "text", "url", ""].includes(type)) {
        const id = e.getAttribute("list"), list = id && e.ownerDocument.getElementById(id);
        return list && list.localName === "datalist" ? "combobox" : "textbox";
      }
      if (type === "hidden") return null;
      return INPUT_ROLE[type] || "textbox";
    },
    ins: () => "insertion", li: () => "listitem", main: () => "main", mark: () => "mark", math: () => "math",
    menu: () => "list", meter: () => "meter", nav: () => "navigation", ol: () => "list", optgroup: () => "group",
    option: () => "option", output: () => "status", p: () => "paragraph", progress: () => "progressbar",
    search: () => "search", section: (e) => explicitName(e) ? "region" : null,
    select: (e) => e.multiple || e.size > 1 ? "listbox" : "combobox",
    strong: () => "strong", sub: () => "subscript", sup: () => "superscript", svg: () => "img", table: () => "table",
    tbody: () => "rowgroup", thead: () => "rowgroup", tfoot: () => "rowgroup",
    td: (e) => { const t = e.closest("table"), r = t && t.getAttribute("role"); return r === "grid" || r === "treegrid" ? "gridcell" : "cell"; },
    th: (e) => e.getAttribute("scope") === "row" ? "rowheader" : "columnheader",
    textarea: () => "textbox", time: () => "time", tr: () => "row", ul: () => "list",
  };
  const roleCache = new Map();
  const roleOf = (e) => {
    if (roleCache.has(e)) return roleCache.get(e);
    let role = null;
    const explicit = (e.getAttribute("role") || "").split(/\s+/).map((r) => r.trim().toLowerCase()).find((r) => ROLES.has(r));
    if (explicit && !((explicit === "none" || explicit === "presentation") && (focusable(e) || hasGlobalAria(e)))) role = explicit;
    else {
      const f = IMPLICIT[e.localName];
      role = f ? f(e) : null;
    }
    roleCache.set(e, role);
    return role;
  };

  // --- Accessible names (roleUtils.ts: getElementAccessibleName, compact).
  const FROM_CONTENT = new Set(["button", "cell", "checkbox", "columnheader", "gridcell", "heading", "link", "menuitem",
    "menuitemcheckbox", "menuitemradio", "option", "radio", "row", "rowheader", "switch", "tab", "tooltip", "treeitem"]);
  const idrefs = (e, attr) => {
    const v = e.getAttribute(attr);
    if (!v) return [];
    const root = e.getRootNode();
    return v.split(/\s+/).filter(Boolean).map((id) => root.getElementById ? root.getElementById(id) : root.querySelector("#" + css(id))).filter(Boolean);
  };
  const textAlt = (e, o) => {
    if (o.visited.has(e)) return "";
    if (!o.embedded && !o.labelledBy && hiddenForAria(e)) return "";
    if (o.embedded && !o.labelledBy && hiddenForAria(e) && !o.includeHidden) return "";
    const t = e.localName;
    if (!o.labelledBy) {
      const refs = idrefs(e, "aria-labelledby");
      if (refs.length) {
        o.visited.add(e);
        return refs.map((r) => textAlt(r, { visited: o.visited, labelledBy: true, embedded: true, includeHidden: true })).join(" ");
      }
    }
    const role = roleOf(e) || "";
    // A control inside a label or labelledby text gives its value.
    if (o.embedded && (role === "textbox" || role === "searchbox") && (t === "input" || t === "textarea")) return e.value;
    if (o.embedded && (role === "combobox" || role === "listbox") && t === "select") {
      return [...e.selectedOptions].map((x) => textAlt(x, { ...o, embedded: true })).join(" ");
    }
    const label = (e.getAttribute("aria-label") || "").trim();
    if (label) { o.visited.add(e); return label; }
    o.visited.add(e);
    if (t === "input" && ["button", "submit", "reset"].includes(e.type)) {
      const v = e.value || "";
      if (v.trim()) return v;
      return e.type === "submit" ? "Submit" : e.type === "reset" ? "Reset" : e.getAttribute("title") || "";
    }
    if (t === "input" && e.type === "image") return e.getAttribute("alt") || e.getAttribute("title") || "Submit";
    if (t === "input" || t === "textarea" || t === "select") {
      const labels = e.labels ? [...e.labels] : [];
      if (labels.length && !o.embedded) return labels.map((l) => textAlt(l, { visited: o.visited, embedded: true, includeHidden: o.includeHidden })).join(" ");
      const usePh = t === "textarea" || t === "input" && ["text", "password", "search", "tel", "email", "url"].includes(e.type);
      const title = e.getAttribute("title") || "";
      if (!usePh || title) return title;
      return e.getAttribute("placeholder") || "";
    }
    if (t === "fieldset" || t === "figure" || t === "table") {
      const cap = [...e.children].find((c) => c.localName === { fieldset: "legend", figure: "figcaption", table: "caption" }[t]);
      if (cap) return textAlt(cap, { visited: o.visited, embedded: true });
    }
    if (t === "img" || t === "area") {
      const alt = e.getAttribute("alt") || "";
      if (alt.trim()) return alt;
      return e.getAttribute("title") || "";
    }
    if (t === "svg") {
      const ti = [...e.children].find((c) => c.localName === "title");
      if (ti) return ti.textContent || "";
    }
    if (FROM_CONTENT.has(role) || o.embedded || o.child) {
      const parts = [];
      const pseudo = (which) => {
        const c = e.ownerDocument.defaultView.getComputedStyle(e, which).content;
        return c && /^["']/.test(c) ? c.slice(1, -1) : "";
      };
      parts.push(pseudo("::before"));
      const kids = e.localName === "slot" && e.assignedNodes().length ? e.assignedNodes() : (e.shadowRoot || e).childNodes;
      for (const c of kids) {
        if (c.nodeType === 3) parts.push(c.nodeValue);
        else if (c.nodeType === 1) {
          const s = textAlt(c, { visited: o.visited, embedded: o.embedded, labelledBy: false, child: true, includeHidden: o.includeHidden });
          const d = styleOf(c).display;
          parts.push(d !== "inline" && d !== "contents" || c.localName === "br" ? " " + s + " " : s);
        }
      }
      parts.push(pseudo("::after"));
      const s = parts.join("");
      if (s.trim()) return s;
    }
    if (!["presentation", "none"].includes(role) || t === "a") return e.getAttribute("title") || "";
    return "";
  };
  const nameCache = new Map();
  const nameOf = (e) => {
    if (nameCache.has(e)) return nameCache.get(e);
    nameCache.set(e, "");
    const n = norm(textAlt(e, { visited: new Set() }));
    nameCache.set(e, n);
    return n;
  };

  // --- Text (selectorUtils.ts: elementText, elementMatchesText).
  const textCache = new Map();
  const textOf = (n) => {
    if (textCache.has(n)) return textCache.get(n);
    let s = "";
    if (n.nodeType === 1 && n.localName === "input" && (n.type === "submit" || n.type === "button")) s = n.value;
    else {
      for (let c = n.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 3) s += c.nodeValue;
        else if (c.nodeType === 1) s += textOf(c);
      }
      if (n.shadowRoot) s += textOf(n.shadowRoot);
    }
    s = norm(s);
    textCache.set(n, s);
    return s;
  };
  const skipText = (e) => e.localName === "script" || e.localName === "noscript" || e.localName === "style" ||
    (e.ownerDocument.head && e.ownerDocument.head.contains(e));
  const lax = (v) => { const want = norm(v).toLowerCase(); return (s) => norm(s).toLowerCase().includes(want); };
  const strict = (v) => { const want = norm(v); return (s) => norm(s) === want; };
  // getByText keeps an element whose text matches when none of its child
  // elements' (or its shadow root's) text does: the smallest.
  const textMatches = (e, m) => {
    if (skipText(e) || !m(textOf(e))) return false;
    for (let c = e.firstChild; c; c = c.nextSibling) if (c.nodeType === 1 && m(textOf(c))) return false;
    return !(e.shadowRoot && m(textOf(e.shadowRoot)));
  };
  // getByLabel's texts of an element (getElementLabels).
  const labelsOf = (e) => {
    const refs = idrefs(e, "aria-labelledby");
    if (e.hasAttribute("aria-labelledby")) return refs.map(textOf);
    const al = e.getAttribute("aria-label");
    if (al !== null && al.trim()) return [al];
    const t = e.localName;
    if (["button", "meter", "output", "progress", "select", "textarea"].includes(t) || t === "input" && e.type !== "hidden") {
      return e.labels ? [...e.labels].map(textOf) : [];
    }
    return [];
  };

  const doc = el.ownerDocument;
  const all = deepAll(doc);
  const testMatchers = (value, test) => [lax(value), strict(value)].map((m, i) => ({ exact: i === 1, match: (e) => test(e, m) }));
  const count = (pred) => { let n = 0; for (const e of all) if (pred(e)) n++; return n; };
  const pick = (kind, fields, variants) => {
    for (const v of variants) {
      if (!v.match(el)) continue;
      if (count(v.match) === 1) return { kind, ...fields, exact: v.exact, nth: 0, count: 1 };
    }
    return null;
  };

  const strategies = () => {
    const role = roleOf(el);
    if (role && role !== "none" && role !== "presentation" && role !== "generic" && !hiddenForAria(el)) {
      const name = nameOf(el);
      if (name) {
        const r = pick("role", { role, name }, testMatchers(name, (e, m) => roleOf(e) === role && !hiddenForAria(e) && m(nameOf(e))));
        if (r) return r;
      }
    }
    for (const label of labelsOf(el).map(norm).filter(Boolean)) {
      const r = pick("label", { value: label }, testMatchers(label, (e, m) => labelsOf(e).some((l) => m(l))));
      if (r) return r;
    }
    const ph = el.getAttribute("placeholder");
    if (ph) {
      const r = pick("placeholder", { value: ph }, [
        { exact: false, match: (e) => { const v = e.getAttribute("placeholder"); return v !== null && v.toLowerCase().includes(ph.toLowerCase()); } },
        { exact: true, match: (e) => e.getAttribute("placeholder") === ph },
      ]);
      if (r) return r;
    }
    const tid = el.getAttribute(testIdAttr);
    if (tid) {
      const r = pick("testid", { value: tid }, [{ exact: false, match: (e) => e.getAttribute(testIdAttr) === tid }]);
      if (r) return { ...r, exact: false };
    }
    const text = textOf(el);
    if (text && text.length <= 80) {
      const r = pick("text", { value: text }, testMatchers(text, textMatches));
      if (r) return r;
    }
    return null;
  };

  // --- CSS path.
  const generated = (id) => /\d{3,}|^[0-9a-f-]{8,}$|[:]|^(ember|react|vue|ng|mui|radix|headlessui)[-_]/i.test(id) || id.length > 40;
  const uniqueIn = (root, sel) => { try { return deepQuery(root, sel).length === 1; } catch (e) { return false; } };
  const cssPath = (e, extra) => {
    const root = e.getRootNode();
    const deepRoot = e.ownerDocument;
    const id = e.getAttribute("id");
    if (id && !generated(id) && uniqueIn(deepRoot, "#" + css(id))) return { sel: "#" + css(id), unique: true };
    for (const a of extra) {
      const v = e.getAttribute(a);
      if (v) {
        const sel = e.localName + "[" + a + "=" + attrVal(v) + "]";
        if (uniqueIn(deepRoot, sel)) return { sel, unique: true };
      }
    }
    const steps = [];
    for (let x = e; x && x.nodeType === 1; x = x.parentElement) {
      const xid = x.getAttribute("id");
      if (x !== e && xid && !generated(xid) && root.querySelectorAll("#" + css(xid)).length === 1) {
        steps.unshift("#" + css(xid));
      } else {
        let step = x.localName;
        const p = x.parentElement || x.parentNode;
        if (p && p.children) {
          const same = [...p.children].filter((c) => c.localName === x.localName);
          if (same.length > 1) step += ":nth-of-type(" + (same.indexOf(x) + 1) + ")";
        }
        steps.unshift(step);
      }
      const sel = steps.join(" > ");
      if (uniqueIn(deepRoot, sel)) return { sel, unique: true };
      if (steps[0].startsWith("#")) break;
    }
    return { sel: steps.join(" > "), unique: false };
  };

  // --- The frame chain.
  const frames = [];
  for (let w = doc.defaultView; w && w !== w.parent;) {
    let fe = null;
    try { fe = w.frameElement; } catch (e) { /* cross-origin */ }
    if (!fe) return { error: "cross_origin" };
    frames.unshift({ kind: "css", value: cssPath(fe, ["name", "title"]).sel });
    w = fe.ownerDocument.defaultView;
  }

  let out = strategies();
  if (!out) {
    const p = cssPath(el, []);
    out = { kind: "css", value: p.sel, exact: false, nth: 0, count: 1 };
    if (!p.unique) {
      const matches = deepQuery(doc, p.sel);
      out.nth = Math.max(0, matches.indexOf(el));
      out.count = matches.length;
    }
  }
  out.frames = frames;
  return out;
}

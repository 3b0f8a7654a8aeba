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
//      value of a button input) holds the string, for an element with
//      short text of its own (not only its children's, run together);
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
  const norm = (s) => String(s || "").replace(/[\u200b\u00ad]/g, "").trim().replace(/\s+/g, " ");
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
  const styleOf = (e, pseudo) => e.ownerDocument.defaultView.getComputedStyle(e, pseudo);
  const hiddenCache = new Map();
  // display:none or aria-hidden on e or above it, or a light child of a
  // shadow host that no slot shows.
  const hiddenUp = (e) => {
    if (!e) return false;
    if (hiddenCache.has(e)) return hiddenCache.get(e);
    let h = !!(e.parentElement && e.parentElement.shadowRoot && !e.assignedSlot);
    if (!h) h = styleOf(e).display === "none" || (e.getAttribute("aria-hidden") || "").toLowerCase() === "true";
    if (!h) h = hiddenUp(parentOf(e));
    hiddenCache.set(e, h);
    return h;
  };
  const SKIPPED = new Set(["style", "script", "noscript", "template"]);
  const styleVisible = (e, st) => {
    // checkVisibility sees what a closed details or content-visibility
    // hides, up the flat tree.
    if (Element.prototype.checkVisibility) {
      if (!e.checkVisibility()) return false;
    } else {
      const d = e.closest("details,summary");
      if (d !== e && d && d.localName === "details" && !d.open) return false;
    }
    return st.visibility === "visible";
  };
  const hiddenForAria = (e) => {
    if (SKIPPED.has(e.localName)) return true;
    const st = styleOf(e);
    const slot = e.localName === "slot";
    if (st.display === "contents" && !slot) {
      for (let c = e.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 1 && !hiddenForAria(c)) return false;
        if (c.nodeType === 3 && /\S/.test(c.nodeValue)) return false;
      }
      return true;
    }
    const opt = e.localName === "option" && !!e.closest("select");
    if (!opt && !slot && !styleVisible(e, st)) return true;
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
  // Global ARIA attributes, with the roles each is prohibited on.
  const NO_NAMING = ["caption", "code", "deletion", "emphasis", "generic", "insertion", "paragraph", "presentation", "strong", "subscript", "superscript"];
  const GLOBAL_ARIA = [["aria-atomic"], ["aria-busy"], ["aria-controls"], ["aria-current"], ["aria-describedby"], ["aria-details"],
    ["aria-dropeffect"], ["aria-flowto"], ["aria-grabbed"], ["aria-hidden"], ["aria-keyshortcuts"], ["aria-label", NO_NAMING],
    ["aria-labelledby", NO_NAMING], ["aria-live"], ["aria-owns"], ["aria-relevant"], ["aria-roledescription", ["generic"]]];
  const hasGlobalAria = (e, role) => GLOBAL_ARIA.some(([a, no]) => !(no && no.includes(role || "")) && e.hasAttribute(a));
  const hasTabIndex = (e) => !Number.isNaN(Number(String(e.getAttribute("tabindex"))));
  const nativelyFocusable = (e) => {
    const t = e.localName;
    if (["button", "details", "select", "textarea"].includes(t)) return true;
    if (t === "a" || t === "area") return e.hasAttribute("href");
    if (t === "input") return !e.hidden;
    return false;
  };
  const DISABLEABLE = ["button", "input", "select", "textarea", "option", "optgroup"];
  const nativelyDisabled = (e) => DISABLEABLE.includes(e.localName) && (e.hasAttribute("disabled") || !!e.closest("fieldset[disabled]") && e.matches(":disabled"));
  const focusable = (e) => !nativelyDisabled(e) && (nativelyFocusable(e) || hasTabIndex(e));
  const explicitRole = (e) => (e.getAttribute("role") || "").split(" ").map((r) => r.trim()).find((r) => ROLES.has(r)) || null;
  // A form or section is a landmark when its author named it
  // (hasExplicitAccessibleName).
  const explicitName = (e) => e.hasAttribute("aria-label") || e.hasAttribute("aria-labelledby");
  const LANDMARK_BLOCKERS = "article, aside, main, nav, section";
  const closestUp = (e, sel) => {
    for (let x = e; x; x = parentOf(x)) if (x.matches(sel)) return x;
    return null;
  };
  const INPUT_ROLE = { button: "button", checkbox: "checkbox", image: "button", number: "spinbutton", radio: "radio",
    range: "slider", reset: "button", submit: "button" };
  const gridOf = (e) => { const t = closestUp(e, "table"), r = t ? explicitRole(t) : ""; return r === "grid" || r === "treegrid"; };
  const IMPLICIT = {
    a: (e) => e.hasAttribute("href") ? "link" : null,
    area: (e) => e.hasAttribute("href") ? "link" : null,
    article: () => "article", aside: () => "complementary", blockquote: () => "blockquote", button: () => "button",
    caption: () => "caption", code: () => "code", datalist: () => "listbox", dd: () => "definition",
    del: () => "deletion", details: () => "group", dfn: () => "term", dialog: () => "dialog", dt: () => "term",
    em: () => "emphasis", fieldset: () => "group", figure: () => "figure",
    footer: (e) => closestUp(e, LANDMARK_BLOCKERS) ? null : "contentinfo",
    header: (e) => closestUp(e, LANDMARK_BLOCKERS) ? null : "banner",
    form: (e) => explicitName(e) ? "form" : null,
    h1: () => "heading", h2: () => "heading", h3: () => "heading", h4: () => "heading", h5: () => "heading", h6: () => "heading",
    hr: () => "separator", html: () => "document",
    img: (e) => e.getAttribute("alt") === "" && !e.getAttribute("title") && !hasGlobalAria(e) && !hasTabIndex(e) ? "presentation" : "img",
    input: (e) => {
      const type = (e.type || "").toLowerCase();
      if (type === "search") return e.hasAttribute("list") ? "combobox" : "searchbox";
      if (["email", "tel", "text", "url", ""].includes(type)) {
        const list = idrefs(e, "list")[0];
        return list && list.localName === "datalist" ? "combobox" : "textbox";
      }
      if (type === "hidden") return null;
      if (type === "file") return "button";
      return INPUT_ROLE[type] || "textbox";
    },
    ins: () => "insertion", li: () => "listitem", main: () => "main", mark: () => "mark", math: () => "math",
    menu: () => "list", meter: () => "meter", nav: () => "navigation", ol: () => "list", optgroup: () => "group",
    option: () => "option", output: () => "status", p: () => "paragraph", progress: () => "progressbar",
    section: (e) => explicitName(e) ? "region" : null,
    select: (e) => e.hasAttribute("multiple") || e.size > 1 ? "listbox" : "combobox",
    strong: () => "strong", sub: () => "subscript", sup: () => "superscript", svg: () => "img", table: () => "table",
    tbody: () => "rowgroup", thead: () => "rowgroup", tfoot: () => "rowgroup",
    td: (e) => gridOf(e) ? "gridcell" : "cell",
    th: (e) => {
      const scope = e.getAttribute("scope");
      if (scope === "col") return "columnheader";
      if (scope === "row") return "rowheader";
      return gridOf(e) ? "gridcell" : "cell";
    },
    textarea: () => "textbox", time: () => "time", tr: () => "row", ul: () => "list",
  };
  // Table and list parts whose parent is role=none are none too.
  const INHERITS = { dd: ["dl", "div"], div: ["dl"], dt: ["dl", "div"], li: ["ol", "ul"], tbody: ["table"], td: ["tr"],
    tfoot: ["table"], th: ["tr"], thead: ["table"], tr: ["thead", "tbody", "tfoot", "table"] };
  const conflict = (e, role) => hasGlobalAria(e, role) || focusable(e);
  const implicitRole = (e) => {
    const f = IMPLICIT[e.localName];
    const role = (f && f(e)) || "";
    if (!role) return null;
    for (let x = e; x;) {
      const p = parentOf(x), ps = INHERITS[x.localName];
      if (!ps || !p || !ps.includes(p.localName)) break;
      const pr = explicitRole(p);
      if ((pr === "none" || pr === "presentation") && !conflict(p, pr)) return pr;
      x = p;
    }
    return role;
  };
  const roleCache = new Map();
  const roleOf = (e) => {
    if (roleCache.has(e)) return roleCache.get(e);
    let role = explicitRole(e);
    if (!role) role = implicitRole(e);
    else if (role === "none" || role === "presentation") {
      const imp = implicitRole(e);
      if (conflict(e, imp)) role = imp;
    }
    roleCache.set(e, role);
    return role;
  };

  // --- Accessible names (roleUtils.ts: getElementAccessibleName and
  // getTextAlternativeInternal).
  const FROM_CONTENT = ["button", "cell", "checkbox", "columnheader", "gridcell", "heading", "link", "menuitem",
    "menuitemcheckbox", "menuitemradio", "option", "radio", "row", "rowheader", "switch", "tab", "tooltip", "treeitem"];
  const FROM_CONTENT_BELOW = ["", "caption", "code", "contentinfo", "definition", "deletion", "emphasis", "insertion", "list",
    "listitem", "mark", "none", "paragraph", "presentation", "region", "row", "rowgroup", "section", "strong", "subscript",
    "superscript", "table", "term", "time"];
  const PROHIBITS_NAMING = ["caption", "code", "definition", "deletion", "emphasis", "generic", "insertion", "mark",
    "paragraph", "presentation", "strong", "subscript", "suggestion", "superscript", "term", "time"];
  const idrefs = (e, attr) => {
    const v = e.getAttribute(attr);
    if (!v) return [];
    const root = e.getRootNode(), out = [];
    for (const id of v.split(" ").filter(Boolean)) {
      let x = null;
      try { x = root.querySelector("#" + css(id)); } catch (err) { /* not an id */ }
      if (x && !out.includes(x)) out.push(x);
    }
    return out;
  };
  const flat = (s) => s.split("\u00a0").map((c) => c.replace(/\r\n/g, "\n").replace(/[\u200b\u00ad]/g, "").replace(/\s\s*/g, " ")).join("\u00a0").trim();
  const pseudo = (e, which) => {
    const ps = styleOf(e, which);
    if (!ps || ps.display === "none" || ps.visibility === "hidden") return "";
    const c = ps.content;
    let r;
    if (c[0] === "'" && c[c.length - 1] === "'" || c[0] === '"' && c[c.length - 1] === '"') r = c.substring(1, c.length - 1);
    else if (c.startsWith("attr(") && c.endsWith(")")) r = e.getAttribute(c.substring(5, c.length - 1).trim()) || "";
    if (r === undefined) return "";
    return (ps.display || "inline") !== "inline" ? " " + r + " " : r;
  };
  const fromLabels = (labels, o) => [...labels].map((l) => textAlt(l, { ...o, inLabel: { hidden: hiddenForAria(l) },
    inNative: undefined, inLabelledBy: undefined, target: undefined })).filter(Boolean).join(" ");
  const firstChild = (e, tag) => {
    for (let c = e.firstElementChild; c; c = c.nextElementSibling) if (c.localName === tag) return c;
    return null;
  };
  const contentText = (e, o) => {
    const tokens = [pseudo(e, "::before")];
    const visit = (n, skipSlotted) => {
      if (skipSlotted && n.assignedSlot) return;
      if (n.nodeType === 1) {
        const d = styleOf(n).display || "inline";
        let t = textAlt(n, o);
        if (d !== "inline" || n.localName === "br") t = " " + t + " ";
        tokens.push(t);
      } else if (n.nodeType === 3) tokens.push(n.textContent || "");
    };
    const assigned = e.localName === "slot" ? e.assignedNodes() : [];
    if (assigned.length) for (const c of assigned) visit(c, false);
    else {
      for (let c = e.firstChild; c; c = c.nextSibling) visit(c, true);
      if (e.shadowRoot) for (let c = e.shadowRoot.firstChild; c; c = c.nextSibling) visit(c, true);
      for (const c of idrefs(e, "aria-owns")) visit(c, true);
    }
    tokens.push(pseudo(e, "::after"));
    return tokens.join("");
  };
  // o: {visited, target: "self" | "descendant", inLabelledBy, inLabel,
  // inNative: {hidden}}.
  const textAlt = (e, o) => {
    if (o.visited.has(e)) return "";
    const co = { ...o, target: o.target === "self" ? "descendant" : o.target };
    const inHiddenRef = !!(o.inLabelledBy && o.inLabelledBy.hidden || o.inNative && o.inNative.hidden || o.inLabel && o.inLabel.hidden);
    if (SKIPPED.has(e.localName) || !inHiddenRef && hiddenForAria(e)) {
      o.visited.add(e);
      return "";
    }
    const lb = e.hasAttribute("aria-labelledby") ? idrefs(e, "aria-labelledby") : [];
    const labelledBy = lb.length ? lb : null;
    if (!o.inLabelledBy) {
      const n = (labelledBy || []).map((r) => textAlt(r, { ...o, inLabelledBy: { hidden: hiddenForAria(r) },
        target: undefined, inLabel: undefined, inNative: undefined })).join(" ");
      if (n) return n;
    }
    const role = roleOf(e) || "";
    const t = e.localName;
    if (o.inLabel || o.inLabelledBy || o.target === "descendant") {
      const ownLabel = [...(e.labels || [])].includes(e), ownLb = (labelledBy || []).includes(e);
      if (!ownLabel && !ownLb) {
        if (role === "textbox") {
          o.visited.add(e);
          return t === "input" || t === "textarea" ? e.value : e.textContent || "";
        }
        if (role === "combobox" || role === "listbox") {
          o.visited.add(e);
          let sel;
          if (t === "select") {
            sel = [...e.selectedOptions];
            if (!sel.length && e.options.length) sel.push(e.options[0]);
          } else {
            const owned = (x, q) => { const r = [...x.querySelectorAll(q)]; for (const w of idrefs(x, "aria-owns")) { if (w.matches(q)) r.push(w); r.push(...w.querySelectorAll(q)); } return r; };
            const lbx = role === "combobox" ? owned(e, "*").find((x) => roleOf(x) === "listbox") : e;
            sel = lbx ? owned(lbx, '[aria-selected="true"]').filter((x) => roleOf(x) === "option") : [];
          }
          if (!sel.length && t === "input") return e.value;
          return sel.map((x) => textAlt(x, co)).join(" ");
        }
        if (["progressbar", "scrollbar", "slider", "spinbutton", "meter"].includes(role)) {
          o.visited.add(e);
          if (e.hasAttribute("aria-valuetext")) return e.getAttribute("aria-valuetext") || "";
          if (e.hasAttribute("aria-valuenow")) return e.getAttribute("aria-valuenow") || "";
          return e.getAttribute("value") || "";
        }
        if (role === "menu") { o.visited.add(e); return ""; }
      }
    }
    const al = e.getAttribute("aria-label") || "";
    if (al.trim()) { o.visited.add(e); return al; }
    if (role !== "presentation" && role !== "none") {
      const native = (c) => c ? textAlt(c, { ...co, inNative: { hidden: hiddenForAria(c) } }) : null;
      if (t === "input" && ["button", "submit", "reset"].includes(e.type)) {
        o.visited.add(e);
        const v = e.value || "";
        if (v.trim()) return v;
        return e.type === "submit" ? "Submit" : e.type === "reset" ? "Reset" : e.getAttribute("title") || "";
      }
      if (t === "input" && e.type === "file") {
        o.visited.add(e);
        const ls = e.labels || [];
        return ls.length && !o.inLabelledBy ? fromLabels(ls, o) : "Choose File";
      }
      if (t === "input" && e.type === "image") {
        o.visited.add(e);
        const ls = e.labels || [];
        if (ls.length && !o.inLabelledBy) return fromLabels(ls, o);
        const alt = e.getAttribute("alt") || "", title = e.getAttribute("title") || "";
        return alt.trim() ? alt : title.trim() ? title : "Submit";
      }
      if (!labelledBy && t === "button") {
        o.visited.add(e);
        const ls = e.labels || [];
        if (ls.length) return fromLabels(ls, o);
      }
      if (!labelledBy && t === "output") {
        o.visited.add(e);
        const ls = e.labels || [];
        return ls.length ? fromLabels(ls, o) : e.getAttribute("title") || "";
      }
      if (!labelledBy && (t === "textarea" || t === "select" || t === "input")) {
        o.visited.add(e);
        const ls = e.labels || [];
        if (ls.length) return fromLabels(ls, o);
        const usePh = t === "input" && ["text", "password", "search", "tel", "email", "url"].includes(e.type) || t === "textarea";
        const title = e.getAttribute("title") || "";
        return !usePh || title ? title : e.getAttribute("placeholder") || "";
      }
      if (!labelledBy && (t === "fieldset" || t === "figure")) {
        o.visited.add(e);
        const c = firstChild(e, t === "fieldset" ? "legend" : "figcaption");
        return c ? native(c) : e.getAttribute("title") || "";
      }
      if (t === "img" || t === "area") {
        o.visited.add(e);
        const alt = e.getAttribute("alt") || "";
        return alt.trim() ? alt : e.getAttribute("title") || "";
      }
      if (t === "table") {
        o.visited.add(e);
        const c = firstChild(e, "caption");
        if (c) return native(c);
        const summary = e.getAttribute("summary") || "";
        if (summary) return summary;
      }
      if (t === "svg" || e.ownerSVGElement) {
        o.visited.add(e);
        for (let c = e.firstElementChild; c; c = c.nextElementSibling) {
          if (c.localName === "title" && c.ownerSVGElement) return textAlt(c, { ...co, inLabelledBy: { hidden: hiddenForAria(c) } });
        }
      }
      if (e.ownerSVGElement && t === "a") {
        const title = e.getAttribute("xlink:title") || "";
        if (title.trim()) { o.visited.add(e); return title; }
      }
    }
    const summary = t === "summary" && role !== "presentation" && role !== "none";
    if (FROM_CONTENT.includes(role) || o.target === "descendant" && FROM_CONTENT_BELOW.includes(role) || summary ||
      o.inLabelledBy || o.inLabel || o.inNative) {
      o.visited.add(e);
      const n = contentText(e, co);
      if (o.target === "self" ? n.trim() : n) return n;
    }
    if (role !== "presentation" && role !== "none" || t === "iframe") {
      o.visited.add(e);
      const title = e.getAttribute("title") || "";
      if (title.trim()) return title;
    }
    o.visited.add(e);
    return "";
  };
  const nameCache = new Map();
  const nameOf = (e) => {
    if (nameCache.has(e)) return nameCache.get(e);
    const n = PROHIBITS_NAMING.includes(roleOf(e) || "") ? "" : norm(flat(textAlt(e, { visited: new Set(), target: "self" })));
    nameCache.set(e, n);
    return n;
  };

  // --- Text (selectorUtils.ts: elementText, elementMatchesText).
  const textCache = new Map();
  const textOf = (n) => {
    if (textCache.has(n)) return textCache.get(n);
    let s = "";
    if (n.nodeType === 1 && skipText(n)) s = "";
    else if (n.nodeType === 1 && n.localName === "input" && (n.type === "submit" || n.type === "button")) s = n.value;
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
  // Whether e shows text of its own, not only its children's: a text node
  // of its own (or of its shadow root) with more than whitespace, or the
  // value of a button input. A textarea's text is its first value, which
  // typing does not change and the field may no longer show.
  const ownText = (e) => {
    if (e.localName === "input") return e.type === "submit" || e.type === "button";
    if (e.localName === "textarea") return false;
    for (const r of [e, e.shadowRoot]) {
      if (!r) continue;
      for (let c = r.firstChild; c; c = c.nextSibling) if (c.nodeType === 3 && norm(c.nodeValue)) return true;
    }
    return false;
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
    if (refs.length) return refs.map(textOf);
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
        // Names compare in upper case (matchesAttributePart), texts in
        // lower case.
        const up = name.toUpperCase();
        const r = pick("role", { role, name }, [
          { exact: false, match: (e) => roleOf(e) === role && !hiddenForAria(e) && nameOf(e).toUpperCase().includes(up) },
          { exact: true, match: (e) => roleOf(e) === role && !hiddenForAria(e) && nameOf(e) === name },
        ]);
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
    // Only an element with text of its own: one whose text is all its
    // children's (a list, a select, a form) would get their texts run
    // together ("milk (hi)eggs"), which no reader recognises and any
    // change to one child breaks.
    const text = textOf(el);
    if (text && text.length <= 80 && ownText(el)) {
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

// Finds what a selector names in this document: the first match, or with
// all every match. It is embedded in the other scripts as their QUERY and
// served alone by QueryScript.
//
// CSS selectors pierce open shadow roots as Playwright's css engine does:
// they match in the document and in every open shadow root, and their
// descendant and child combinators cross shadow boundaries (a shadow host
// is the parent of the top elements of its shadow root), so "my-widget
// input" finds the input inside my-widget's shadow root. Sibling
// combinators stay inside one tree, and closed shadow roots stay closed.
// XPath does not pierce (neither does Playwright's).
//
// Order: matches in the document come first, in document order, then those
// in shadow roots, root by root in the order of their hosts. The document
// alone is searched first with the browser's own querySelector, so a
// selector that matches there costs what it did before shadow roots were
// searched; only a miss, or all, walks the tree for shadow roots.
//
// An invalid selector throws the browser's SyntaxError, for the caller to
// report. A text node that XPath selects stands for its element.
(kind, sel, all) => {
  if (kind === "xpath") {
    const el = (n) => (n && n.nodeType !== 1 ? n.parentElement : n);
    if (!all) return el(document.evaluate(sel, document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue);
    const r = document.evaluate(sel, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    const out = [];
    for (let i = 0; i < r.snapshotLength; i++) {
      const n = el(r.snapshotItem(i));
      if (n) out.push(n);
    }
    return out;
  }
  if (!all) {
    const el = document.querySelector(sel);
    if (el) return el;
  }
  const out = all ? [...document.querySelectorAll(sel)] : [];
  const roots = [];
  const collect = (root) => {
    const w = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    for (let n = w.nextNode(); n; n = w.nextNode()) {
      if (n.shadowRoot) {
        roots.push(n.shadowRoot);
        collect(n.shadowRoot);
      }
    }
  };
  collect(document);
  if (roots.length === 0) return all ? out : null;

  // Split the selector list into complex selectors, each a list of
  // compound selectors (c) and the combinators between them (k). Brackets,
  // parentheses, strings and escapes are kept whole, so ":is(a b)",
  // "[title='a > b']" and ":nth-child(2n+1)" stay one compound, matched
  // by the browser.
  const list = [];
  {
    let cx = { c: [], k: [] }, cur = "", comb = "", depth = 0, quote = "";
    const push = () => {
      if (!cur) return;
      if (cx.c.length) cx.k.push(comb || " ");
      cx.c.push(cur);
      cur = "";
      comb = "";
    };
    for (let i = 0; i < sel.length; i++) {
      const ch = sel[i];
      if (ch === "\\") { cur += ch + (sel[++i] || ""); continue; }
      if (quote) { cur += ch; if (ch === quote) quote = ""; continue; }
      if (ch === '"' || ch === "'") { quote = ch; cur += ch; continue; }
      if (ch === "(" || ch === "[") { depth++; cur += ch; continue; }
      if (ch === ")" || ch === "]") { depth--; cur += ch; continue; }
      if (depth > 0) { cur += ch; continue; }
      if (ch === ",") { push(); list.push(cx); cx = { c: [], k: [] }; continue; }
      if (ch === ">" || ch === "+" || ch === "~") { push(); comb = ch; continue; }
      if (ch === " " || ch === "\t" || ch === "\n" || ch === "\r" || ch === "\f") { push(); continue; }
      cur += ch;
    }
    push();
    list.push(cx);
  }
  const up = (n) => n.parentElement || (n.parentNode && n.parentNode.nodeType === 11 ? n.parentNode.host || null : null);
  // matches tells whether el matches compounds 0..i of cx, el already
  // matching compound i.
  const matches = (el, cx, i) => {
    if (i === 0) return true;
    const c = cx.c[i - 1];
    switch (cx.k[i - 1]) {
      case ">": {
        const p = up(el);
        return !!p && p.matches(c) && matches(p, cx, i - 1);
      }
      case "+": {
        const p = el.previousElementSibling;
        return !!p && p.matches(c) && matches(p, cx, i - 1);
      }
      case "~":
        for (let p = el.previousElementSibling; p; p = p.previousElementSibling) {
          if (p.matches(c) && matches(p, cx, i - 1)) return true;
        }
        return false;
      default:
        for (let p = up(el); p; p = up(p)) {
          if (p.matches(c) && matches(p, cx, i - 1)) return true;
        }
        return false;
    }
  };
  const lasts = list.map((cx) => cx.c[cx.c.length - 1]).join(",");
  for (const root of roots) {
    for (const el of root.querySelectorAll(lasts)) {
      if (list.some((cx) => el.matches(cx.c[cx.c.length - 1]) && matches(el, cx, cx.c.length - 1))) {
        if (!all) return el;
        out.push(el);
      }
    }
  }
  return all ? out : null;
}

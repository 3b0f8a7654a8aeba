// The text the browser renders of the first match, two ways as
// page_text.js reads the page's (innerText, and the shown text nodes as
// written, before text-transform, without a textarea's or a select's),
// or null when nothing matches.
els => {
  if (!els.length) return null;
  const root = els[0];
  const shown = new Map();
  const isShown = (el) => {
    if (!shown.has(el)) {
      let v = !el.closest("script, style, noscript, template, textarea, select");
      if (v) v = el.checkVisibility ? el.checkVisibility({ visibilityProperty: true }) : el.getClientRects().length > 0;
      shown.set(el, v);
    }
    return shown.get(el);
  };
  let written = "";
  const w = root.ownerDocument.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = w.nextNode(); n; n = w.nextNode()) if (n.parentElement && isShown(n.parentElement)) written += n.nodeValue;
  return [root.innerText ?? root.textContent ?? "", written];
}

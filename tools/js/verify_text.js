// The text the browser renders of the first match, two ways: innerText,
// and the shown text nodes run together as written, before CSS
// text-transform (as Playwright's toContainText reads textContent, so that
// a button styled upper case still reads "Sign in"); a textarea's and a
// select's text nodes are left out, as innerText leaves them. null when
// nothing matches. verify.go's pageTextJS runs it on the page's body.
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

// The texts of the visible items (listitem and option, by tag or role) of
// the first match, in document order, whitespace collapsed; null when
// nothing matches. An option is as visible as its select, whose closed
// list draws none of them.
els => {
  if (!els.length) return null;
  const shown = (el) => {
    const r = el.getBoundingClientRect(), st = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && st.visibility !== "hidden";
  };
  const items = els[0].querySelectorAll("li, [role=listitem], option, [role=option]");
  const out = [];
  for (const it of items) {
    const role = it.getAttribute("role");
    if (role && role !== "listitem" && role !== "option") continue;
    if (it.closest("[aria-hidden=true]")) continue;
    const opt = it.localName === "option";
    const box = opt ? it.closest("select, datalist") || it : it;
    if (box.localName === "datalist" || !shown(box)) continue;
    const t = opt ? it.label || it.textContent : it.innerText ?? it.textContent;
    out.push((t || "").replace(/\s+/g, " ").trim());
  }
  return out;
}

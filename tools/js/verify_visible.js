// Whether the first match is visible, as is_visible tells it: [found,
// visible]. A selector that matches nothing is found false.
els => {
  if (!els.length) return [false, false];
  const el = els[0], r = el.getBoundingClientRect(), st = getComputedStyle(el);
  return [true, r.width > 0 && r.height > 0 && st.visibility !== "hidden"];
}

el => {
  const r = el.getBoundingClientRect(), st = getComputedStyle(el);
  const attrs = {}; for (const a of el.attributes) attrs[a.name] = a.value;
  return {tag: el.tagName.toLowerCase(), text: (el.innerText ?? el.textContent ?? "").trim().slice(0, 200), attributes: attrs,
    visible: r.width > 0 && r.height > 0 && st.visibility !== "hidden", enabled: !el.matches(":disabled") && el.getAttribute("aria-disabled") !== "true",
    box: {x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height}};
}

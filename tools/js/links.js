(el, limit) => {
  const a = [...el.querySelectorAll("a[href]")];
  return {total: a.length, links: a.slice(0, limit).map(x => ({text: (x.innerText || x.textContent || x.title || "").trim().replace(/\s+/g, " "), href: x.href}))};
}

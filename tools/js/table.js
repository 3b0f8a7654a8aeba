el => {
  const t = el.closest("table") || el.querySelector("table");
  if (!t) return {error: "not a table"};
  const text = c => (c.innerText ?? c.textContent).trim();
  const rows = [...t.rows];
  let headers = [];
  const head = t.tHead && t.tHead.rows[0] || (rows[0] && [...rows[0].cells].every(c => c.tagName === "TH") ? rows[0] : null);
  if (head) headers = [...head.cells].map(text);
  const body = rows.filter(r => r !== head && !(t.tHead && t.tHead.contains(r)));
  return {headers, rows: body.map(r => {
    const cells = [...r.cells].map(text);
    if (!headers.length) return cells;
    const o = {};
    cells.forEach((c, i) => { o[headers[i] || ("column" + (i + 1))] = c; });
    return o;
  })};
}

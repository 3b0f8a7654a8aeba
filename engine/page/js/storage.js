// One operation on the Web Storage of the document it runs in: a is an
// engine.StorageRequest ({session, action, key, value}). It answers an
// engine.StorageResult without its origin, or {error, message} when the
// page refuses (a quota, a sandboxed frame).
(a) => {
  try {
    const s = a.session ? sessionStorage : localStorage;
    const out = {found: false, count: 0};
    switch (a.action) {
    case 'get':
      if (a.key === '') {
        out.items = [];
        for (let i = 0; i < s.length; i++) {
          const k = s.key(i);
          out.items.push({name: k, value: s.getItem(k)});
        }
        out.items.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
      } else {
        const v = s.getItem(a.key);
        out.found = v !== null;
        if (out.found) out.value = v;
      }
      break;
    case 'set':
      out.found = s.getItem(a.key) !== null;
      s.setItem(a.key, a.value);
      out.value = s.getItem(a.key);
      break;
    case 'remove':
      out.found = s.getItem(a.key) !== null;
      s.removeItem(a.key);
      break;
    case 'clear':
      out.count = s.length;
      s.clear();
      return out;
    }
    out.count = s.length;
    return out;
  } catch (e) {
    return {error: String(e && e.name || 'Error'), message: String(e && e.message || e)};
  }
}

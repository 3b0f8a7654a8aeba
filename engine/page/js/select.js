(el, want) => {
  if (el.tagName !== "SELECT") return {error: "not_a_select"};
  if (el.matches(":disabled")) return {error: "disabled"};
  const opts = [...el.options];
  // The error shows the first options only: a long list would bury it.
  const some = {options: opts.slice(0, 10).map(o => ({value: o.value, label: o.label})), total: opts.length};
  if (!el.multiple && want.length > 1) return {error: "single", ...some};
  const pick = opts.filter(o => want.includes(o.value) || want.includes(o.label));
  if (pick.length === 0) return {error: "no_match", ...some};
  for (const o of opts) o.selected = el.multiple ? pick.includes(o) : o === pick[0];
  el.dispatchEvent(new Event("input", {bubbles: true}));
  el.dispatchEvent(new Event("change", {bubbles: true}));
  return {selected: [...el.selectedOptions].map(o => ({value: o.value, label: o.label}))};
}

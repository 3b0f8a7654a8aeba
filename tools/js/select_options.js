(el, want) => {
  if (el.tagName !== "SELECT") return {error: "not_a_select"};
  if (el.matches(":disabled")) return {error: "disabled"};
  const opts = [...el.options], all = opts.map(o => ({value: o.value, label: o.label}));
  const pick = opts.filter(o => want.includes(o.value) || want.includes(o.label));
  if (pick.length === 0 || (!el.multiple && pick.length > 1 && want.length > 1)) return {error: "no_match", options: all};
  for (const o of opts) o.selected = el.multiple ? pick.includes(o) : o === pick[0];
  el.dispatchEvent(new Event("input", {bubbles: true}));
  el.dispatchEvent(new Event("change", {bubbles: true}));
  return {selected: [...el.selectedOptions].map(o => ({value: o.value, label: o.label}))};
}

// What verify_value compares, of the first match: {kind, actual} with
// kind "value" (an input's or textarea's value, a select's selected
// option's value, with its label), "checked" (a checkbox or radio, native
// or by ARIA role: "checked" or "unchecked") or "text" (a contenteditable's
// text); {kind: ""} and the tag for an element that has none of them;
// null when nothing matches.
els => {
  if (!els.length) return null;
  const el = els[0], tag = el.localName;
  const role = el.getAttribute("role");
  if (tag === "select") {
    const o = el.selectedOptions[0];
    return { kind: "value", actual: o ? o.value : "", label: o ? o.label : "" };
  }
  if (tag === "input" && (el.type === "checkbox" || el.type === "radio")) {
    return { kind: "checked", actual: el.checked ? "checked" : "unchecked" };
  }
  if (tag === "input" || tag === "textarea") return { kind: "value", actual: el.value };
  if (role === "checkbox" || role === "radio" || role === "switch" || role === "menuitemcheckbox" || role === "menuitemradio") {
    return { kind: "checked", actual: el.getAttribute("aria-checked") === "true" ? "checked" : "unchecked" };
  }
  if (el.isContentEditable) return { kind: "text", actual: el.innerText };
  return { kind: "", tag };
}

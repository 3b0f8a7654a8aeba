(el, v) => {
  const tag = el.tagName, type = (el.getAttribute("type") || "").toLowerCase();
  const text = ["", "text", "search", "email", "url", "tel", "password", "number", "date", "datetime-local", "month", "time", "week", "color", "range"];
  if (el.matches(":disabled")) return {error: "disabled"};
  if (el.readOnly) return {error: "readonly"};
  if (el.isContentEditable) { el.focus(); el.textContent = v; }
  else if ((tag === "INPUT" && text.includes(type)) || tag === "TEXTAREA") {
    el.focus();
    Object.getOwnPropertyDescriptor(Object.getPrototypeOf(el), "value").set.call(el, v);
  } else return {error: "not_a_text_field"};
  el.dispatchEvent(new Event("input", {bubbles: true}));
  el.dispatchEvent(new Event("change", {bubbles: true}));
  return {};
}

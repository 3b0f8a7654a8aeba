el => {
  if (el.tagName === "SELECT" && el.multiple) return {value: [...el.selectedOptions].map(o => o.value)};
  if (el.type === "checkbox" || el.type === "radio") return {value: el.value, checked: el.checked};
  if ("value" in el && el.tagName !== "BUTTON" && el.tagName !== "LI") return {value: el.value};
  if (el.isContentEditable) return {value: el.innerText};
  return {value: null};
}

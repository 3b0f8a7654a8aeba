el => {
  const c = el.matches("input[type=checkbox],input[type=radio]") ? el : el.querySelector("input[type=checkbox],input[type=radio]");
  return c ? {checked: c.checked, radio: c.type === "radio"} : {error: "not_a_checkbox"};
}

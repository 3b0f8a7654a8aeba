// The text the browser renders of the first match (innerText), or null
// when nothing matches.
els => els.length ? (els[0].innerText ?? els[0].textContent ?? "") : null

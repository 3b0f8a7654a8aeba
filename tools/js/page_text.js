// The text the browser renders of the whole page (body.innerText).
() => document.body ? document.body.innerText : ""

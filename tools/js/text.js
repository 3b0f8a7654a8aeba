el => (el.innerText ?? el.textContent ?? "").trim()

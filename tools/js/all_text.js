els => els.map(el => (el.innerText ?? el.textContent ?? "").trim())

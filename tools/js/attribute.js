(el, n) => el.getAttribute(n)

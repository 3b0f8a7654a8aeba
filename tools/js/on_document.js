fn => (...args) => fn(document, ...args)

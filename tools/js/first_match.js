test => els => els.length ? [true, test(els[0])] : [false, false]

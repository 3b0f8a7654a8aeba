els => els.length

describe => (els, limit) => ({total: els.length, elements: els.slice(0, limit).map(describe)})

(x, y) => { scrollBy(x, y); return {scrollX, scrollY}; }

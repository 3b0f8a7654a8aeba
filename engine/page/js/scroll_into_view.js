el => { el.scrollIntoView({block: "center", inline: "center", behavior: "instant"}); return {scrollX, scrollY}; }

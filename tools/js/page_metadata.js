() => {
  const meta = n => document.querySelector('meta[name="' + n + '"]')?.content || "";
  const og = {};
  for (const m of document.querySelectorAll('meta[property^="og:"]')) og[m.getAttribute("property").slice(3)] = m.content;
  return {title: document.title, url: location.href, description: meta("description"),
    canonical: document.querySelector('link[rel="canonical"]')?.href || "", lang: document.documentElement.lang, openGraph: og};
}

// (quietMs, maxMs) => ms waited: after a load, wait until the page has
// logged no layout shift, LCP candidate or resource for quietMs, or maxMs
// has passed, so that performance {url} counts what a page does just
// after its load event (a late banner's shift, a hero image).
async (quietMs, maxMs) => {
  const start = performance.now();
  let last = start;
  const types = (window.PerformanceObserver && PerformanceObserver.supportedEntryTypes) || [];
  const obs = window.PerformanceObserver ? new PerformanceObserver(() => { last = performance.now(); }) : null;
  for (const t of ["layout-shift", "largest-contentful-paint", "resource"]) {
    if (obs && types.includes(t)) obs.observe({ type: t });
  }
  await new Promise((done) => {
    const tick = () => {
      const now = performance.now();
      if (now - last >= quietMs || now - start >= maxMs) done();
      else setTimeout(tick, 100);
    };
    tick();
  });
  if (obs) obs.disconnect();
  return performance.now() - start;
}

// Waits until the page's visible text (document.body.innerText, spaces
// collapsed) contains text, or with gone no longer does: checked now and
// on every DOM change, never polled. Resolves true when it did, false when
// ms passed first.
(text, gone, ms) => new Promise((resolve) => {
  const norm = (s) => s.replace(/\s+/g, " ");
  const needle = norm(text).trim();
  const reached = () => norm(document.body ? document.body.innerText : "").includes(needle) !== gone;
  if (reached()) return resolve(true);
  let timer;
  const obs = new MutationObserver(() => {
    if (reached()) {
      obs.disconnect();
      clearTimeout(timer);
      resolve(true);
    }
  });
  obs.observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
  timer = setTimeout(() => {
    obs.disconnect();
    resolve(reached());
  }, ms);
})

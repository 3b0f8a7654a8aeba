// scrollBy at once (not smoothly, whatever the page's CSS asks), so that
// the position read after it is where the scroll ended, and how far it
// moved: 0 at the page's edge.
(x, y) => {
  const x0 = scrollX, y0 = scrollY;
  scrollBy({left: x, top: y, behavior: "instant"});
  return {scrollX, scrollY, movedX: scrollX - x0, movedY: scrollY - y0};
}

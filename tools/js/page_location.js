// The page's URL and title as it reads them itself: an engine's own idea
// of the URL may miss a history.pushState (Firefox over Playwright).
() => [location.href, document.title]

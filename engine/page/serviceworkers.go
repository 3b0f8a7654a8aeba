package page

// BlockServiceWorkersScript is the init script of a session whose pages
// may not register service workers (engine.SessionOptions.
// BlockServiceWorkers), as Playwright's serviceWorkers: "block" does on
// Chromium: register rejects, so a page learns it has none.
const BlockServiceWorkersScript = `if (navigator.serviceWorker) navigator.serviceWorker.register = async () => {
  throw new DOMException("service workers are blocked on this server (--block-service-workers)", "SecurityError");
};`

// Launches a browser through one of Playwright's internal browser types and
// serves it over Playwright's WebSocket protocol, for browser types that
// playwright-go does not expose (Firefox over WebDriver BiDi: _bidiFirefox).
// It prints the endpoint on one line of stdout. When stdin closes, because
// browsermcp exited or closed it, it closes the browser and exits, so a
// killed server never leaves a browser behind.
//
// argv: <driver package dir> <browser type> <launchServer options as JSON>
const [pkg, type, optsJSON] = process.argv.slice(1);
const playwright = require(pkg);
if (type === "_bidiFirefox") bidiDownloads(pkg);
(async () => {
  const server = await playwright[type].launchServer(JSON.parse(optsJSON));
  server.on("close", () => process.exit(0));
  process.stdout.write(server.wsEndpoint() + "\n");
  const stop = () => server.close().finally(() => process.exit(0));
  process.stdin.on("end", stop);
  process.stdin.on("error", stop);
  process.stdin.resume();
})().catch((e) => {
  process.stderr.write(String((e && e.message) || e) + "\n");
  process.exit(1);
});

// bidiDownloads teaches Playwright 1.52's WebDriver BiDi backend the
// downloads Firefox reports over BiDi (browser.setDownloadBehavior,
// browsingContext.downloadWillBegin and downloadEnd), which it does not
// handle: without this a download is never reported, and the navigation
// that became one stays pending (or is taken as committed) in Playwright's
// frame. Each browser context's downloads are saved into a folder of the
// browser's downloads path, then renamed to the artifact path Playwright
// expects (<downloadsPath>/<uuid>), so Download.saveAs works as on Chromium.
function bidiDownloads(pkg) {
  const path = require("path");
  const fs = require("fs");
  const lib = (p) => require(path.join(pkg, "lib", "server", p));
  const { BidiBrowserContext } = lib("bidi/bidiBrowser.js");
  const { BidiPage } = lib("bidi/bidiPage.js");
  const { BidiNetworkManager } = lib("bidi/bidiNetworkManager.js");
  const { eventsHelper } = lib("utils/eventsHelper.js");

  const contextInit = BidiBrowserContext.prototype._initialize;
  BidiBrowserContext.prototype._initialize = async function () {
    await contextInit.call(this);
    if (!this._browserContextId) return;
    const accept = this._options.acceptDownloads === "accept";
    const dir = path.join(this._browser.options.downloadsPath || "", "bidi-" + this._browserContextId);
    // An older Firefox lacks the command; browsermcp then answers
    // UNSUPPORTED for its downloads (engine/pw minFirefoxDownloads).
    await this._browser._browserSession.sendMayFail("browser.setDownloadBehavior", {
      downloadBehavior: accept ? { type: "allowed", destinationFolder: dir } : { type: "denied" },
      userContexts: [this._browserContextId],
    });
    // Firefox reports the file choosers its pages open
    // (input.fileDialogOpened), which Playwright 1.52 does not ask for;
    // once per browser. An older Firefox lacks the event: browsermcp then
    // answers UNSUPPORTED for its choosers (engine/pw minFirefoxChoosers).
    if (!this._browser._fileDialogs) {
      this._browser._fileDialogs = this._browser._browserSession.sendMayFail("session.subscribe", { events: ["input.fileDialogOpened"] });
    }
    await this._browser._fileDialogs;
  };

  // Playwright takes a navigation's response as its commit, but a response
  // can become a download (an attachment, or <a download>), which commits
  // nothing: the frame would then sit on the download's URL, waiting for a
  // document that never comes. Where Firefox reports commits
  // (browsingContext.navigationCommitted), the commit waits for it, and a
  // download drops it. The response's end waits with it, so that no one
  // sees a navigation's request finish before its document commits.
  const responseStarted = BidiPage.prototype._onNavigationResponseStarted;
  BidiPage.prototype._onNavigationResponseStarted = function (params) {
    const c = this._commits;
    if (!c || !params.navigation || c.done.delete(params.navigation)) return responseStarted.call(this, params);
    c.pending.set(params.navigation, { params, completed: null });
  };
  const responseCompleted = BidiNetworkManager.prototype._onResponseCompleted;
  BidiNetworkManager.prototype._onResponseCompleted = function (params) {
    const c = this._page._delegate._commits;
    const p = c && params.navigation && c.pending.get(params.navigation);
    if (p) {
      p.completed = () => responseCompleted.call(this, params);
      return;
    }
    return responseCompleted.call(this, params);
  };

  const pageInit = BidiPage.prototype._initialize;
  BidiPage.prototype._initialize = function () {
    const browser = this._browserContext._browser;
    const ids = new Map(); // BiDi navigation id (or URL) -> download uuid
    const key = (e) => e.navigation || e.url;
    if (parseInt(browser.version(), 10) >= 142) {
      // pending: responses waiting for their commit; done: commits that
      // came before their response (kept few: most have no response).
      this._commits = { pending: new Map(), done: new Set() };
    }
    // settle ends a navigation's wait for its commit: commit says whether
    // the response is taken as one. It returns whether one was waiting.
    const settle = (e, commit) => {
      const p = this._commits && e.navigation && this._commits.pending.get(e.navigation);
      if (!p) return false;
      this._commits.pending.delete(e.navigation);
      if (commit) responseStarted.call(this, p.params);
      if (p.completed) p.completed();
      return true;
    };
    this._sessionListeners.push(
      eventsHelper.addEventListener(this._session, "browsingContext.navigationCommitted", (e) => {
        if (!this._commits || !e.navigation || settle(e, true)) return;
        this._commits.done.add(e.navigation);
        if (this._commits.done.size > 64) this._commits.done.delete(this._commits.done.values().next().value);
      }),
      eventsHelper.addEventListener(this._session, "browsingContext.navigationFailed", (e) => settle(e, false)),
      eventsHelper.addEventListener(this._session, "browsingContext.navigationAborted", (e) => settle(e, false)),
      eventsHelper.addEventListener(this._session, "browsingContext.downloadWillBegin", (e) => {
        settle(e, false);
        this._page._frameManager.frameAbortedNavigation(e.context, "Download is starting", e.navigation || undefined);
        let origin = this._page.initializedOrUndefined();
        if (!origin && this._opener) origin = this._opener._page.initializedOrUndefined();
        if (!origin) return;
        const uuid = require("crypto").randomUUID();
        ids.set(key(e), uuid);
        browser._downloadCreated(origin, uuid, e.url, e.suggestedFilename);
      }),
      // A file chooser becomes Playwright's, as on Chromium: its input's
      // handle, in the page's main world, goes to the page's listeners.
      eventsHelper.addEventListener(this._session, "input.fileDialogOpened", async (e) => {
        const frame = e.element && e.element.sharedId && this._page._frameManager.frame(e.context);
        if (!frame) return;
        let handle;
        try {
          const context = await frame._mainContext();
          handle = await context.delegate.remoteObjectForNodeId(context, { sharedId: e.element.sharedId });
        } catch (err) {
          return;
        }
        await this._page._onFileChooserOpened(handle);
      }),
      eventsHelper.addEventListener(this._session, "browsingContext.downloadEnd", (e) => {
        const uuid = ids.get(key(e));
        if (!uuid) return;
        ids.delete(key(e));
        if (e.status !== "complete" || !e.filepath) {
          browser._downloadFinished(uuid, "canceled");
          return;
        }
        fs.promises.rename(e.filepath, path.join(browser.options.downloadsPath || "", uuid)).then(
          () => browser._downloadFinished(uuid, ""),
          (err) => browser._downloadFinished(uuid, String((err && err.message) || err)),
        );
      }),
    );
    return pageInit.call(this);
  };
}

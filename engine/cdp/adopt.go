package cdp

import (
	"context"
	"slices"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Adopt attaches to the session another server opened in this engine's
// browser (a Shared one, which keeps its pages when that server goes): the
// pages of the browser's one non-default browser context. The page state
// is the browser's (URL, DOM, cookies, storage); what lived in the other
// server's connection is set again from opts (viewport, user agent,
// locale, headers, the domain policy) or starts afresh (element refs,
// network and console records, routes). Its other pages become tabs at the
// session's next tab call. Under a policy with host rules the WebSocket
// relay starts again on Config.Relay, the address the browser context's
// proxy rules name (sockets.go); without it, the session's WebSockets go
// where the other server's relay was.
func (e *Engine) Adopt(ctx context.Context, opts engine.SessionOptions) (engine.Session, error) {
	b, release, err := e.browser(ctx)
	if err != nil {
		return nil, err
	}
	var relay *socketRelay
	adopted := false
	defer func() {
		if !adopted {
			relay.close()
			release()
		}
	}()
	if ln := e.takeRelay(); ln != nil {
		if !e.cfg.Policy.HasHostRules() {
			ln.Close()
		} else if relay, err = startRelay(e.cfg.Policy, opts.Proxy, ln); err != nil {
			return nil, err
		}
	}
	// Calls on the browser run on its context, bounded by the caller's.
	c, cancel := context.WithCancel(b.ctx)
	defer cancel()
	if dl, ok := ctx.Deadline(); ok {
		c, cancel = context.WithDeadline(c, dl)
		defer cancel()
	}
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	bcs, err := chromedp.CallBrowser(c, target.GetBrowserContexts, cdp.Empty{})
	if err != nil {
		return nil, engine.Wrap(engine.BrowserError, err, "listing the browser's contexts: "+err.Error())
	}
	ts, err := chromedp.CallBrowser(c, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return nil, engine.Wrap(engine.BrowserError, err, "listing the browser's pages: "+err.Error())
	}
	var page *target.Info
	for _, t := range ts.TargetInfos {
		// The session's context is the one the browser did not start
		// with; the default context's pages (a WebDriver's own tab) are
		// not the session's.
		if t.Type == "page" && slices.Contains(bcs.BrowserContextIDs, t.BrowserContextID) {
			page = t
			break
		}
	}
	if page == nil {
		return nil, engine.Errorf(engine.SessionNotFound, "the browser holds no session's page")
	}
	s, err := openTab(ctx, b, b.ctx, newRefSpace(), opts, e.cfg.Dialogs, chromedp.WithTargetID(page.TargetID))
	if err != nil {
		return nil, err
	}
	// chromedp leaves the context id of a page it attached to by id empty;
	// the session's tabs and storage calls need it.
	chromedp.FromContext(s.tab).BrowserContextID = page.BrowserContextID
	adopted = true
	return e.finish(ctx, b, s, opts, relay, release)
}

package cdp

import (
	"context"
	"errors"
	"strings"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/security"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
	bmpage "github.com/seed4af8c199/browsermcp/engine/page"
)

// contextOptions configure the browser context itself (before its page).
// Under a policy with host rules, relay's proxy rules send the context's
// WebSockets through the policy (sockets.go).
func contextOptions(opts engine.SessionOptions, relay *socketRelay) (chromedp.CreateBrowserContextOption, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if relay != nil {
		server, bypass := relay.proxyRules(bypassList(opts.ProxyBypass))
		return func(p *target.CreateBrowserContextParams) { p.ProxyServer, p.ProxyBypassList = server, bypass }, nil
	}
	if opts.Proxy == "" {
		return func(*target.CreateBrowserContextParams) {}, nil
	}
	bypass := strings.Join(bypassList(opts.ProxyBypass), ";")
	return func(p *target.CreateBrowserContextParams) { p.ProxyServer, p.ProxyBypassList = opts.Proxy, bypass }, nil
}

// bypassList splits a comma-separated proxy bypass list.
func bypassList(s string) []string {
	var l []string
	for _, h := range strings.Split(s, ",") {
		if h = strings.TrimSpace(h); h != "" {
			l = append(l, h)
		}
	}
	return l
}

// applyOptions sets the per-session emulation on a new page.
func applyOptions(ctx context.Context, t *chromedp.Target, opts engine.SessionOptions) error {
	if opts.BlockServiceWorkers {
		// Requests skip a worker already there; new ones cannot register.
		if _, err := cdp.Call(ctx, t, network.SetBypassServiceWorker, network.SetBypassServiceWorkerParams{Bypass: true}); err != nil {
			return err
		}
		if _, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: bmpage.BlockServiceWorkersScript}); err != nil {
			return err
		}
	}
	for _, src := range opts.InitScripts {
		// For the page's next documents: like Playwright's addInitScript,
		// never run into a document that is already there.
		if _, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: src}); err != nil {
			return err
		}
	}
	if opts.IgnoreHTTPSErrors {
		// Per page, as Playwright does: it holds for this page's
		// navigations and subresources, not for other sessions'.
		if _, err := cdp.Call(ctx, t, security.SetIgnoreCertificateErrors, security.SetIgnoreCertificateErrorsParams{Ignore: true}); err != nil {
			return err
		}
	}
	if opts.UserAgent != "" || opts.Locale != "" {
		ua := opts.UserAgent
		if ua == "" {
			v, err := cdp.Call(ctx, t, browser.GetVersion, cdp.Empty{})
			if err != nil {
				return err
			}
			ua = v.UserAgent
		}
		if _, err := cdp.Call(ctx, t, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: ua, AcceptLanguage: opts.Locale}); err != nil {
			return err
		}
	}
	if opts.Locale != "" {
		if _, err := cdp.Call(ctx, t, emulation.SetLocaleOverride, emulation.SetLocaleOverrideParams{Locale: opts.Locale}); err != nil {
			return badOption(err, "locale", opts.Locale)
		}
	}
	if opts.TimezoneID != "" {
		if _, err := cdp.Call(ctx, t, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: opts.TimezoneID}); err != nil {
			return badOption(err, "timezoneId", opts.TimezoneID)
		}
	}
	if len(opts.ExtraHTTPHeaders) > 0 {
		h := network.Headers{}
		for k, v := range opts.ExtraHTTPHeaders {
			h[k] = v
		}
		if _, err := cdp.Call(ctx, t, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: h}); err != nil {
			return badOption(err, "extraHTTPHeaders", "")
		}
	}
	return nil
}

// badOption turns the browser's refusal of an option into INVALID_PARAMETERS.
func badOption(err error, field, value string) error {
	var ce *cdproto.Error
	if errors.As(err, &ce) {
		return engine.Wrap(engine.InvalidParameters, err, "invalid "+field+" "+value+": "+ce.Message).With("field", field)
	}
	return err
}

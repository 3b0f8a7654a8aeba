package cdp

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit"
	jspage "github.com/seed4af8c199/browsermcp/engine/page"
)

// popups counts, for one tab, the windows its page asked to open
// (Page.windowOpen, sent for window.open and target=_blank links alike)
// and the page targets the browser created with the tab as opener, so an
// action knows a popup is coming and can wait for it, event-driven. It
// also counts the downloads the page is known to start (downloads): a
// main-frame response that is an attachment, or an <a download> click
// that page.ExpectScript reports.
type popups struct {
	mu        sync.Mutex
	changed   chan struct{}
	owner     target.ID // the tab's target id, once known
	opens     int
	created   []target.ID // popups, in the order they were created
	downloads int
}

func (p *popups) init() { p.changed = make(chan struct{}) }

func (p *popups) setOwner(id target.ID) {
	p.mu.Lock()
	p.owner = id
	p.mu.Unlock()
}

// onEvent runs on the tab's reader goroutine: it only counts and wakes.
func (p *popups) onEvent(ev any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev := ev.(type) {
	case *page.EventWindowOpen:
		p.opens++
	case *runtime.EventBindingCalled:
		if ev.Name != jspage.ExpectBinding || ev.Payload != "download" {
			return
		}
		p.downloads++
	case *network.EventResponseReceived:
		if ev.Type != network.ResourceTypeDocument || p.owner == "" || ev.FrameID != cdp.FrameID(p.owner) || !attachment(ev.Response.Headers) {
			return
		}
		p.downloads++
	case *target.EventTargetCreated:
		info := ev.TargetInfo
		if info == nil || info.Type != "page" || p.owner == "" || info.OpenerID != p.owner {
			return
		}
		p.created = append(p.created, info.TargetID)
	default:
		return
	}
	close(p.changed)
	p.changed = make(chan struct{})
}

type popupMark struct{ opens, created, downloads int }

func (p *popups) since(m popupMark) []target.ID {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.created[m.created:])
}

func (p *popups) mark() popupMark {
	p.mu.Lock()
	defer p.mu.Unlock()
	return popupMark{p.opens, len(p.created), p.downloads}
}

// await waits, at most until ctx ends or PopupWait passed, for as many
// popups to be created since m as the page asked for, and returns those
// that were.
func (p *popups) await(ctx context.Context, m popupMark) []target.ID {
	timer := time.NewTimer(kit.PopupWait)
	defer timer.Stop()
	for {
		p.mu.Lock()
		opened, created := p.opens-m.opens, len(p.created)-m.created
		ch := p.changed
		p.mu.Unlock()
		if created >= opened {
			return p.since(m)
		}
		select {
		case <-ch:
		case <-timer.C:
			return p.since(m)
		case <-ctx.Done():
			return p.since(m)
		}
	}
}

// expectedDownloads is how many downloads the page was seen to start
// since m.
func (p *popups) expectedDownloads(m popupMark) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.downloads - m.downloads
}

// attachment reports whether response headers make the response a
// download.
func attachment(h network.Headers) bool {
	for k, v := range h {
		if s, ok := v.(string); ok && strings.EqualFold(k, "Content-Disposition") {
			return strings.HasPrefix(strings.ToLower(strings.TrimSpace(s)), "attachment")
		}
	}
	return false
}

// watchExpected installs page.ExpectScript on a tab, for the documents it
// loads from now on.
func watchExpected(ctx context.Context, t *chromedp.Target) error {
	if _, err := cdp.Call(ctx, t, runtime.AddBinding, runtime.AddBindingParams{Name: jspage.ExpectBinding}); err != nil {
		return err
	}
	_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: jspage.ExpectScript()})
	return err
}

// Watch follows an action on the current tab: the popups it opens become
// tabs of the session and are reported with the downloads it began (once
// finished) and the console errors since the last report.
func (t *tabbed) Watch(ctx context.Context) func(ctx context.Context, res *engine.ActionResult) error {
	cur := t.session
	pm := cur.obs.popups.mark()
	return func(ctx context.Context, res *engine.ActionResult) error {
		if ids := cur.obs.popups.await(ctx, pm); len(ids) > 0 {
			// The popups become tabs now, as the tabs tool would adopt
			// them; one the policy closed at once is not among them.
			if err := t.sync(ctx); err == nil {
				for i, s := range t.tabs.All() {
					if slices.Contains(ids, s.id) {
						res.NewTabs = append(res.NewTabs, engine.NewTab{Index: i, URL: s.Info(ctx).URL})
					}
				}
			}
		}
		if t.dl != nil {
			res.Downloads = t.dl.report(ctx, cur.obs.popups.expectedDownloads(pm))
		}
		res.ConsoleErrors = cur.obs.console.errors.Take()
		return nil
	}
}

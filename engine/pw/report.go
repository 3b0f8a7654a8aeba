package pw

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit"
	jspage "github.com/seed4af8c199/browsermcp/engine/page"
)

// report is what an action's result tells of a session beyond its page,
// shared by the session's tabs: the pages the browser context opened and
// the downloads its pages began, in order, and what page.ExpectScript
// said the pages were about to start (Playwright reports a popup or a
// download only once the browser has set it up, which may be after the
// action that started it returned).
type report struct {
	dir string // the download directory; "" when downloads are refused
	// noDownloads, when set, is the error of an action that started a
	// download the browser cannot save (Firefox).
	noDownloads error

	mu      sync.Mutex
	changed chan struct{}
	pages   []playwright.Page // opened in the browser context, in order
	popups  int               // popups the pages announced
	dls     *kit.DownloadLog
}

func newReport(dir string) *report {
	return &report{dir: dir, changed: make(chan struct{}), dls: kit.NewDownloadLog()}
}

func (r *report) update(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f()
	close(r.changed)
	r.changed = make(chan struct{})
}

// watchContext follows the browser context's new pages and installs
// page.ExpectScript in its documents.
func (r *report) watchContext(bctx playwright.BrowserContext) error {
	bctx.OnPage(func(p playwright.Page) { r.update(func() { r.pages = append(r.pages, p) }) })
	err := bctx.ExposeBinding(jspage.ExpectBinding, func(_ *playwright.BindingSource, args ...any) any {
		switch what, _ := firstArg(args).(string); what {
		case "download":
			r.dls.Announce()
		case "popup":
			r.update(func() { r.popups++ })
		}
		return nil
	})
	if err != nil {
		return err
	}
	return bctx.AddInitScript(playwright.Script{Content: playwright.String(jspage.ExpectScript())})
}

func firstArg(args []any) any {
	if len(args) == 0 {
		return nil
	}
	return args[0]
}

// watchPage follows a page's downloads, and the attachments its main
// frame receives, which become downloads.
func (r *report) watchPage(p playwright.Page) {
	if r.dir == "" {
		return
	}
	p.OnResponse(func(resp playwright.Response) {
		req := resp.Request()
		if !req.IsNavigationRequest() || req.Frame().ParentFrame() != nil {
			return
		}
		if cd := resp.Headers()["content-disposition"]; strings.HasPrefix(strings.ToLower(strings.TrimSpace(cd)), "attachment") {
			r.dls.Announce()
		}
	})
	p.OnDownload(func(d playwright.Download) {
		info := engine.Download{SuggestedName: d.SuggestedFilename(), State: engine.DownloadInProgress}
		go r.save(d, r.dls.Begin(info), info)
	})
}

// save waits for download i to finish (SaveAs does; the browser context's
// close cancels it), then moves it to its safe, unique suggested name.
func (r *report) save(d playwright.Download, i int, info engine.Download) {
	tmp := filepath.Join(r.dir, "."+uuid.NewString()+".part")
	err := os.MkdirAll(r.dir, 0o700)
	if err == nil {
		err = d.SaveAs(tmp)
	}
	if err == nil {
		var path string
		if path, err = kit.SaveDownload(tmp, r.dir, info.SuggestedName); err == nil {
			info.State, info.Path = engine.DownloadCompleted, path
			if st, serr := os.Stat(path); serr == nil {
				info.Bytes = st.Size()
			}
		}
	}
	if err != nil {
		os.Remove(tmp)
		info.State, info.Error = engine.DownloadCanceled, firstLine(err)
		if f := d.Failure(); f != nil {
			info.Error = firstLine(f)
		}
	}
	r.dls.Set(i, info)
}

type reportMark struct{ pages, popups int }

func (r *report) mark() reportMark {
	r.mu.Lock()
	defer r.mu.Unlock()
	return reportMark{len(r.pages), r.popups}
}

// newPages waits, at most until ctx ends or PopupWait passed, for as many
// pages to open since m as the pages announced popups, and returns those
// that did.
func (r *report) newPages(ctx context.Context, m reportMark) []playwright.Page {
	timer := time.NewTimer(kit.PopupWait)
	defer timer.Stop()
	for {
		r.mu.Lock()
		opened, announced := len(r.pages)-m.pages, r.popups-m.popups
		ch := r.changed
		if opened >= announced {
			pages := slices.Clone(r.pages[m.pages:])
			r.mu.Unlock()
			return pages
		}
		r.mu.Unlock()
		select {
		case <-ch:
		case <-timer.C:
			m.popups = r.popups // give up on the rest
		case <-ctx.Done():
			m.popups = r.popups
		}
	}
}

// downloads returns the downloads no result has named yet, once they
// finished. It waits, event-driven, for those the pages announced to
// begin (at most PopupWait), then for them to finish, until ctx ends.
func (r *report) downloads(ctx context.Context) ([]engine.Download, error) {
	if r.dir == "" {
		return nil, nil
	}
	if r.noDownloads != nil {
		if r.dls.TakeAnnounced() {
			return nil, r.noDownloads
		}
		return nil, nil
	}
	return r.dls.Report(ctx, 0), nil
}

// Watch follows an action on the current tab: the popups it opens become
// tabs of the session and are reported with the downloads it began (once
// finished) and the console errors since the last report.
func (t *tabbed) Watch(ctx context.Context) func(ctx context.Context, res *engine.ActionResult) error {
	cur := t.session
	r := t.sh.report
	m := r.mark()
	return func(ctx context.Context, res *engine.ActionResult) error {
		if pages := r.newPages(ctx, m); len(pages) > 0 {
			if err := t.sync(ctx); err == nil {
				for i, s := range t.tabs.All() {
					if slices.Contains(pages, s.page) {
						res.NewTabs = append(res.NewTabs, engine.NewTab{Index: i, URL: s.page.URL()})
					}
				}
			}
		}
		res.ConsoleErrors = cur.console.errors.Take()
		var err error
		res.Downloads, err = r.downloads(ctx)
		return err
	}
}

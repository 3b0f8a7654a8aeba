package pw

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit"
	"github.com/seed4af8c199/browsermcp/engine/page"
)

// session is one browser context with one page.
type session struct {
	e    *Engine
	b    *browserProc
	bctx playwright.BrowserContext
	page playwright.Page
	st   *pageState

	console *consoleLog
	net     *netLog
	routes  *router
	sh      *shared // what the session's tabs share: refs, network conditions
	// views are the agent's last views of this tab's documents, for
	// Changes (changes.go).
	views page.Views
	// freshWalk is set while a walk must reuse nothing earlier walks kept,
	// for the walks of its cross-origin frames.
	freshWalk bool
	// picked is set when settling saw a file input clicked (chooser.go).
	picked bool

	// owner is set on the session's first page, whose Close closes the
	// browser context; other tabs close only their page.
	owner bool

	closeOnce  sync.Once
	closeMu    sync.Mutex
	closedByUs bool

	// Info reads the title through the driver, which can stall on a busy
	// page; it shares one read at a time and falls back to the last title.
	titleMu   sync.Mutex
	title     string
	titleRead chan struct{} // non-nil while a read runs
}

// newSession creates the browser context and its page.
func newSession(ctx context.Context, e *Engine, b *browserProc, opts engine.SessionOptions) (*session, error) {
	type made struct {
		bctx playwright.BrowserContext
		page playwright.Page
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if e.cfg.Browser == Firefox {
		if err := firefoxOptions(opts); err != nil {
			return nil, err
		}
	}
	console := &consoleLog{}
	rep := newReport(opts.DownloadDir)
	if e.cfg.Browser == Firefox && firefoxMajor(b.browser.Version()) < minFirefoxDownloads {
		rep.noDownloads = unsupported(Firefox, "downloads", fmt.Sprintf("this Firefox's WebDriver BiDi cannot save them (Firefox %d or newer can); the action ran, its download was not saved", minFirefoxDownloads))
	}
	opts, stopAuth, err := kit.AuthProxy(opts)
	if err != nil {
		return nil, err
	}
	m, err := call(ctx, func() (made, error) {
		o := contextOptions(opts)
		o.AcceptDownloads = playwright.Bool(opts.DownloadDir != "")
		bctx, err := b.browser.NewContext(o)
		if err != nil {
			return made{}, err
		}
		if err := rep.watchContext(bctx); err != nil {
			_ = bctx.Close()
			return made{}, err
		}
		if err := installSettle(bctx, choosersReported(e, b)); err != nil {
			_ = bctx.Close()
			return made{}, err
		}
		for _, src := range opts.InitScripts {
			if err := bctx.AddInitScript(playwright.Script{Content: playwright.String(src)}); err != nil {
				_ = bctx.Close()
				return made{}, err
			}
		}
		page, err := bctx.NewPage()
		if err != nil {
			_ = bctx.Close()
			return made{}, err
		}
		if e.cfg.Browser == Firefox {
			if err := console.watchPageErrors(page); err != nil {
				_ = bctx.Close()
				return made{}, err
			}
		}
		return made{bctx, page}, nil
	}, func(m made) { _ = m.bctx.Close() })
	if err != nil {
		stopAuth()
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, engine.Wrap(engine.BrowserError, err, "creating the session was cancelled: "+err.Error())
		}
		if b.Lost() || errors.Is(err, playwright.ErrTargetClosed) {
			return nil, engine.Wrap(engine.BrowserCrashed, err, "the browser closed while creating the session's browser context")
		}
		return nil, engine.Wrap(engine.BrowserError, err, "could not create the session's browser context: "+firstLine(err))
	}
	// The proxy login forwarder lives as long as the browser context.
	m.bctx.OnClose(func(playwright.BrowserContext) { stopAuth() })
	sh := newShared()
	sh.report = rep
	sh.emu.base, sh.emu.cur, sh.emu.perms = engine.BaseEmulation(opts), engine.BaseEmulation(opts), opts.Permissions
	s := newTab(e, b, m.bctx, m.page, console, sh)
	s.owner = true
	if opts.StorageState != nil {
		// As in engine/cdp: the same validation, and localStorage written
		// from each origin's own document.
		if err := engine.RestoreState(ctx, s, *opts.StorageState); err != nil {
			_ = m.bctx.Close()
			return nil, err
		}
	}
	if e.cfg.Browser == Chromium {
		// Pages the site opens get the session's network conditions too.
		m.bctx.OnPage(func(p playwright.Page) {
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), engine.BackgroundTimeout)
				defer cancel()
				if err := sh.cond.applyTo(ctx, sh, m.bctx, p); err != nil {
					e.log.Debug("network conditions for a new page", "err", err)
				}
			}()
		})
	}
	return s, nil
}

// contextOptions maps a session's options onto Playwright's browser
// context, so that none is dropped; the storage state is written after.
func contextOptions(opts engine.SessionOptions) playwright.BrowserNewContextOptions {
	o := playwright.BrowserNewContextOptions{ExtraHttpHeaders: opts.ExtraHTTPHeaders}
	if opts.Viewport.Width > 0 && opts.Viewport.Height > 0 {
		o.Viewport = &playwright.Size{Width: opts.Viewport.Width, Height: opts.Viewport.Height}
	}
	if opts.UserAgent != "" {
		o.UserAgent = &opts.UserAgent
	}
	if opts.Locale != "" {
		o.Locale = &opts.Locale
	}
	if opts.TimezoneID != "" {
		o.TimezoneId = &opts.TimezoneID
	}
	if opts.Proxy != "" {
		o.Proxy = &playwright.Proxy{Server: opts.Proxy}
		if opts.ProxyBypass != "" {
			o.Proxy.Bypass = playwright.String(opts.ProxyBypass)
		}
	}
	if opts.IgnoreHTTPSErrors {
		o.IgnoreHttpsErrors = playwright.Bool(true)
	}
	if opts.BlockServiceWorkers {
		o.ServiceWorkers = playwright.ServiceWorkerPolicyBlock
	}
	if len(opts.Permissions) > 0 {
		o.Permissions = opts.Permissions
	}
	if opts.DeviceScaleFactor != 0 {
		o.DeviceScaleFactor = playwright.Float(opts.DeviceScaleFactor)
	}
	if opts.IsMobile {
		o.IsMobile = playwright.Bool(true)
	}
	if opts.HasTouch {
		o.HasTouch = playwright.Bool(true)
	}
	return o
}

// firefoxOptions refuses the session options that Playwright's WebDriver
// BiDi backend for Firefox accepts and then ignores (checked by the
// conformance suite's Sessions/Emulation): a session must never run
// without an option it was given.
func firefoxOptions(opts engine.SessionOptions) error {
	for _, o := range []struct {
		field string
		set   bool
	}{
		{"userAgent", opts.UserAgent != ""}, {"locale", opts.Locale != ""}, {"timezoneId", opts.TimezoneID != ""},
		{"extraHTTPHeaders", len(opts.ExtraHTTPHeaders) > 0}, {"proxy", opts.Proxy != ""},
		{"ignoreHttpsErrors", opts.IgnoreHTTPSErrors}, {"isMobile", opts.IsMobile}, {"hasTouch", opts.HasTouch},
		{"deviceScaleFactor", opts.DeviceScaleFactor != 0}, {"permissions", len(opts.Permissions) > 0},
	} {
		if o.set {
			return unsupported(Firefox, o.field, "Playwright's WebDriver BiDi backend does not apply it to a browser context").With("field", o.field)
		}
	}
	return nil
}

// newTab follows one page of a session's browser context.
func newTab(e *Engine, b *browserProc, bctx playwright.BrowserContext, page playwright.Page, console *consoleLog, sh *shared) *session {
	s := &session{e: e, b: b, bctx: bctx, page: page, st: newPageState(), console: console, net: newNetLog(sh.cond, &sh.requests), routes: sh.routes, sh: sh}
	s.st.watch(page)
	s.st.watchDialogs(page, s.e.cfg.Dialogs)
	s.st.watchChoosers(page)
	s.console.watch(page)
	s.net.watch(page)
	sh.report.watchPage(page)
	if rec := sh.harFor(); rec != nil {
		s.tapHAR(rec, true)
	}
	return s
}

// call runs f, which blocks on the driver without a context, and returns
// early with ctx's error when ctx ends first. The abandoned f still
// finishes (every Playwright call here carries its own timeout); discard, if
// given, then frees what it made.
func call[T any](ctx context.Context, f func() (T, error), discard func(T)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.err == nil && discard != nil {
				discard(r.v)
			}
		}()
		var zero T
		return zero, ctx.Err()
	}
}

// untilCrash is ctx, also cancelled when the page's renderer crashes:
// Playwright leaves a call that the crash interrupts (an evaluate, a CDP
// command) unanswered, and the call must end with the crash instead of
// waiting out its deadline.
func (s *session) untilCrash(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.st.crash, cancel)
	return ctx, func() {
		stop()
		cancel()
	}
}

// do is call for functions without a result.
func do(ctx context.Context, f func() error) error {
	_, err := call(ctx, func() (struct{}, error) { return struct{}{}, f() }, nil)
	return err
}

// remaining is the time left before ctx's deadline, capped at d.
func remaining(ctx context.Context, d time.Duration) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		if r := time.Until(dl); r < d {
			return r
		}
	}
	return d
}

// alive reports a session, page or browser that is already gone, or a page
// a dialog or a file chooser blocks.
func (s *session) alive() error {
	if err := s.alivePage(); err != nil {
		return err
	}
	return s.st.chooserErr()
}

// alivePage is alive without the file chooser check, for Upload's answer
// to the chooser.
func (s *session) alivePage() error {
	if err := s.aliveBrowser(); err != nil {
		return err
	}
	s.st.mu.Lock()
	crashed, closed := s.st.crashed, s.st.closed
	s.st.mu.Unlock()
	if crashed {
		return engine.RendererCrashed()
	}
	if closed {
		return engine.Errorf(engine.BrowserCrashed, "the page was closed")
	}
	return s.st.dialogErr()
}

// classify turns a Playwright failure into an engine error.
func (s *session) classify(err error, what string) error {
	var e *engine.Error
	if errors.As(err, &e) {
		return e
	}
	s.st.mu.Lock()
	crashed := s.st.crashed
	s.st.mu.Unlock()
	switch {
	case s.b.Lost():
		return engine.Wrap(engine.BrowserCrashed, err, "the browser closed while trying to "+what)
	case crashed:
		e := engine.RendererCrashed()
		e.Message, e.Err = "the page's renderer crashed while trying to "+what, err
		return e
	case errors.Is(err, playwright.ErrTargetClosed):
		return engine.Wrap(engine.BrowserCrashed, err, "the page closed while trying to "+what)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, playwright.ErrTimeout):
		return engine.Wrap(engine.Timeout, err, "timed out trying to "+what)
	}
	return engine.Wrap(engine.BrowserError, err, fmt.Sprintf("could not %s: %s", what, firstLine(err)))
}

// firstLine drops the call log Playwright appends to its messages.
func firstLine(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, "\n"); i >= 0 {
		msg = msg[:i]
	}
	return strings.TrimPrefix(msg, "playwright: ")
}

// infoTimeout bounds how long Info waits for the title.
const infoTimeout = 2 * time.Second

// Info returns the URL, which playwright-go tracks from events, and the
// title, read with a short bound so that a busy page cannot stall
// list_sessions.
func (s *session) Info(ctx context.Context) engine.PageInfo {
	info := engine.PageInfo{URL: s.page.URL()}
	s.titleMu.Lock()
	ch := s.titleRead
	if ch == nil && s.alive() == nil {
		ch = make(chan struct{})
		s.titleRead = ch
		go func() {
			t, err := s.page.Title()
			s.titleMu.Lock()
			if err == nil {
				s.title = t
			}
			s.titleRead = nil
			s.titleMu.Unlock()
			close(ch)
		}()
	}
	s.titleMu.Unlock()
	if ch != nil {
		timer := time.NewTimer(infoTimeout)
		select {
		case <-ch:
		case <-timer.C:
		case <-ctx.Done():
		}
		timer.Stop()
	}
	s.titleMu.Lock()
	info.Title = s.title
	s.titleMu.Unlock()
	return info
}

// Close closes the browser context. It is idempotent.
func (s *session) Close(ctx context.Context) error {
	s.closeOnce.Do(func() {
		s.closeMu.Lock()
		s.closedByUs = true
		s.closeMu.Unlock()
		closer := func() error { return s.bctx.Close() }
		if !s.owner {
			closer = func() error { return s.page.Close() }
		}
		if err := do(ctx, closer); err != nil {
			s.e.log.Debug("closing a browser context", "err", err)
		}
	})
	return nil
}

// pageState follows the page's events so that actions can wait for exactly
// what they started. playwright-go calls the handlers on its dispatch
// goroutine, so they only record and wake.
type pageState struct {
	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every recorded change

	navs    int // main-frame navigations, new document or not
	navReqs int // main-frame navigation requests
	// attachments counts main-frame navigations answered as an
	// attachment: downloads, which leave the document in place.
	attachments int
	reqStarted  int
	inflight    map[playwright.Request]liveRequest
	lastNet     time.Time

	crashed, closed bool
	// crash ends when the page's renderer crashes, so that calls in
	// flight on it end at once rather than at their deadline.
	crash    context.Context
	crashNow context.CancelFunc

	dialog     *openDialog // the dialog waiting for HandleDialog, or nil
	dialogs    int         // dialogs opened
	lastDialog *engine.Dialog

	chooser  *pendingChooser // the file chooser waiting for Upload, or nil (chooser.go)
	choosers int             // file choosers opened
}

func newPageState() *pageState {
	crash, crashNow := context.WithCancel(context.Background())
	return &pageState{changed: make(chan struct{}), inflight: map[playwright.Request]liveRequest{}, crash: crash, crashNow: crashNow}
}

// liveRequest is a request that has not finished: its number in the order
// requests started, and whether it is a main-frame navigation.
type liveRequest struct {
	seq int
	nav bool
}

func (st *pageState) watch(p playwright.Page) {
	p.OnFrameNavigated(func(f playwright.Frame) {
		if f.ParentFrame() == nil {
			st.update(func() { st.navs++ })
		}
	})
	p.OnRequest(func(r playwright.Request) {
		switch r.ResourceType() {
		case "websocket", "eventsource":
			return
		}
		st.update(func() {
			nav := r.IsNavigationRequest() && r.Frame().ParentFrame() == nil
			if nav {
				st.navReqs++
			}
			st.reqStarted++
			st.inflight[r] = liveRequest{seq: st.reqStarted, nav: nav}
			st.lastNet = time.Now()
		})
	})
	finish := func(r playwright.Request) {
		st.update(func() {
			if _, ok := st.inflight[r]; ok {
				delete(st.inflight, r)
				st.lastNet = time.Now()
			}
		})
	}
	p.OnRequestFinished(finish)
	p.OnRequestFailed(finish)
	// A navigation answered as an attachment becomes a download and
	// commits no document: it is over with its response (Firefox over
	// WebDriver BiDi may never report it finished).
	p.OnResponse(func(resp playwright.Response) {
		r := resp.Request()
		if !r.IsNavigationRequest() {
			return
		}
		// Headers, not HeaderValue: no round trip to the driver from its
		// own event handler.
		if cd := resp.Headers()["content-disposition"]; strings.HasPrefix(strings.ToLower(strings.TrimSpace(cd)), "attachment") {
			if r.Frame().ParentFrame() == nil {
				st.update(func() { st.attachments++ })
			}
			finish(r)
		}
	})
	p.OnCrash(func(playwright.Page) {
		st.update(func() { st.crashed = true })
		st.crashNow()
	})
	p.OnClose(func(playwright.Page) { st.update(func() { st.closed = true }) })
}

func (st *pageState) update(f func()) {
	st.mu.Lock()
	defer st.mu.Unlock()
	f()
	close(st.changed)
	st.changed = make(chan struct{})
}

// mark is a copy of the counters taken before an action. navFrom is when
// Playwright's own action (an element click or key press) began waiting for
// a navigation it requested to commit, zero when nothing did: settle's
// wait for that navigation counts from there, so it is not waited for twice.
type mark struct {
	navs, navReqs, reqStarted, dialogs, attachments, choosers int
	navFrom                                                   time.Time
}

func (st *pageState) mark() mark {
	st.mu.Lock()
	defer st.mu.Unlock()
	return mark{navs: st.navs, navReqs: st.navReqs, reqStarted: st.reqStarted, dialogs: st.dialogs, attachments: st.attachments, choosers: st.choosers}
}

// aliveBrowser reports a session or browser that is gone, whatever the
// state of its pages.
func (s *session) aliveBrowser() error {
	s.closeMu.Lock()
	byUs := s.closedByUs
	s.closeMu.Unlock()
	if byUs {
		return engine.Errorf(engine.BrowserError, "the session is closed")
	}
	if s.b.Lost() {
		return engine.Errorf(engine.BrowserCrashed, "the browser process is gone")
	}
	return nil
}

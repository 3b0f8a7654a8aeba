package pw

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit"
)

// requestLogSize bounds the request log of one session, as in engine/cdp.
const requestLogSize = 1000

// maxLoggedURL bounds a logged URL; data: URLs can be megabytes.
const maxLoggedURL = 2048

// reqEntry is a log entry while it can still change.
type reqEntry struct {
	engine.RequestEntry
	started time.Time
	// req is Playwright's request, for get_request's headers and bodies;
	// the bounded log bounds how many are kept.
	req  playwright.Request
	cond engine.AppliedConditions // the emulation when it started
	page string                   // its HAR page, while a HAR records
}

// netLog is a session's bounded request log, kept from Playwright's request
// events. Bytes stays empty: Playwright reports sizes only on request.
type netLog struct {
	mu      sync.Mutex
	entries kit.RecentLog[*reqEntry]
	live    map[playwright.Request]*reqEntry
	cond    *netConds // the session's network: new requests are marked throttled while it is emulated
	// early holds route marks for requests the log has not seen yet.
	early map[playwright.Request]string
	// ids numbers the session's requests (r1, r2, ...), shared by its tabs.
	ids *atomic.Int64
	// har is the HAR recording this tab's requests go to, if one runs.
	har *harTap
}

func newNetLog(cond *netConds, ids *atomic.Int64) *netLog {
	return &netLog{entries: kit.NewRecentLog[*reqEntry](requestLogSize), live: map[playwright.Request]*reqEntry{}, early: map[playwright.Request]string{}, cond: cond, ids: ids}
}

func (l *netLog) watch(p playwright.Page) {
	p.OnRequest(func(r playwright.Request) {
		now := time.Now()
		e := &reqEntry{started: now, req: r}
		e.ID = "r" + strconv.FormatInt(l.ids.Add(1), 10)
		e.Method, e.URL, e.ResourceType, e.State = r.Method(), engine.Clip(r.URL(), maxLoggedURL), resourceType(r), "pending"
		e.StartedAt = now.UnixMilli()
		l.mu.Lock()
		defer l.mu.Unlock()
		e.Throttled = l.cond.active()
		off, th := l.cond.get()
		e.cond = engine.AppliedConditions{Offline: off, Throttling: th}
		if l.har != nil {
			if r.IsNavigationRequest() && r.Frame() == p.MainFrame() && r.RedirectedFrom() == nil {
				l.har.page = l.har.rec.AddPage(e.URL, now)
			}
			e.page = l.har.page
		}
		if how, ok := l.early[r]; ok {
			e.Route = how
			delete(l.early, r)
		}
		if old, evicted := l.entries.Add(e); evicted {
			for k, x := range l.live {
				if x == old {
					delete(l.live, k)
				}
			}
		}
		l.live[r] = e
	})
	p.OnResponse(func(resp playwright.Response) {
		status := resp.Status()
		mime, _, _ := strings.Cut(resp.Headers()["content-type"], ";")
		l.mu.Lock()
		defer l.mu.Unlock()
		if e := l.live[resp.Request()]; e != nil {
			e.Status, e.MimeType = status, strings.TrimSpace(mime)
		}
	})
	p.OnRequestFinished(func(r playwright.Request) { l.end(r, "finished", "") })
	p.OnRequestFailed(func(r playwright.Request) {
		msg := "failed"
		if f := r.Failure(); f != nil {
			msg = strings.TrimPrefix(f.Error(), "playwright: ")
		}
		l.end(r, "failed", msg)
	})
}

// failure is the error of the last request for url (a trailing slash
// aside) that started at or after since and failed, or "".
func (l *netLog) failure(url string, since time.Time) string {
	url = strings.TrimSuffix(url, "/")
	l.mu.Lock()
	defer l.mu.Unlock()
	for e := range l.entries.Backward() {
		if e.started.Before(since) {
			break
		}
		if e.State == "failed" && strings.TrimSuffix(e.URL, "/") == url {
			return e.Error
		}
	}
	return ""
}

// fetchDests maps the Sec-Fetch-Dest header to resource types.
var fetchDests = map[string]string{
	"document": "document", "iframe": "document", "frame": "document", "image": "image", "script": "script",
	"style": "stylesheet", "font": "font", "audio": "media", "video": "media", "track": "media",
	"manifest": "manifest", "empty": "fetch",
}

// resourceType is the request's resource type. Playwright 1.52's WebDriver
// BiDi backend reports every request as "other"; there the type comes from
// the Sec-Fetch-Dest header the browser sent, in which XMLHttpRequest and
// fetch() look the same (both are reported as "fetch").
func resourceType(r playwright.Request) string {
	t := r.ResourceType()
	if t != "other" {
		return t
	}
	if d, ok := fetchDests[r.Headers()["sec-fetch-dest"]]; ok {
		return d
	}
	return t
}

// markRoute records that a route handled req, on its entry if it has one
// yet, else for the entry to come (the route handler may run first).
func (l *netLog) markRoute(req playwright.Request, how string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e := l.live[req]; e != nil {
		e.Route = how
		return
	}
	if len(l.early) > requestLogSize {
		clear(l.early)
	}
	l.early[req] = how
}

func (l *netLog) end(r playwright.Request, state, errText string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e := l.live[r]
	if e == nil {
		return
	}
	e.State, e.Error = state, errText
	e.DurationMs = float64(time.Since(e.started).Microseconds()/100) / 10
	delete(l.live, r)
	if l.har != nil {
		l.har.ended(e)
	}
}

// RequestLog returns the newest recorded requests matching q.
func (s *session) RequestLog(ctx context.Context, q engine.RequestLogQuery) (engine.RequestLog, error) {
	l := s.net
	l.mu.Lock()
	defer l.mu.Unlock()
	reqs, total := kit.Newest(&l.entries, q.Limit, func(e *reqEntry) (engine.RequestEntry, bool) {
		return e.RequestEntry, q.Keeps(e.RequestEntry)
	})
	return engine.RequestLog{Requests: reqs, Total: total, Dropped: l.entries.Dropped()}, nil
}

// netConds is the emulated network of a session: offline and throttling,
// set by two tools and shared by every tab. On Chromium both go to every
// page as one rule (Network.emulateNetworkConditionsByRule, as in
// engine/cdp) through the page's own DevTools session, so that neither
// overwrites the other; Playwright's BrowserContext.SetOffline is not used
// there, since it sends its own conditions through its own session and the
// last one sent would win. Elsewhere only offline exists, through
// Playwright.
type netConds struct {
	mu       sync.Mutex
	offline  bool
	throttle engine.Throttling
}

// active reports whether requests are emulated (offline or throttled).
func (c *netConds) active() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.offline || !c.throttle.Off()
}

func (c *netConds) get() (bool, engine.Throttling) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.offline, c.throttle
}

// applyTo sends the session's conditions to one page (Chromium only). A
// page whose conditions were never changed needs nothing. Should setConds
// change them while they are on their way, they are sent again, so that a
// new page never keeps the old ones.
func (c *netConds) applyTo(ctx context.Context, sh *shared, bctx playwright.BrowserContext, page playwright.Page) error {
	offline, th := c.get()
	if !offline && th.Off() {
		return nil
	}
	for {
		if err := sendConds(ctx, sh, bctx, page, offline, th); err != nil {
			return err
		}
		o, t := c.get()
		if o == offline && t == th {
			return nil
		}
		offline, th = o, t
	}
}

// sendConds sends one set of conditions to page through its DevTools
// session: the one global rule (or none), and navigator.onLine, which the
// by-rule emulation leaves alone.
func sendConds(ctx context.Context, sh *shared, bctx playwright.BrowserContext, page playwright.Page, offline bool, th engine.Throttling) error {
	cs, err := sh.devtoolsFor(ctx, bctx, page)
	if err != nil {
		return err
	}
	rules := []any{}
	if offline || !th.Off() {
		rules = append(rules, map[string]any{
			"urlPattern": "", "offline": offline, "latency": th.LatencyMs,
			"downloadThroughput": kbpsToBytes(th.DownloadKbps), "uploadThroughput": kbpsToBytes(th.UploadKbps),
		})
	}
	return do(ctx, func() error {
		if _, err := cs.Send("Network.emulateNetworkConditionsByRule", map[string]any{"matchedNetworkConditions": rules}); err != nil {
			return err
		}
		_, err := cs.Send("Network.overrideNetworkState", map[string]any{
			"offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1,
		})
		return err
	})
}

// kbpsToBytes converts kilobits per second to the protocol's bytes per
// second; 0 (unlimited) becomes -1.
func kbpsToBytes(kbps float64) float64 {
	if kbps == 0 {
		return -1
	}
	return kbps * 1000 / 8
}

// setConds changes the session's network on Chromium: it sends the new
// conditions to every page of the session, then keeps them for the pages
// to come.
func (s *session) setConds(ctx context.Context, what string, change func(*bool, *engine.Throttling)) error {
	if err := s.aliveBrowser(); err != nil {
		return err
	}
	// The session's conditions change first, so that pages opening
	// meanwhile get them (see applyTo); a page that fails them below keeps
	// the session's intent, and a retry sends the same values again.
	c := s.sh.cond
	c.mu.Lock()
	change(&c.offline, &c.throttle)
	offline, th := c.offline, c.throttle
	c.mu.Unlock()
	for _, p := range s.bctx.Pages() {
		if p.IsClosed() {
			continue
		}
		if err := sendConds(ctx, s.sh, s.bctx, p, offline, th); err != nil {
			if p != s.page && p.IsClosed() {
				continue
			}
			return s.classify(err, what)
		}
	}
	return nil
}

// SetOffline makes every request of the session fail as if the network
// were down, and navigator.onLine false. Playwright 1.52's WebDriver BiDi
// backend accepts the call and does nothing, so Firefox answers
// UNSUPPORTED.
func (s *session) SetOffline(ctx context.Context, offline bool) error {
	switch s.e.cfg.Browser {
	case Firefox:
		return unsupported(Firefox, "set_offline", "Playwright's WebDriver BiDi backend does not implement offline emulation")
	case Chromium:
		return s.setConds(ctx, "set the network offline", func(o *bool, _ *engine.Throttling) { *o = offline })
	}
	if err := s.alive(); err != nil {
		return err
	}
	if err := do(ctx, func() error { return s.bctx.SetOffline(offline) }); err != nil {
		return s.classify(err, "set the network offline")
	}
	s.sh.cond.mu.Lock()
	s.sh.cond.offline = offline
	s.sh.cond.mu.Unlock()
	return nil
}

// SetThrottling limits bandwidth and adds latency on Chromium, through
// DevTools network emulation (see netConds). Playwright emulates network
// conditions only through the DevTools protocol, so Firefox and WebKit
// answer UNSUPPORTED.
func (s *session) SetThrottling(ctx context.Context, th engine.Throttling) error {
	if th.DownloadKbps < 0 || th.UploadKbps < 0 || th.LatencyMs < 0 {
		return engine.Errorf(engine.InvalidParameters, "throughput and latency must not be negative")
	}
	if b := s.e.cfg.Browser; b != Chromium {
		return unsupported(b, "set_throttling", "Playwright emulates network conditions only through the DevTools protocol, which "+b+" does not speak")
	}
	return s.setConds(ctx, "set network throttling", func(_ *bool, t *engine.Throttling) { *t = th })
}

// PDF prints the page with Chromium's print-to-PDF; Playwright offers no
// PDF printing on other browsers.
func (s *session) PDF(ctx context.Context, req engine.PDFRequest) ([]byte, error) {
	o := playwright.PagePdfOptions{Landscape: &req.Landscape, PrintBackground: &req.PrintBackground}
	if req.Format != "" {
		size, ok := engine.PaperFormats[req.Format]
		if !ok {
			return nil, engine.Errorf(engine.InvalidParameters, "format %q is not a known paper size", req.Format).With("field", "format")
		}
		o.Width, o.Height = playwright.String(fmt.Sprintf("%gin", size[0])), playwright.String(fmt.Sprintf("%gin", size[1]))
	}
	if req.PageRanges != "" {
		o.PageRanges = &req.PageRanges
	}
	if s.e.cfg.Browser == Firefox {
		return nil, unsupported(Firefox, "pdf", "Playwright prints to PDF only with Chromium")
	}
	if err := s.alive(); err != nil {
		return nil, err
	}
	pdf, err := call(ctx, func() ([]byte, error) { return s.page.PDF(o) }, nil)
	if err != nil {
		msg := strings.ToLower(err.Error())
		switch {
		case strings.Contains(msg, "page range"):
			return nil, engine.Wrap(engine.InvalidParameters, err, "pageRanges: "+firstLine(err)).With("field", "pageRanges")
		case strings.Contains(msg, "not implemented") || strings.Contains(msg, "not supported"):
			return nil, engine.Wrap(engine.Unsupported, err, "this browser cannot print to PDF: "+firstLine(err)).
				Suggest("Print to PDF needs headless Chromium; start browsermcp with --headless.")
		}
		return nil, s.classify(err, "print the page to PDF")
	}
	return pdf, nil
}

package pw

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine"
)

// requestLogSize bounds the request log of one session, as in engine/cdp.
const requestLogSize = 1000

// reqEntry is a log entry while it can still change.
type reqEntry struct {
	engine.RequestEntry
	started time.Time
}

// netLog is a session's bounded request log, kept from Playwright's request
// events. Bytes stays empty: Playwright reports sizes only on request.
type netLog struct {
	mu      sync.Mutex
	entries []*reqEntry
	dropped int
	live    map[playwright.Request]*reqEntry
	offline bool // the session is offline: new requests are marked throttled
	// early holds route marks for requests the log has not seen yet.
	early map[playwright.Request]string
}

func newNetLog() *netLog {
	return &netLog{live: map[playwright.Request]*reqEntry{}, early: map[playwright.Request]string{}}
}

func (l *netLog) watch(p playwright.Page) {
	p.OnRequest(func(r playwright.Request) {
		now := time.Now()
		e := &reqEntry{started: now}
		e.Method, e.URL, e.ResourceType, e.State = r.Method(), truncate(r.URL(), 2048), resourceType(r), "pending"
		e.StartedAt = now.UnixMilli()
		l.mu.Lock()
		defer l.mu.Unlock()
		e.Throttled = l.offline
		if how, ok := l.early[r]; ok {
			e.Route = how
			delete(l.early, r)
		}
		if len(l.entries) == requestLogSize {
			old := l.entries[0]
			l.entries = slices.Delete(l.entries, 0, 1)
			l.dropped++
			for k, x := range l.live {
				if x == old {
					delete(l.live, k)
				}
			}
		}
		l.entries = append(l.entries, e)
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
}

// RequestLog returns the newest recorded requests matching q.
func (s *session) RequestLog(ctx context.Context, q engine.RequestLogQuery) (engine.RequestLog, error) {
	l := s.net
	filter := strings.ToLower(q.Filter)
	l.mu.Lock()
	defer l.mu.Unlock()
	reqs := []engine.RequestEntry{}
	for _, e := range l.entries {
		if (filter == "" || strings.Contains(strings.ToLower(e.URL), filter)) &&
			(q.ResourceType == "" || e.ResourceType == q.ResourceType) &&
			(!q.FailedOnly || e.State == "failed") {
			reqs = append(reqs, e.RequestEntry)
		}
	}
	total := len(reqs)
	if q.Limit > 0 && total > q.Limit {
		reqs = reqs[total-q.Limit:]
	}
	return engine.RequestLog{Requests: reqs, Total: total, Dropped: l.dropped}, nil
}

// SetOffline makes every request of the session's browser context fail as
// if the network were down, and navigator.onLine false. Playwright 1.52's
// WebDriver BiDi backend accepts the call and does nothing, so Firefox
// answers UNSUPPORTED.
func (s *session) SetOffline(ctx context.Context, offline bool) error {
	if s.e.cfg.Browser == Firefox {
		return unsupported(Firefox, "set_offline", "Playwright's WebDriver BiDi backend does not implement offline emulation")
	}
	if err := s.alive(); err != nil {
		return err
	}
	if err := do(ctx, func() error { return s.bctx.SetOffline(offline) }); err != nil {
		return s.classify(err, "set the network offline")
	}
	s.net.mu.Lock()
	s.net.offline = offline
	s.net.mu.Unlock()
	return nil
}

// SetThrottling is not available: Playwright has no throttling API, and on
// Chromium the DevTools emulation it would need is the one Playwright
// itself drives for SetOffline, so the two would overwrite each other.
func (s *session) SetThrottling(ctx context.Context, th engine.Throttling) error {
	if th.DownloadKbps < 0 || th.UploadKbps < 0 || th.LatencyMs < 0 {
		return engine.Errorf(engine.InvalidParameters, "throughput and latency must not be negative")
	}
	if s.e.cfg.Browser == Firefox {
		return unsupported(Firefox, "set_throttling", "Playwright emulates network conditions only through the DevTools protocol, which Firefox does not speak")
	}
	return s.notYet("set_throttling")
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

package pw

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/page"
)

// Cookies returns the browser context's cookies, filtered to those sent to
// urls when any are given.
func (s *session) Cookies(ctx context.Context, urls []string) ([]engine.Cookie, error) {
	for _, u := range urls {
		if p, err := url.Parse(u); err != nil || p.Host == "" {
			return nil, engine.Errorf(engine.InvalidParameters, "%q is not an absolute URL", u).With("field", "urls")
		}
	}
	if err := s.alive(); err != nil {
		return nil, err
	}
	cs, err := call(ctx, func() ([]playwright.Cookie, error) { return s.bctx.Cookies(urls...) }, nil)
	if err != nil {
		return nil, s.classify(err, "read cookies")
	}
	return fromPW(cs), nil
}

// fromPW converts Playwright's cookies; Playwright marks a session cookie
// with expires -1, engine.Cookie by omitting it.
func fromPW(cs []playwright.Cookie) []engine.Cookie {
	out := make([]engine.Cookie, 0, len(cs))
	for _, c := range cs {
		e := engine.Cookie{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, HTTPOnly: c.HttpOnly, Secure: c.Secure}
		if c.Expires > 0 {
			e.Expires = c.Expires
		}
		if c.SameSite != nil {
			e.SameSite = string(*c.SameSite)
		}
		out = append(out, e)
	}
	return out
}

// SetCookies adds or replaces cookies in the browser context.
func (s *session) SetCookies(ctx context.Context, cookies []engine.Cookie) error {
	params := make([]playwright.OptionalCookie, 0, len(cookies))
	for i, c := range cookies {
		if c.Name == "" || (c.URL == "" && c.Domain == "") {
			return engine.Errorf(engine.InvalidParameters, "cookie %d needs a name and a url or domain", i).With("field", "cookies")
		}
		p := playwright.OptionalCookie{Name: c.Name, Value: c.Value, HttpOnly: &c.HTTPOnly, Secure: &c.Secure}
		if c.URL != "" {
			p.URL = &c.URL
		} else {
			p.Domain = &c.Domain
			path := c.Path
			if path == "" {
				path = "/"
			}
			p.Path = &path
		}
		if c.Expires > 0 {
			p.Expires = &c.Expires
		}
		// Browsers refuse SameSite=None without Secure; Firefox reports
		// its default for cookies set without the attribute as None, so
		// such a cookie is restored with the browser's default instead.
		if c.SameSite != "" && (c.SameSite != "None" || c.Secure) {
			ss := playwright.SameSiteAttribute(c.SameSite)
			p.SameSite = &ss
		}
		params = append(params, p)
	}
	if err := s.alive(); err != nil {
		return err
	}
	if err := do(ctx, func() error { return s.bctx.AddCookies(params) }); err != nil {
		if ctx.Err() != nil || s.alive() != nil {
			return s.classify(err, "set cookies")
		}
		return engine.Wrap(engine.InvalidParameters, err, "the browser rejected the cookies: "+firstLine(err)).With("field", "cookies")
	}
	return nil
}

// SaveState returns the cookies and the localStorage of every origin the
// session has loaded, read by Playwright's storageState.
func (s *session) SaveState(ctx context.Context) (engine.StorageState, error) {
	if err := s.alive(); err != nil {
		return engine.StorageState{}, err
	}
	st, err := call(ctx, func() (*playwright.StorageState, error) { return s.bctx.StorageState() }, nil)
	if err != nil {
		return engine.StorageState{}, s.classify(err, "read the storage state")
	}
	out := engine.StorageState{Cookies: fromPW(st.Cookies), Origins: []engine.OriginStorage{}}
	for _, o := range st.Origins {
		if len(o.LocalStorage) == 0 {
			continue
		}
		os := engine.OriginStorage{Origin: o.Origin}
		for _, nv := range o.LocalStorage {
			os.LocalStorage = append(os.LocalStorage, engine.NameValue{Name: nv.Name, Value: nv.Value})
		}
		out.Origins = append(out.Origins, os)
	}
	slices.SortFunc(out.Origins, func(a, b engine.OriginStorage) int { return strings.Compare(a.Origin, b.Origin) })
	return out, nil
}

// SetStorage adds the localStorage items of each origin, in a page of
// their own (inOriginPage).
func (s *session) SetStorage(ctx context.Context, origins []engine.OriginStorage) error {
	if err := s.alive(); err != nil {
		return err
	}
	err := s.inOriginPage(ctx, func(tmp playwright.Page, open func(origin string) error) error {
		for _, o := range origins {
			if err := open(o.Origin); err != nil {
				return err
			}
			items := make([]any, 0, len(o.LocalStorage))
			for _, nv := range o.LocalStorage {
				items = append(items, map[string]any{"name": nv.Name, "value": nv.Value})
			}
			if _, err := tmp.Evaluate("items => { for (const i of items) localStorage.setItem(i.name, i.value); }", items); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return s.classify(err, "restore localStorage")
	}
	return nil
}

// inOriginPage runs f, within ctx, in a temporary page of the session's
// browser context whose documents are answered by an empty one that never
// reaches the network, as in engine/cdp; open loads an origin's.
// localStorage can only be read and written from a document of its
// origin, and this is how it is reached for an origin the session's tabs
// do not show.
func (s *session) inOriginPage(ctx context.Context, f func(tmp playwright.Page, open func(origin string) error) error) error {
	return do(ctx, func() error {
		tmp, err := s.bctx.NewPage()
		if err != nil {
			return err
		}
		defer tmp.Close()
		err = tmp.Route("**/*", func(r playwright.Route) {
			if r.Request().IsNavigationRequest() {
				_ = r.Fulfill(playwright.RouteFulfillOptions{Status: playwright.Int(200), ContentType: playwright.String("text/html"), Body: "<!doctype html>"})
				return
			}
			_ = r.Abort()
		})
		if err != nil {
			return err
		}
		return f(tmp, func(origin string) error {
			_, err := tmp.Goto(strings.TrimSuffix(origin, "/")+"/", playwright.PageGotoOptions{Timeout: playwright.Float(float64(engine.DefaultNavigationTimeout.Milliseconds()))})
			return err
		})
	})
}

// DeleteCookies deletes the matching cookies of the browser context and
// answers those that are gone. Playwright has no call that deletes one
// cookie: its clearCookies with a filter clears them all and adds the
// others back, which fails on Firefox, whose cookies set without SameSite
// read back as SameSite=None without Secure, which it then refuses. So the
// others are added back here through SetCookies, which leaves that out.
func (s *session) DeleteCookies(ctx context.Context, f engine.CookieFilter) ([]engine.Cookie, error) {
	before, err := s.Cookies(ctx, nil)
	if err != nil {
		return nil, err
	}
	var del, keep []engine.Cookie
	for _, c := range before {
		if f.Match(c) {
			del = append(del, c)
		} else {
			keep = append(keep, c)
		}
	}
	if len(del) == 0 {
		return []engine.Cookie{}, nil
	}
	if err := do(ctx, func() error { return s.bctx.ClearCookies() }); err != nil {
		return nil, s.classify(err, "delete cookies")
	}
	if len(keep) > 0 {
		if err := s.SetCookies(ctx, keep); err != nil {
			e := engine.AsError(err)
			return nil, engine.Wrap(engine.BrowserError, err, fmt.Sprintf("the session's cookies were cleared to delete %d, and the %d others could not be added back: %s", len(del), len(keep), e.Message))
		}
	}
	after, err := s.Cookies(ctx, nil)
	if err != nil {
		return nil, err
	}
	return engine.CookiesGone(del, after), nil
}

// Storage runs engine/page's storage script in the current tab's frame of
// req.Origin (the page's own origin when empty). Playwright evaluates in
// the page's own world, which shares the document's storage. The
// localStorage of an origin that no frame shows is reached in a page of
// its own (inOriginPage).
func (s *session) Storage(ctx context.Context, req engine.StorageRequest) (engine.StorageResult, error) {
	if err := s.alive(); err != nil {
		return engine.StorageResult{}, err
	}
	pfs := s.page.Frames()
	byID := map[string]playwright.Frame{}
	frames := make([]engine.StorageFrame, 0, len(pfs))
	main := s.page.MainFrame()
	for i, f := range append([]playwright.Frame{main}, pfs...) {
		if i > 0 && f == main {
			continue
		}
		id := strconv.Itoa(i)
		byID[id] = f
		frames = append(frames, engine.StorageFrame{ID: id, URL: f.URL()})
	}
	f, origin, ok, err := engine.StorageFrameFor(req, frames)
	if err != nil {
		return engine.StorageResult{}, err
	}
	what := req.Area() + " " + req.Action
	var v any
	switch {
	case ok:
		v, err = call(ctx, func() (any, error) { return byID[f.ID].Evaluate(page.StorageScript(), page.StorageArgs(req)) }, nil)
	case req.Session:
		return engine.StorageResult{}, engine.NoStorageFrame(req)
	default:
		what += " of " + origin
		err = s.inOriginPage(ctx, func(tmp playwright.Page, open func(origin string) error) error {
			if err := open(origin); err != nil {
				return err
			}
			var err error
			v, err = tmp.Evaluate(page.StorageScript(), page.StorageArgs(req))
			return err
		})
	}
	if err != nil {
		return engine.StorageResult{}, s.classify(err, what)
	}
	var o page.StorageOutcome
	b, _ := json.Marshal(v)
	if err := json.Unmarshal(b, &o); err != nil {
		return engine.StorageResult{}, engine.Wrap(engine.BrowserError, err, "the storage script answered "+engine.Clip(string(b), 200))
	}
	return page.StorageResult(o, req, origin)
}

package cdp

import (
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/domstorage"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/page"
)

func (s *session) contextID() cdp.BrowserContextID {
	return chromedp.FromContext(s.tab).BrowserContextID
}

// Cookies returns the browser context's cookies, filtered to those sent to
// urls when any are given.
func (s *session) Cookies(ctx context.Context, urls []string) ([]engine.Cookie, error) {
	var out []engine.Cookie
	err := s.run(ctx, "read cookies", func(ctx context.Context, t *chromedp.Target) error {
		var cs []*network.Cookie
		if len(urls) > 0 {
			for _, u := range urls {
				if p, err := url.Parse(u); err != nil || p.Host == "" {
					return engine.Errorf(engine.InvalidParameters, "%q is not an absolute URL", u).With("field", "urls")
				}
			}
			res, err := cdp.Call(ctx, t, network.GetCookies, network.GetCookiesParams{URLs: urls})
			if err != nil {
				return err
			}
			cs = res.Cookies
		} else {
			c, cancel := s.browserCall(ctx)
			defer cancel()
			res, err := chromedp.CallBrowser(c, storage.GetCookies, storage.GetCookiesParams{BrowserContextID: s.contextID()})
			if err != nil {
				return err
			}
			cs = res.Cookies
		}
		out = make([]engine.Cookie, 0, len(cs))
		for _, c := range cs {
			e := engine.Cookie{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, HTTPOnly: c.HTTPOnly,
				Secure: c.Secure, SameSite: string(c.SameSite)}
			if !c.Session {
				e.Expires = c.Expires
			}
			out = append(out, e)
		}
		return nil
	})
	return out, err
}

// SetCookies adds or replaces cookies in the browser context.
func (s *session) SetCookies(ctx context.Context, cookies []engine.Cookie) error {
	params := make([]*network.CookieParam, 0, len(cookies))
	for i, c := range cookies {
		if c.Name == "" || (c.URL == "" && c.Domain == "") {
			return engine.Errorf(engine.InvalidParameters, "cookie %d needs a name and a url or domain", i).With("field", "cookies")
		}
		p := &network.CookieParam{Name: c.Name, Value: c.Value, URL: c.URL, Domain: c.Domain, Path: c.Path,
			Secure: c.Secure, HTTPOnly: c.HTTPOnly, SameSite: network.CookieSameSite(c.SameSite)}
		if c.Expires > 0 {
			p.Expires = cdp.TimeSinceEpoch(c.Expires)
		}
		if p.Path == "" && p.URL == "" {
			p.Path = "/"
		}
		params = append(params, p)
	}
	return s.run(ctx, "set cookies", func(ctx context.Context, t *chromedp.Target) error {
		c, cancel := s.browserCall(ctx)
		defer cancel()
		_, err := chromedp.CallBrowser(c, storage.SetCookies, storage.SetCookiesParams{Cookies: params, BrowserContextID: s.contextID()})
		if err != nil {
			return engine.Wrap(engine.InvalidParameters, err, "the browser rejected the cookies: "+err.Error()).With("field", "cookies")
		}
		return nil
	})
}

// SaveState returns the cookies and the localStorage of every origin the
// session has loaded.
func (s *session) SaveState(ctx context.Context) (engine.StorageState, error) {
	cookies, err := s.Cookies(ctx, nil)
	if err != nil {
		return engine.StorageState{}, err
	}
	st := engine.StorageState{Cookies: cookies, Origins: []engine.OriginStorage{}}
	s.st.mu.Lock()
	origins := make([]string, 0, len(s.st.origins))
	for o := range s.st.origins {
		origins = append(origins, o)
	}
	s.st.mu.Unlock()
	slices.Sort(origins)
	err = s.run(ctx, "read localStorage", func(ctx context.Context, t *chromedp.Target) error {
		for _, o := range origins {
			res, err := cdp.Call(ctx, t, domstorage.GetDOMStorageItems, domstorage.GetDOMStorageItemsParams{
				StorageID: &domstorage.StorageID{StorageKey: storageKey(o), IsLocalStorage: true}})
			if err != nil {
				return err
			}
			if len(res.Entries) == 0 {
				continue
			}
			os := engine.OriginStorage{Origin: o}
			for _, item := range res.Entries {
				if len(item) == 2 {
					os.LocalStorage = append(os.LocalStorage, engine.NameValue{Name: item[0], Value: item[1]})
				}
			}
			st.Origins = append(st.Origins, os)
		}
		return nil
	})
	return st, err
}

// SetStorage adds the localStorage items of each origin, in a tab of
// their own (inOriginTab).
func (s *session) SetStorage(ctx context.Context, origins []engine.OriginStorage) error {
	err := s.inOriginTab(ctx, func(c context.Context, t *chromedp.Target, open func(origin string) error) error {
		for _, o := range origins {
			if err := open(o.Origin); err != nil {
				return err
			}
			items, _ := json.Marshal(o.LocalStorage)
			if err := evalJSON(c, t, "for (const i of "+string(items)+") localStorage.setItem(i.name, i.value)", nil); err != nil {
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

// inOriginTab runs f in a temporary tab of the session's browser context
// whose documents are answered by an empty one that never reaches the
// network; open loads an origin's. localStorage can only be read and
// written from a document of its origin, and this is how it is reached
// for an origin the session's tabs do not show.
func (s *session) inOriginTab(ctx context.Context, f func(c context.Context, t *chromedp.Target, open func(origin string) error) error) error {
	if err := s.alive(); err != nil {
		return err
	}
	// A child of the tab's context opens a new tab in the same browser
	// context; its first Do binds its loop to tmp itself, never to ctx.
	tmp, cancel := chromedp.NewContext(s.tab)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	return chromedp.Do(tmp, chromedp.Func(func(c context.Context, t *chromedp.Target) error {
		paused := chromedp.Events(c, fetch.RequestPaused)
		go func() {
			for ev, err := range paused {
				if err != nil {
					return
				}
				cdp.Call(c, t, fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: ev.RequestID, ResponseCode: 200,
					ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Type", Value: "text/html"}}, Body: []byte("<!doctype html>")})
			}
		}()
		if _, err := cdp.Call(c, t, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*", ResourceType: network.ResourceTypeDocument}}}); err != nil {
			return err
		}
		defer cdp.Call(c, t, fetch.Disable, cdp.Empty{})
		return f(c, t, func(origin string) error {
			if _, err := chromedp.Navigate(strings.TrimSuffix(origin, "/")+"/")(c, t); err != nil {
				return err
			}
			s.st.mu.Lock()
			s.st.origins[origin] = true
			s.st.mu.Unlock()
			return nil
		})
	}))
}

// storageKey is Chromium's serialized storage key of a first-party origin.
func storageKey(origin string) domstorage.SerializedStorageKey {
	return domstorage.SerializedStorageKey(strings.TrimSuffix(origin, "/") + "/")
}

// DeleteCookies deletes the matching cookies of the browser context, each
// by its exact name, domain and path, and answers those that are gone.
func (s *session) DeleteCookies(ctx context.Context, f engine.CookieFilter) ([]engine.Cookie, error) {
	before, err := s.Cookies(ctx, nil)
	if err != nil {
		return nil, err
	}
	var del []engine.Cookie
	for _, c := range before {
		if f.Match(c) {
			del = append(del, c)
		}
	}
	if len(del) == 0 {
		return []engine.Cookie{}, nil
	}
	err = s.run(ctx, "delete cookies", func(ctx context.Context, t *chromedp.Target) error {
		for _, c := range del {
			if _, err := cdp.Call(ctx, t, network.DeleteCookies, network.DeleteCookiesParams{Name: c.Name, Domain: c.Domain, Path: c.Path}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	after, err := s.Cookies(ctx, nil)
	if err != nil {
		return nil, err
	}
	return engine.CookiesGone(del, after), nil
}

// Storage runs engine/page's storage script in browsermcp's isolated world
// of the current tab's frame of req.Origin (the page's own origin when
// empty). The world shares the document's storage, and the page cannot
// reach or change the script there. The localStorage of an origin that no
// frame shows is reached in a tab of its own (inOriginTab).
func (s *session) Storage(ctx context.Context, req engine.StorageRequest) (engine.StorageResult, error) {
	var res engine.StorageResult
	found := true
	args, _ := json.Marshal(page.StorageArgs(req))
	script := "(" + page.StorageScript() + ")(" + string(args) + ")"
	err := s.run(ctx, req.Area()+" "+req.Action, func(ctx context.Context, t *chromedp.Target) error {
		tree, err := cdp.Call(ctx, t, cdppage.GetFrameTree, cdp.Empty{})
		if err != nil {
			return err
		}
		var frames []engine.StorageFrame
		var walk func(ft *cdppage.FrameTree)
		walk = func(ft *cdppage.FrameTree) {
			frames = append(frames, engine.StorageFrame{ID: string(ft.Frame.ID), URL: ft.Frame.URL})
			for _, c := range ft.ChildFrames {
				walk(c)
			}
		}
		walk(tree.FrameTree)
		f, origin, ok, err := engine.StorageFrameFor(req, frames)
		if err != nil || !ok {
			found = ok
			return err
		}
		id, ft := cdp.FrameID(f.ID), t
		if s.st.isOOPIF(id) {
			if ft, err = s.attachFrame(ctx, target.ID(id)); err != nil {
				return err
			}
		}
		ctxID, err := isolatedWorld(ctx, ft, id)
		if err != nil {
			return err
		}
		var o page.StorageOutcome
		if err := evalIn(ctx, ft, ctxID, script, &o); err != nil {
			return err
		}
		res, err = page.StorageResult(o, req, origin)
		return err
	})
	if err != nil || found {
		return res, err
	}
	if req.Session {
		return res, engine.NoStorageFrame(req)
	}
	err = s.inOriginTab(ctx, func(c context.Context, t *chromedp.Target, open func(origin string) error) error {
		if err := open(req.Origin); err != nil {
			return err
		}
		var o page.StorageOutcome
		if err := evalJSON(c, t, script, &o); err != nil {
			return err
		}
		var err error
		res, err = page.StorageResult(o, req, req.Origin)
		return err
	})
	if err != nil {
		return res, s.classify(err, req.Area()+" "+req.Action+" of "+req.Origin)
	}
	return res, nil
}

// evalIn evaluates expr in the execution context ctxID of t and decodes
// its JSON result into out.
func evalIn(ctx context.Context, t *chromedp.Target, ctxID runtime.ExecutionContextID, expr string, out any) error {
	res, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ContextID: ctxID, ReturnByValue: new(true)})
	return decodeResult(res.Result, res.ExceptionDetails, err, out)
}

package pw

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine"
)

// routeAll is the Playwright URL glob of the one page route handler,
// installed while the tab has routes.
const routeAll = "**/*"

// router holds a session's routes, shared by its tabs: a route applies to
// every tab, as in engine/cdp. They are page routes, each tab with its own
// handler while the session has routes: Playwright 1.52's WebDriver BiDi
// backend applies context routes only to pages created after them.
type router struct {
	mu     sync.Mutex
	routes []engine.Route    // oldest first; the newest match wins
	on     map[*session]bool // tabs whose page has the handler
}

func newRouter() *router { return &router{on: map[*session]bool{}} }

// routeType folds fetch into xhr, as engine/cdp does: its interception
// cannot tell them apart, and on Firefox this engine cannot either.
func routeType(t string) string {
	if t == "fetch" {
		return "xhr"
	}
	return t
}

func (r *router) match(req playwright.Request) (engine.Route, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	typ := routeType(resourceType(req))
	url := req.URL()
	for i := len(r.routes) - 1; i >= 0; i-- {
		rt := r.routes[i]
		if (rt.ResourceType == "" || routeType(rt.ResourceType) == typ) && (rt.URLPattern == "" || engine.MatchGlob(rt.URLPattern, url)) {
			return rt, true
		}
	}
	return engine.Route{}, false
}

// handle answers one intercepted request with the routes as they are now;
// one that no route matches any more goes on to the network.
func (s *session) handleRoute(route playwright.Route) {
	req := route.Request()
	rt, ok := s.routes.match(req)
	switch {
	case !ok:
		_ = route.Fallback()
	case rt.Action == engine.RouteBlock:
		s.markRoute(req, "blocked")
		_ = route.Abort("blockedbyclient")
	default:
		s.markRoute(req, "mocked")
		status := rt.Status
		if status == 0 {
			status = 200
		}
		headers := map[string]string{}
		hasType := false
		for k, v := range rt.Headers {
			hasType = hasType || strings.EqualFold(k, "content-type")
			headers[k] = v
		}
		if !hasType {
			ct := "text/plain; charset=utf-8"
			if b := strings.TrimSpace(rt.Body); b != "" && json.Valid([]byte(b)) {
				ct = "application/json"
			}
			headers["Content-Type"] = ct
		}
		if err := route.Fulfill(playwright.RouteFulfillOptions{Status: &status, Headers: headers, Body: rt.Body}); err != nil {
			_ = route.Abort("failed")
		}
	}
}

// markRoute records on the request's log entry that a route handled it.
func (s *session) markRoute(req playwright.Request, how string) {
	s.net.markRoute(req, how)
}

// routeTabs installs the route handler on each tab that lacks it, or
// removes it from each that has it once the session has no route left.
func (r *router) routeTabs(ctx context.Context, tabs []*session) error {
	for _, s := range tabs {
		r.mu.Lock()
		want, has := len(r.routes) > 0, r.on[s]
		if want != has {
			if want {
				r.on[s] = true
			} else {
				delete(r.on, s)
			}
		}
		r.mu.Unlock()
		switch {
		case want && !has:
			if err := do(ctx, func() error { return s.page.Route(routeAll, s.handleRoute) }); err != nil {
				r.mu.Lock()
				delete(r.on, s)
				r.mu.Unlock()
				return s.classify(err, "add a route")
			}
		case !want && has:
			if err := do(ctx, func() error { return s.page.Unroute(routeAll) }); err != nil {
				return s.classify(err, "remove routes")
			}
		}
	}
	return nil
}

// AddRoute adds a route for every tab of the session.
func (t *tabbed) AddRoute(ctx context.Context, rt engine.Route) (int, error) {
	if err := t.alive(); err != nil {
		return 0, err
	}
	if err := t.sync(ctx); err != nil {
		return 0, err
	}
	r := t.sh.routes
	r.mu.Lock()
	r.routes = append(r.routes, rt)
	n := len(r.routes)
	r.mu.Unlock()
	if err := r.routeTabs(ctx, t.tabs.All()); err != nil {
		r.mu.Lock()
		r.routes = slices.Delete(r.routes, n-1, n)
		n = len(r.routes)
		r.mu.Unlock()
		return n, errors.Join(err, r.routeTabs(ctx, t.tabs.All()))
	}
	return n, nil
}

// RemoveRoutes removes the routes with pattern (all with "") from the
// session, and every tab's handler with the last one.
func (t *tabbed) RemoveRoutes(ctx context.Context, pattern string) (removed, remaining int, err error) {
	r := t.sh.routes
	r.mu.Lock()
	kept := slices.DeleteFunc(slices.Clone(r.routes), func(rt engine.Route) bool { return pattern == "" || rt.URLPattern == pattern })
	removed, remaining = len(r.routes)-len(kept), len(kept)
	r.routes = kept
	r.mu.Unlock()
	return removed, remaining, r.routeTabs(ctx, t.tabs.All())
}

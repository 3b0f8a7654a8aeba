package pw

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine"
)

// routeAll is the Playwright URL glob of the one page route handler,
// installed while the tab has routes.
const routeAll = "**/*"

// router holds a tab's routes; as in engine/cdp, a route applies to the tab
// that was current when it was added. They are page routes: Playwright
// 1.52's WebDriver BiDi backend applies context routes only to pages
// created after them.
type router struct {
	mu        sync.Mutex
	routes    []engine.Route // oldest first; the newest match wins
	installed bool
}

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

// AddRoute adds a route; the first one installs the page's handler.
func (s *session) AddRoute(ctx context.Context, rt engine.Route) (int, error) {
	if err := rt.Validate(); err != nil {
		return 0, err
	}
	if err := s.alive(); err != nil {
		return 0, err
	}
	r := s.routes
	r.mu.Lock()
	r.routes = append(r.routes, rt)
	n, install := len(r.routes), !r.installed
	r.installed = true
	r.mu.Unlock()
	if install {
		if err := do(ctx, func() error { return s.page.Route(routeAll, s.handleRoute) }); err != nil {
			r.mu.Lock()
			r.routes = r.routes[:len(r.routes)-1]
			r.installed = false
			n = len(r.routes)
			r.mu.Unlock()
			return n, s.classify(err, "add a route")
		}
	}
	return n, nil
}

// RemoveRoutes removes the routes with pattern (all with ""), and the
// page's handler with the last one.
func (s *session) RemoveRoutes(ctx context.Context, pattern string) (removed, remaining int, err error) {
	r := s.routes
	r.mu.Lock()
	kept := r.routes[:0:0]
	for _, rt := range r.routes {
		if pattern != "" && rt.URLPattern != pattern {
			kept = append(kept, rt)
		}
	}
	removed, remaining = len(r.routes)-len(kept), len(kept)
	r.routes = kept
	uninstall := remaining == 0 && r.installed
	if uninstall {
		r.installed = false
	}
	r.mu.Unlock()
	if uninstall {
		if err := do(ctx, func() error { return s.page.Unroute(routeAll) }); err != nil {
			return removed, remaining, s.classify(err, "remove routes")
		}
	}
	return removed, remaining, nil
}

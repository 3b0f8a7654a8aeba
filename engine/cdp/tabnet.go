package cdp

import (
	"context"
	"slices"

	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/har"
)

// Network settings belong to the session, not to one tab (engine.Networker
// says "the session's requests"), but Chromium applies routes and network
// conditions per page. So tabbed sends each setting to every tab and
// remembers it, and every tab it opens or adopts gets the settings replayed
// before the agent can use it. The request log stays per tab: it tells what
// the current tab loaded.
type tabNet struct {
	routes   []engine.Route // oldest first, as each tab's router holds them
	offline  bool
	throttle engine.Throttling
	har      *har.Recorder // the HAR recording, if one runs (har.go)
}

// opener wraps open so that every new tab starts with the session's
// network settings and emulation.
func (t *tabbed) opener(open func(context.Context, chromedp.ContextOption) (*session, error)) func(context.Context, chromedp.ContextOption) (*session, error) {
	return func(ctx context.Context, how chromedp.ContextOption) (*session, error) {
		s, err := open(ctx, how)
		if err != nil {
			return nil, err
		}
		t.mu.Lock()
		n := tabNet{routes: slices.Clone(t.net.routes), offline: t.net.offline, throttle: t.net.throttle, har: t.net.har}
		emu := t.emu
		t.mu.Unlock()
		for _, rt := range n.routes {
			if _, err = s.AddRoute(ctx, rt); err != nil {
				break
			}
		}
		if err == nil && n.offline {
			err = s.SetOffline(ctx, true)
		}
		if err == nil && !n.throttle.Off() {
			err = s.SetThrottling(ctx, n.throttle)
		}
		if err == nil && emu.cur != emu.base {
			// openTab gave the tab the session's options: what emulate
			// changed since follows.
			err = s.emulate(ctx, emu.base, emu.cur)
		}
		if err != nil {
			s.Close(ctx)
			return nil, err
		}
		if n.har != nil {
			s.tapHAR(n.har, true)
		}
		return s, nil
	}
}

// eachTab runs fn on every tab, the current one first. An error there
// stops it before any other tab changed; the other tabs all get fn, and the
// first of their errors is returned after the setting is recorded (apply),
// except from a tab whose renderer is gone, which no setting can reach.
func (t *tabbed) eachTab(fn func(s *session) error, apply func()) error {
	tabs, cur := t.tabs.Snapshot()
	if err := fn(cur); err != nil {
		return err
	}
	var first error
	for _, s := range tabs {
		if s != cur {
			if err := fn(s); err != nil && first == nil && s.alive() == nil {
				first = err
			}
		}
	}
	t.mu.Lock()
	apply()
	t.mu.Unlock()
	return first
}

// AddRoute adds the route to every tab of the session.
func (t *tabbed) AddRoute(ctx context.Context, rt engine.Route) (int, error) {
	if err := t.sync(ctx); err != nil {
		return 0, err
	}
	var n int
	err := t.eachTab(func(s *session) error { _, err := s.AddRoute(ctx, rt); return err },
		func() { t.net.routes = append(t.net.routes, rt); n = len(t.net.routes) })
	return n, err
}

// RemoveRoutes removes the routes from every tab of the session.
func (t *tabbed) RemoveRoutes(ctx context.Context, pattern string) (removed, remaining int, err error) {
	if err := t.sync(ctx); err != nil {
		return 0, 0, err
	}
	err = t.eachTab(func(s *session) error { _, _, err := s.RemoveRoutes(ctx, pattern); return err }, func() {
		kept := slices.DeleteFunc(slices.Clone(t.net.routes), func(rt engine.Route) bool { return pattern == "" || rt.URLPattern == pattern })
		removed, remaining = len(t.net.routes)-len(kept), len(kept)
		t.net.routes = kept
	})
	return removed, remaining, err
}

// SetOffline takes every tab of the session off the network, or back on.
func (t *tabbed) SetOffline(ctx context.Context, offline bool) error {
	if err := t.sync(ctx); err != nil {
		return err
	}
	return t.eachTab(func(s *session) error { return s.SetOffline(ctx, offline) }, func() { t.net.offline = offline })
}

// SetThrottling throttles every tab of the session.
func (t *tabbed) SetThrottling(ctx context.Context, th engine.Throttling) error {
	if th.DownloadKbps < 0 || th.UploadKbps < 0 || th.LatencyMs < 0 {
		return engine.Errorf(engine.InvalidParameters, "throughput and latency must not be negative")
	}
	if err := t.sync(ctx); err != nil {
		return err
	}
	return t.eachTab(func(s *session) error { return s.SetThrottling(ctx, th) }, func() { t.net.throttle = th })
}

package pw

import (
	"context"
	"sync"

	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine"
)

// emuState is a session's emulation: base from its options (Playwright
// fixed them when it created the browser context), cur what applies now.
// Media and the viewport are per page in Playwright, so every tab gets
// them (adopt); the position and its permission are the context's.
type emuState struct {
	mu        sync.Mutex
	base, cur engine.Emulation
	perms     []string
}

func (e *emuState) get() (from, base engine.Emulation) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.cur, e.base
}

// emulationUnsupported says why browser cannot apply field mid-session,
// "" when it can.
func emulationUnsupported(browser, field string) string {
	fixed := "Playwright fixes it when it creates the browser context; give it to create_session"
	switch field {
	case "timezone":
		return fixed + " as timezoneId"
	case "locale":
		return fixed + " as locale"
	case "device":
		return fixed + " (userAgent, viewport) or start the server with --device"
	}
	switch {
	case browser == Firefox && (field == "colorScheme" || field == "reducedMotion" || field == "media"):
		return "Playwright's WebDriver BiDi backend for Firefox does not implement media emulation"
	case browser == Firefox && field == "geolocation":
		return "Playwright's WebDriver BiDi backend for Firefox does not implement geolocation or permissions"
	case browser != Chromium && field == "cpuThrottling":
		return "Playwright throttles the CPU only through the DevTools protocol, which " + browser + " does not speak"
	}
	return ""
}

// Emulate applies req to every tab of the session, after checking that
// the browser can apply every field of it.
func (t *tabbed) Emulate(ctx context.Context, req engine.EmulateRequest) (engine.Emulation, error) {
	b := t.e.cfg.Browser
	if err := engine.EmulationUnsupported(req, b, func(f string) string { return emulationUnsupported(b, f) }); err != nil {
		return engine.Emulation{}, err
	}
	if err := t.sync(ctx); err != nil {
		return engine.Emulation{}, err
	}
	em := t.sh.emu
	from, base := em.get()
	to := from.Apply(req, base)
	if !samePosition(from.Geolocation, to.Geolocation) {
		if err := do(ctx, func() error { return t.setPosition(to.Geolocation, em.perms) }); err != nil {
			return from, t.classify(err, "emulate a position")
		}
	}
	for _, s := range t.tabs.All() {
		if err := s.emulate(ctx, from, to); err != nil {
			if s != t.session && s.alive() != nil {
				continue
			}
			return from, err
		}
	}
	em.mu.Lock()
	em.cur = to
	em.mu.Unlock()
	return to, nil
}

// setPosition emulates g (nil: none) with the permission to read it, on
// top of the session's own permissions.
func (t *tabbed) setPosition(g *engine.Geolocation, perms []string) error {
	if g == nil {
		if err := t.bctx.ClearPermissions(); err != nil {
			return err
		}
		if len(perms) > 0 {
			if err := t.bctx.GrantPermissions(perms); err != nil {
				return err
			}
		}
		return t.bctx.SetGeolocation(nil)
	}
	if err := t.bctx.GrantPermissions([]string{"geolocation"}); err != nil {
		return err
	}
	return t.bctx.SetGeolocation(&playwright.Geolocation{Latitude: g.Latitude, Longitude: g.Longitude, Accuracy: playwright.Float(g.Accuracy)})
}

// emulate changes one tab's media and viewport from from to to, and on
// Chromium its CPU speed through the page's DevTools session.
func (s *session) emulate(ctx context.Context, from, to engine.Emulation) error {
	if err := s.aliveBrowser(); err != nil {
		return err
	}
	if from.CPUThrottling != to.CPUThrottling {
		cs, err := s.sh.devtoolsFor(ctx, s.bctx, s.page)
		if err == nil {
			err = do(ctx, func() error {
				_, err := cs.Send("Emulation.setCPUThrottlingRate", map[string]any{"rate": max(1, to.CPUThrottling)})
				return err
			})
		}
		if err != nil {
			return s.classify(err, "throttle the CPU")
		}
	}
	if from.ColorScheme != to.ColorScheme || from.ReducedMotion != to.ReducedMotion || from.Media != to.Media {
		cs, rm, m := playwright.ColorScheme(orNoOverride(to.ColorScheme)), playwright.ReducedMotion(orNoOverride(to.ReducedMotion)), playwright.Media(orNoOverride(to.Media))
		if err := do(ctx, func() error {
			return s.page.EmulateMedia(playwright.PageEmulateMediaOptions{ColorScheme: &cs, ReducedMotion: &rm, Media: &m})
		}); err != nil {
			return s.classify(err, "emulate media")
		}
		if s.e.cfg.Browser == Chromium {
			// The page's DevTools session (CPU throttling's) has its own
			// emulation, which Chromium restores on each navigation: its
			// media type must be Playwright's too, or a navigation would
			// end Playwright's.
			cs, err := s.sh.devtoolsFor(ctx, s.bctx, s.page)
			if err == nil {
				err = do(ctx, func() error {
					_, err := cs.Send("Emulation.setEmulatedMedia", map[string]any{"media": to.Media, "features": []any{
						map[string]any{"name": "prefers-color-scheme", "value": to.ColorScheme},
						map[string]any{"name": "prefers-reduced-motion", "value": to.ReducedMotion},
					}})
					return err
				})
			}
			if err != nil {
				return s.classify(err, "emulate media")
			}
		}
	}
	if (from.Width != to.Width || from.Height != to.Height) && to.Width > 0 && to.Height > 0 {
		if err := do(ctx, func() error { return s.page.SetViewportSize(to.Width, to.Height) }); err != nil {
			return s.classify(err, "resize the viewport")
		}
	}
	return nil
}

func orNoOverride(v string) string {
	if v == "" {
		return "no-override"
	}
	return v
}

func samePosition(a, b *engine.Geolocation) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

package cdp

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Emulation belongs to the session, like its network settings (tabnet.go),
// but Chromium emulates per page: tabbed sends each change to every tab
// and keeps the state, and every tab it opens or adopts gets it before the
// agent can use it. A page keeps its emulation across navigations. base is
// what the session's options gave every tab (openTab), which reset returns
// to.
type tabEmu struct {
	base, cur engine.Emulation
	// perms are the session's own permissions; geolocation adds its own
	// while a position is emulated.
	perms []string
}

// Emulate applies req to every tab of the session.
func (t *tabbed) Emulate(ctx context.Context, req engine.EmulateRequest) (engine.Emulation, error) {
	if err := t.sync(ctx); err != nil {
		return engine.Emulation{}, err
	}
	t.mu.Lock()
	from, base, perms := t.emu.cur, t.emu.base, t.emu.perms
	t.mu.Unlock()
	to := from.Apply(req, base)
	if (from.Geolocation == nil) != (to.Geolocation == nil) {
		// The position is read only with the permission, which
		// Browser.grantPermissions gives the whole browser context (every
		// origin), replacing what it had: the session's own permissions
		// and geolocation, or the session's own again.
		if to.Geolocation != nil && !slices.Contains(perms, "geolocation") {
			perms = append(slices.Clone(perms), "geolocation")
		}
		if err := t.setPermissions(ctx, perms); err != nil {
			return from, err
		}
	}
	err := t.eachTab(func(s *session) error { return s.emulate(ctx, from, to) }, func() { t.emu.cur = to })
	if err != nil {
		t.mu.Lock()
		to = t.emu.cur
		t.mu.Unlock()
	}
	return to, err
}

// setPermissions makes perms the browser context's granted permissions.
func (t *tabbed) setPermissions(ctx context.Context, perms []string) error {
	c, cancel := t.browserCall(ctx)
	defer cancel()
	if _, err := chromedp.CallBrowser(c, browser.ResetPermissions, browser.ResetPermissionsParams{BrowserContextID: t.first.contextID()}); err != nil {
		return t.classify(err, "reset the session's permissions")
	}
	return grantPermissions(ctx, t.b, t.first.contextID(), perms)
}

// emulate changes one tab's emulation from from to to: only what differs
// is sent.
func (s *session) emulate(ctx context.Context, from, to engine.Emulation) error {
	return s.runAny(ctx, "emulate", func(ctx context.Context, t *chromedp.Target) error {
		if from.ColorScheme != to.ColorScheme || from.ReducedMotion != to.ReducedMotion || from.Media != to.Media {
			p := emulation.SetEmulatedMediaParams{Media: to.Media}
			for _, f := range [][2]string{{"prefers-color-scheme", to.ColorScheme}, {"prefers-reduced-motion", to.ReducedMotion}} {
				if f[1] != "" {
					p.Features = append(p.Features, &emulation.MediaFeature{Name: f[0], Value: f[1]})
				}
			}
			if _, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, p); err != nil {
				return err
			}
		}
		if from.CPUThrottling != to.CPUThrottling {
			if _, err := cdp.Call(ctx, t, emulation.SetCPUThrottlingRate, emulation.SetCPUThrottlingRateParams{Rate: max(1, to.CPUThrottling)}); err != nil {
				return err
			}
		}
		if !samePosition(from.Geolocation, to.Geolocation) {
			var err error
			if g := to.Geolocation; g != nil {
				_, err = cdp.Call(ctx, t, emulation.SetGeolocationOverride, emulation.SetGeolocationOverrideParams{Latitude: &g.Latitude, Longitude: &g.Longitude, Accuracy: &g.Accuracy})
			} else {
				_, err = cdp.Call(ctx, t, emulation.ClearGeolocationOverride, cdp.Empty{})
			}
			if err != nil {
				return err
			}
		}
		if from.Timezone != to.Timezone {
			if _, err := cdp.Call(ctx, t, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: to.Timezone}); err != nil && !inEffect(err) {
				return badOption(err, "timezone", to.Timezone)
			}
		}
		if from.Locale != to.Locale {
			if _, err := cdp.Call(ctx, t, emulation.SetLocaleOverride, emulation.SetLocaleOverrideParams{Locale: to.Locale}); err != nil && !inEffect(err) {
				return badOption(err, "locale", to.Locale)
			}
		}
		if from.UserAgent != to.UserAgent || from.Locale != to.Locale {
			// The user agent carries Accept-Language; the browser's own
			// user agent goes with a locale of the session's, and an
			// empty one with none ends the override.
			ua := to.UserAgent
			if ua == "" && to.Locale != "" {
				v, err := cdp.Call(ctx, t, browser.GetVersion, cdp.Empty{})
				if err != nil {
					return err
				}
				ua = v.UserAgent
			}
			if _, err := cdp.Call(ctx, t, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: ua, AcceptLanguage: to.Locale}); err != nil {
				return err
			}
		}
		if from.Width != to.Width || from.Height != to.Height || from.DeviceScaleFactor != to.DeviceScaleFactor || from.IsMobile != to.IsMobile {
			if _, err := cdp.Call(ctx, t, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
				Width: int64(to.Width), Height: int64(to.Height), DeviceScaleFactor: to.DeviceScaleFactor, Mobile: to.IsMobile,
			}); err != nil {
				return err
			}
		}
		if from.HasTouch != to.HasTouch {
			p := emulation.SetTouchEmulationEnabledParams{Enabled: to.HasTouch}
			if to.HasTouch {
				p.MaxTouchPoints = 5
			}
			if _, err := cdp.Call(ctx, t, emulation.SetTouchEmulationEnabled, p); err != nil {
				return err
			}
		}
		return nil
	})
}

// inEffect tells the refusal of a timezone or locale override because
// the renderer process has one already. A renderer process serves one
// browser context, so that override is this session's own, set through
// another of its tabs in the same process, to the same value.
func inEffect(err error) bool {
	var ce *cdproto.Error
	return errors.As(err, &ce) && strings.Contains(ce.Message, "already in effect")
}

func samePosition(a, b *engine.Geolocation) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

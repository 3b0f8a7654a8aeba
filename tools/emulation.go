package tools

import (
	"context"
	"fmt"
	"strings"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/devices"
)

// EmulateIn is the input of emulate: any subset of what it changes.
type EmulateIn struct {
	SessionArg
	ColorScheme   string         `json:"colorScheme,omitempty" jsonschema:"prefers-color-scheme,enum=light,enum=dark,enum=no-preference"`
	ReducedMotion string         `json:"reducedMotion,omitempty" jsonschema:"prefers-reduced-motion,enum=reduce,enum=no-preference"`
	Media         string         `json:"media,omitempty" jsonschema:"CSS media type,enum=print,enum=screen"`
	CPUThrottling float64        `json:"cpuThrottling,omitempty" jsonschema:"CPU slowdown rate; 1 turns it off" range:"1,20"`
	Geolocation   *GeolocationIn `json:"geolocation,omitempty" jsonschema:"Position for navigator.geolocation, with the permission granted"`
	Timezone      string         `json:"timezone,omitempty" jsonschema:"IANA id, e.g. Europe/Berlin" size:"64"`
	Locale        string         `json:"locale,omitempty" jsonschema:"BCP 47, e.g. de-DE" size:"64"`
	Device        string         `json:"device,omitempty" jsonschema:"Playwright device name, e.g. iPhone 13, Pixel 7: viewport, pixel ratio, touch, user agent" size:"128"`
	Viewport      *ViewportIn    `json:"viewport,omitempty" jsonschema:"Resize the page"`
	Reset         bool           `json:"reset,omitempty" jsonschema:"Return to the session's own settings first"`
}

// GeolocationIn is an emulated position.
type GeolocationIn struct {
	Latitude  float64 `json:"latitude" range:"-90,90"`
	Longitude float64 `json:"longitude" range:"-180,180"`
	Accuracy  float64 `json:"accuracy,omitempty" jsonschema:"Metres; default 1" range:"0,1000000"`
}

// ViewportIn is a page size in CSS pixels.
type ViewportIn struct {
	Width  int `json:"width" range:"1,10000"`
	Height int `json:"height" range:"1,10000"`
}

func (in EmulateIn) validate() error {
	if in.Device != "" {
		if _, ok := devices.Lookup(in.Device); !ok {
			e := engine.Errorf(engine.InvalidParameters, "unknown device %q", clip(in.Device)).With("field", "device")
			if near := devices.Closest(in.Device, 5); len(near) > 0 {
				e.Message += fmt.Sprintf("; did you mean %q? Close names: %s", near[0], strings.Join(near, ", "))
				e.With("didYouMean", near[0]).With("closest", near)
			}
			return e.Suggest(fmt.Sprintf("Give one of Playwright %s's %d device names, spelled exactly (as --device takes them; README's --device row names some), e.g. \"iPhone 13\", \"Pixel 7\", \"iPad Mini\".", devices.Version, devices.Count()))
		}
	}
	return in.request().Validate()
}

// request is the engine's request; validate has found the device.
func (in EmulateIn) request() engine.EmulateRequest {
	r := engine.EmulateRequest{Reset: in.Reset, ColorScheme: in.ColorScheme, ReducedMotion: in.ReducedMotion, Media: in.Media,
		CPUThrottling: in.CPUThrottling, Timezone: in.Timezone, Locale: in.Locale}
	if g := in.Geolocation; g != nil {
		r.Geolocation = &engine.Geolocation{Latitude: g.Latitude, Longitude: g.Longitude, Accuracy: g.Accuracy}
	}
	if d, ok := devices.Lookup(in.Device); ok {
		r.Device = &d
	}
	if v := in.Viewport; v != nil {
		r.Viewport = &engine.Viewport{Width: v.Width, Height: v.Height}
	}
	return r
}

// EmulateOut is the result of emulate.
type EmulateOut struct {
	Message string `json:"message"`
	// Applied names each field of the call with what it did.
	Applied []AppliedField `json:"applied" jsonschema:"Each field of the call and what it set"`
	// Emulation is the session's whole emulation now.
	Emulation engine.Emulation `json:"emulation" jsonschema:"What applies to every tab of the session now; an absent value is the browser's own"`
	SessionMeta
}

// AppliedField is one field of an emulate call and what it set.
type AppliedField struct {
	Field string `json:"field"`
	Set   string `json:"set"`
}

func emulate(d *Deps) Tool {
	return inGroup(Emulation, sessionTool(d, "emulate",
		"Emulate media features (colorScheme, reducedMotion, print media), CPU throttling, a geolocation (permission granted), timezone, locale, a device preset, or resize the viewport, for every tab of the session, those opened later too; reset returns to the session's own settings. Give any subset.",
		hints{idempotent: true},
		func(ctx context.Context, s engine.Session, in EmulateIn) (EmulateOut, error) {
			req := in.request()
			em, err := s.Emulate(ctx, req)
			if err != nil {
				return EmulateOut{}, err
			}
			out := EmulateOut{Emulation: em}
			for _, f := range req.Fields() {
				out.Applied = append(out.Applied, AppliedField{Field: f, Set: describeEmulated(f, em)})
			}
			out.Message = fmt.Sprintf("Emulating for every tab of the session: %s.", summarizeEmulation(em))
			return out, nil
		}))
}

// describeEmulated says what field set, as the state em shows it.
func describeEmulated(field string, em engine.Emulation) string {
	switch field {
	case "reset":
		return "back to the session's own settings, then the other fields"
	case "colorScheme":
		return "prefers-color-scheme: " + em.ColorScheme
	case "reducedMotion":
		return "prefers-reduced-motion: " + em.ReducedMotion
	case "media":
		return "media type " + em.Media
	case "cpuThrottling":
		if em.CPUThrottling <= 1 {
			return "CPU throttling off"
		}
		return fmt.Sprintf("CPU %gx slower", em.CPUThrottling)
	case "geolocation":
		g := em.Geolocation
		return fmt.Sprintf("position %g, %g (accuracy %g m), geolocation permission granted to every origin", g.Latitude, g.Longitude, g.Accuracy)
	case "timezone":
		return "timezone " + em.Timezone
	case "locale":
		return "locale " + em.Locale + " (navigator.language, Intl, Accept-Language)"
	case "device":
		set := fmt.Sprintf("%s: %dx%d, pixel ratio %g, mobile %v, touch %v, its user agent", em.Device, em.Width, em.Height, em.DeviceScaleFactor, em.IsMobile, em.HasTouch)
		if em.IsMobile {
			// As on the phone: innerWidth is the viewport's only on a page
			// that asks for it, which surprises a check of innerWidth.
			set += fmt.Sprintf("; a page without <meta name=viewport content=\"width=device-width\"> is laid out 980 px wide, as on the phone, and its innerWidth says 980, not %d", em.Width)
		}
		return set
	case "viewport":
		return fmt.Sprintf("viewport %dx%d", em.Width, em.Height)
	}
	return ""
}

// summarizeEmulation is the state in one line.
func summarizeEmulation(em engine.Emulation) string {
	var parts []string
	add := func(cond bool, format string, args ...any) {
		if cond {
			parts = append(parts, fmt.Sprintf(format, args...))
		}
	}
	add(em.Device != "", "device %s", em.Device)
	add(em.Width > 0, "viewport %dx%d at pixel ratio %g", em.Width, em.Height, em.DeviceScaleFactor)
	add(em.ColorScheme != "", "colorScheme %s", em.ColorScheme)
	add(em.ReducedMotion != "", "reducedMotion %s", em.ReducedMotion)
	add(em.Media != "", "media %s", em.Media)
	add(em.CPUThrottling > 1, "CPU %gx slower", em.CPUThrottling)
	add(em.Geolocation != nil, "position %g, %g", latitude(em), longitude(em))
	add(em.Timezone != "", "timezone %s", em.Timezone)
	add(em.Locale != "", "locale %s", em.Locale)
	if len(parts) == 0 {
		return "nothing beyond the browser's own settings"
	}
	return strings.Join(parts, ", ")
}

func latitude(em engine.Emulation) float64 {
	if em.Geolocation == nil {
		return 0
	}
	return em.Geolocation.Latitude
}

func longitude(em engine.Emulation) float64 {
	if em.Geolocation == nil {
		return 0
	}
	return em.Geolocation.Longitude
}

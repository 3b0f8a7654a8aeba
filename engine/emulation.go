package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
	_ "time/tzdata" // timezones are checked the same on every host
)

// Emulator changes what the session's pages see of their device and
// surroundings: media features, CPU speed, position, timezone, locale,
// device and viewport. What it sets holds for every tab of the session,
// those opened later included, and across navigations, until the next
// Emulate changes it or resets it.
type Emulator interface {
	// Emulate applies req on top of the session's emulation (or, with
	// Reset, on top of the session's own options) and answers the whole
	// state after it. A field the engine cannot apply fails the whole
	// call with UNSUPPORTED, before anything changed. Callers go through
	// Bound, which validates req.
	Emulate(ctx context.Context, req EmulateRequest) (Emulation, error)
}

// The values of the emulated media features and media type.
var (
	ColorSchemes   = []string{"light", "dark", "no-preference"}
	ReducedMotions = []string{"reduce", "no-preference"}
	MediaTypes     = []string{"print", "screen"}
)

// MaxCPUThrottling is the highest CPU slowdown rate Emulate takes.
const MaxCPUThrottling = 20

// EmulateRequest is what one Emulate call changes. A zero field leaves
// that part of the emulation as it is.
type EmulateRequest struct {
	// Reset first returns everything to the session's own options (those
	// it was created with), then applies the other fields.
	Reset bool
	// ColorScheme, ReducedMotion and Media are the values of the media
	// features prefers-color-scheme and prefers-reduced-motion and the
	// media type (ColorSchemes, ReducedMotions, MediaTypes).
	ColorScheme, ReducedMotion, Media string
	// CPUThrottling slows the CPU down by this rate (1 is no slowdown,
	// MaxCPUThrottling the most); 0 leaves it.
	CPUThrottling float64
	// Geolocation is the position navigator.geolocation answers, with the
	// permission granted to every origin of the session.
	Geolocation *Geolocation
	// Timezone is an IANA timezone id, e.g. "Europe/Berlin".
	Timezone string
	// Locale is a BCP 47 language tag, e.g. "de-DE": navigator.language,
	// Intl's default and Accept-Language.
	Locale string
	// Device is a device preset: its viewport, pixel ratio, mobile
	// viewport, touch and user agent.
	Device *Device
	// Viewport resizes the page; with Device, it replaces the device's.
	Viewport *Viewport
}

// Geolocation is an emulated position.
type Geolocation struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	// Accuracy is in metres; 0 means 1.
	Accuracy float64 `json:"accuracy,omitempty"`
}

// Device is a device preset, e.g. one of Playwright's (internal/devices).
type Device struct {
	Name              string
	Viewport          Viewport
	DeviceScaleFactor float64
	IsMobile          bool
	HasTouch          bool
	UserAgent         string
}

// Emulation is the emulation state of a session: what applies to its
// pages now. An empty string is the browser's own value (its colour
// scheme, its timezone and so on).
type Emulation struct {
	ColorScheme   string `json:"colorScheme,omitempty"`
	ReducedMotion string `json:"reducedMotion,omitempty"`
	Media         string `json:"media,omitempty"`
	// CPUThrottling is the slowdown rate; 1 is none.
	CPUThrottling float64      `json:"cpuThrottling"`
	Geolocation   *Geolocation `json:"geolocation,omitempty"`
	Timezone      string       `json:"timezone,omitempty"`
	Locale        string       `json:"locale,omitempty"`
	// Device is the name of the preset the page emulates, if any.
	Device            string  `json:"device,omitempty"`
	Width             int     `json:"width,omitempty" jsonschema:"The viewport's width in CSS pixels"`
	Height            int     `json:"height,omitempty" jsonschema:"The viewport's height in CSS pixels"`
	DeviceScaleFactor float64 `json:"deviceScaleFactor"`
	IsMobile          bool    `json:"isMobile"`
	HasTouch          bool    `json:"hasTouch"`
	UserAgent         string  `json:"userAgent,omitempty"`
}

// BaseEmulation is the emulation a session has from its options alone,
// which Reset returns to.
func BaseEmulation(o SessionOptions) Emulation {
	return Emulation{CPUThrottling: 1, Timezone: o.TimezoneID, Locale: o.Locale, Width: o.Viewport.Width, Height: o.Viewport.Height,
		DeviceScaleFactor: scaleOr1(o.DeviceScaleFactor), IsMobile: o.IsMobile, HasTouch: o.HasTouch, UserAgent: o.UserAgent}
}

// Apply returns the state after req, from e, or from base with Reset.
func (e Emulation) Apply(req EmulateRequest, base Emulation) Emulation {
	if req.Reset {
		e = base
	}
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&e.ColorScheme, req.ColorScheme)
	set(&e.ReducedMotion, req.ReducedMotion)
	set(&e.Media, req.Media)
	set(&e.Timezone, req.Timezone)
	set(&e.Locale, req.Locale)
	if req.CPUThrottling != 0 {
		e.CPUThrottling = req.CPUThrottling
	}
	if g := req.Geolocation; g != nil {
		g := *g
		if g.Accuracy == 0 {
			g.Accuracy = 1
		}
		e.Geolocation = &g
	}
	if d := req.Device; d != nil {
		e.Device, e.Width, e.Height = d.Name, d.Viewport.Width, d.Viewport.Height
		e.DeviceScaleFactor, e.IsMobile, e.HasTouch, e.UserAgent = scaleOr1(d.DeviceScaleFactor), d.IsMobile, d.HasTouch, d.UserAgent
	}
	if v := req.Viewport; v != nil {
		e.Width, e.Height = v.Width, v.Height
	}
	return e
}

// Fields names the fields req sets, in the order of the tool's schema.
func (req EmulateRequest) Fields() []string {
	var f []string
	for _, c := range []struct {
		name string
		set  bool
	}{
		{"reset", req.Reset}, {"colorScheme", req.ColorScheme != ""}, {"reducedMotion", req.ReducedMotion != ""}, {"media", req.Media != ""},
		{"cpuThrottling", req.CPUThrottling != 0}, {"geolocation", req.Geolocation != nil}, {"timezone", req.Timezone != ""},
		{"locale", req.Locale != ""}, {"device", req.Device != nil}, {"viewport", req.Viewport != nil},
	} {
		if c.set {
			f = append(f, c.name)
		}
	}
	return f
}

// Validate checks every field before any engine applies one.
func (req EmulateRequest) Validate() error {
	if len(req.Fields()) == 0 {
		return Errorf(InvalidParameters, "give at least one of colorScheme, reducedMotion, media, cpuThrottling, geolocation, timezone, locale, device, viewport or reset").With("field", "colorScheme")
	}
	for _, c := range []struct {
		field, v string
		allowed  []string
	}{{"colorScheme", req.ColorScheme, ColorSchemes}, {"reducedMotion", req.ReducedMotion, ReducedMotions}, {"media", req.Media, MediaTypes}} {
		if c.v != "" && !slices.Contains(c.allowed, c.v) {
			return Errorf(InvalidParameters, "%s must be one of %s, not %q", c.field, strings.Join(c.allowed, ", "), Clip(c.v, 64)).With("field", c.field)
		}
	}
	if r := req.CPUThrottling; r != 0 && (r < 1 || r > MaxCPUThrottling) {
		return Errorf(InvalidParameters, "cpuThrottling is a slowdown rate from 1 (none) to %d, not %g", MaxCPUThrottling, r).With("field", "cpuThrottling")
	}
	if g := req.Geolocation; g != nil {
		switch {
		case g.Latitude < -90 || g.Latitude > 90:
			return Errorf(InvalidParameters, "geolocation.latitude must be between -90 and 90, not %g", g.Latitude).With("field", "geolocation")
		case g.Longitude < -180 || g.Longitude > 180:
			return Errorf(InvalidParameters, "geolocation.longitude must be between -180 and 180, not %g", g.Longitude).With("field", "geolocation")
		case g.Accuracy < 0:
			return Errorf(InvalidParameters, "geolocation.accuracy is in metres and must not be negative, not %g", g.Accuracy).With("field", "geolocation")
		}
	}
	if err := CheckTimezone(req.Timezone); err != nil {
		return err
	}
	if req.Locale != "" && !localePattern.MatchString(req.Locale) {
		return Errorf(InvalidParameters, "locale %q is not a BCP 47 language tag like en-US or de-DE", Clip(req.Locale, 64)).With("field", "locale")
	}
	if v := req.Viewport; v != nil && (v.Width < 1 || v.Height < 1 || v.Width > MaxViewport || v.Height > MaxViewport) {
		return Errorf(InvalidParameters, "viewport width and height must be 1-%d CSS pixels, not %dx%d", MaxViewport, v.Width, v.Height).With("field", "viewport")
	}
	for _, r := range req.UserAgent() {
		if r < 0x20 || r > 0x7e {
			return Errorf(InvalidParameters, "the device's user agent must be printable ASCII").With("field", "device")
		}
	}
	return nil
}

// UserAgent is the user agent req's device brings, if any.
func (req EmulateRequest) UserAgent() string {
	if req.Device == nil {
		return ""
	}
	return req.Device.UserAgent
}

// MaxViewport is the largest viewport side Emulate takes, as --viewport.
const MaxViewport = 10000

// CheckTimezone refuses a timezone id that is not an IANA name; "" is
// none.
func CheckTimezone(tz string) error {
	if tz == "" {
		return nil
	}
	_, err := time.LoadLocation(tz)
	if err != nil || tz == "Local" || len(tz) > 64 {
		return Errorf(InvalidParameters, "timezone %q is not an IANA timezone id like Europe/Berlin or America/New_York", Clip(tz, 64)).With("field", "timezone")
	}
	return nil
}

// EmulationUnsupported is the error of an Emulate call whose fields an
// engine cannot apply: it names each, with why and how to get it, as the
// engine's unsupported(field) answers; nil when every field can apply.
func EmulationUnsupported(req EmulateRequest, browser string, why func(field string) string) error {
	var parts []string
	var fields []string
	for _, f := range req.Fields() {
		if w := why(f); w != "" {
			parts = append(parts, fmt.Sprintf("%s (%s)", f, w))
			fields = append(fields, f)
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return Errorf(Unsupported, "%s cannot emulate %s; nothing was changed", browser, strings.Join(parts, "; ")).
		With("field", fields[0]).With("fields", fields).With("browser", browser).
		Suggest("Leave these fields out to apply the others; set them when the session is created instead (create_session's locale, timezoneId, userAgent and viewport, or the server's --device), or use Chromium through the cdp engine.")
}

// scaleOr1 is a device scale factor, 1 when none was given.
func scaleOr1(f float64) float64 {
	if f == 0 {
		return 1
	}
	return f
}

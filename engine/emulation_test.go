package engine_test

import (
	"context"
	"slices"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
)

// emulator is a Session whose Emulate records that it was called.
type emulator struct {
	engine.Session
	called bool
}

func (e *emulator) Emulate(_ context.Context, req engine.EmulateRequest) (engine.Emulation, error) {
	e.called = true
	return engine.Emulation{}.Apply(req, engine.Emulation{}), nil
}

// TestEmulateValidated: Bound refuses a bad Emulate request, naming its
// field, before the engine sees it.
func TestEmulateValidated(t *testing.T) {
	for _, c := range []struct {
		req   engine.EmulateRequest
		field string
	}{
		{engine.EmulateRequest{}, "colorScheme"},
		{engine.EmulateRequest{ColorScheme: "blue"}, "colorScheme"},
		{engine.EmulateRequest{ReducedMotion: "less"}, "reducedMotion"},
		{engine.EmulateRequest{Media: "tv"}, "media"},
		{engine.EmulateRequest{CPUThrottling: 0.5}, "cpuThrottling"},
		{engine.EmulateRequest{CPUThrottling: engine.MaxCPUThrottling + 1}, "cpuThrottling"},
		{engine.EmulateRequest{Geolocation: &engine.Geolocation{Latitude: 200}}, "geolocation"},
		{engine.EmulateRequest{Geolocation: &engine.Geolocation{Longitude: -181}}, "geolocation"},
		{engine.EmulateRequest{Geolocation: &engine.Geolocation{Accuracy: -1}}, "geolocation"},
		{engine.EmulateRequest{Timezone: "Mars/Base"}, "timezone"},
		{engine.EmulateRequest{Timezone: "Local"}, "timezone"},
		{engine.EmulateRequest{Locale: "en_US!"}, "locale"},
		{engine.EmulateRequest{Viewport: &engine.Viewport{Width: 0, Height: 10}}, "viewport"},
		{engine.EmulateRequest{Device: &engine.Device{Name: "x", UserAgent: "bad\nagent"}}, "device"},
	} {
		inner := &emulator{}
		_, err := engine.Bound(inner).Emulate(t.Context(), c.req)
		if e := engine.AsError(err); e == nil || e.Code != engine.InvalidParameters || e.Details["field"] != c.field || inner.called {
			t.Errorf("Emulate(%+v): %v, engine called %v; want INVALID_PARAMETERS on %s before the engine", c.req, err, inner.called, c.field)
		}
	}
	inner := &emulator{}
	if _, err := engine.Bound(inner).Emulate(t.Context(), engine.EmulateRequest{Timezone: "America/Argentina/Buenos_Aires", Locale: "sr-Latn-RS"}); err != nil || !inner.called {
		t.Fatalf("a good request: %v, engine called %v", err, inner.called)
	}
}

// TestEmulationApply: each field changes its part of the state; a
// viewport given with a device replaces the device's, reset starts from
// the session's options, and the fields are named in the schema's order.
func TestEmulationApply(t *testing.T) {
	base := engine.BaseEmulation(engine.SessionOptions{Viewport: engine.Viewport{Width: 1280, Height: 720}, Locale: "en-GB"})
	if base.CPUThrottling != 1 || base.DeviceScaleFactor != 1 || base.Width != 1280 || base.Locale != "en-GB" {
		t.Fatalf("base = %+v", base)
	}
	phone := engine.Device{Name: "Phone", Viewport: engine.Viewport{Width: 390, Height: 664}, DeviceScaleFactor: 3, IsMobile: true, HasTouch: true, UserAgent: "UA"}
	req := engine.EmulateRequest{ColorScheme: "dark", Device: &phone, Viewport: &engine.Viewport{Width: 400, Height: 700}, Geolocation: &engine.Geolocation{Latitude: 1, Longitude: 2}}
	em := base.Apply(req, base)
	if em.ColorScheme != "dark" || em.Device != "Phone" || em.Width != 400 || em.Height != 700 || em.DeviceScaleFactor != 3 || !em.IsMobile || !em.HasTouch ||
		em.UserAgent != "UA" || em.Locale != "en-GB" || em.Geolocation == nil || em.Geolocation.Accuracy != 1 {
		t.Fatalf("Apply = %+v", em)
	}
	if got := req.Fields(); !slices.Equal(got, []string{"colorScheme", "geolocation", "device", "viewport"}) {
		t.Fatalf("Fields = %v", got)
	}
	again := em.Apply(engine.EmulateRequest{Media: "print"}, base)
	if again.ColorScheme != "dark" || again.Media != "print" || again.Width != 400 {
		t.Fatalf("a second call keeps the first's: %+v", again)
	}
	reset := again.Apply(engine.EmulateRequest{Reset: true, ReducedMotion: "reduce"}, base)
	want := base
	want.ReducedMotion = "reduce"
	if reset != want {
		t.Fatalf("reset = %+v, want %+v", reset, want)
	}
}

// TestEmulationUnsupported names every field the engine cannot apply, and
// the browser.
func TestEmulationUnsupported(t *testing.T) {
	req := engine.EmulateRequest{ColorScheme: "dark", Locale: "de-DE", Viewport: &engine.Viewport{Width: 10, Height: 10}}
	err := engine.EmulationUnsupported(req, "firefox", func(f string) string {
		if f == "viewport" {
			return ""
		}
		return "not here"
	})
	e := engine.AsError(err)
	if e == nil || e.Code != engine.Unsupported || e.Details["browser"] != "firefox" || e.Details["field"] != "colorScheme" ||
		!slices.Equal(e.Details["fields"].([]string), []string{"colorScheme", "locale"}) {
		t.Fatalf("EmulationUnsupported = %v (%v)", err, e)
	}
	if err := engine.EmulationUnsupported(req, "chromium", func(string) string { return "" }); err != nil {
		t.Fatalf("every field supported: %v", err)
	}
}

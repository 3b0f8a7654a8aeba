package enginetest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/devices"
)

// testEmulation: each field of Emulate, alone, as the page sees it
// (emulation.html's probe), or UNSUPPORTED naming the browser, with the
// page unchanged; what applied holds in a tab opened afterwards, and reset
// takes it all back. Chromium over CDP (engine/cdp, engine/grid) applies
// every field; Playwright only what it can change in a browser context
// that exists.
func (h *harness) testEmulation(t *testing.T) {
	s := h.open(t, "/emulation.html")
	probe := func() map[string]any {
		t.Helper()
		var p map[string]any
		if err := json.Unmarshal([]byte(evaluate(t, s, engine.EvalRequest{Expression: "probe()"})), &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	position := func() string {
		t.Helper()
		return evaluate(t, s, engine.EvalRequest{Expression: "position()"})
	}
	before, beforePos := probe(), position()
	phone, _ := devices.Lookup("Pixel 7")
	type check func(p map[string]any) bool
	applied := map[string]check{}
	for _, c := range []struct {
		name string
		req  engine.EmulateRequest
		ok   check
	}{
		{"colorScheme", engine.EmulateRequest{ColorScheme: "dark"}, func(p map[string]any) bool { return p["dark"] == true }},
		{"reducedMotion", engine.EmulateRequest{ReducedMotion: "reduce"}, func(p map[string]any) bool { return p["reduce"] == true }},
		{"media", engine.EmulateRequest{Media: "print"}, func(p map[string]any) bool { return p["print"] == true }},
		{"cpuThrottling", engine.EmulateRequest{CPUThrottling: 3}, func(map[string]any) bool { return true }},
		{"timezone", engine.EmulateRequest{Timezone: "Pacific/Auckland"}, func(p map[string]any) bool { return p["timeZone"] == "Pacific/Auckland" }},
		{"locale", engine.EmulateRequest{Locale: "fr-CA"}, func(p map[string]any) bool { return p["language"] == "fr-CA" }},
		{"device", engine.EmulateRequest{Device: &phone}, func(p map[string]any) bool {
			return p["dpr"] == phone.DeviceScaleFactor && p["width"] == float64(phone.Viewport.Width) && p["userAgent"] == phone.UserAgent && p["touch"] != 0.0
		}},
		{"viewport", engine.EmulateRequest{Viewport: &engine.Viewport{Width: 640, Height: 480}}, func(p map[string]any) bool {
			return p["width"] == 640.0 && p["height"] == 480.0
		}},
	} {
		em, err := s.Emulate(ctx(t), c.req)
		if !supported(t, err) {
			if !strings.HasPrefix(h.eng.Name(), "playwright/") {
				t.Fatalf("%s: Chromium over CDP must apply %s: %v", h.eng.Name(), c.name, err)
			}
			if d := engine.AsError(err).Details; d["field"] != c.name {
				t.Errorf("UNSUPPORTED %s names field %v", c.name, d["field"])
			}
			continue
		}
		if err != nil {
			t.Fatalf("Emulate %s: %v", c.name, err)
		}
		if p := probe(); !c.ok(p) {
			t.Errorf("after Emulate %s (state %+v) the page sees %v", c.name, em, p)
		}
		applied[c.name] = c.ok
	}
	em, err := s.Emulate(ctx(t), engine.EmulateRequest{Geolocation: &engine.Geolocation{Latitude: -33.8568, Longitude: 151.2153, Accuracy: 5}})
	geo := supported(t, err)
	if geo {
		if err != nil {
			t.Fatal(err)
		}
		if got := position(); got != `{"accuracy":5,"latitude":-33.8568,"longitude":151.2153}` || em.Geolocation == nil {
			t.Errorf("the emulated position reads %s (state %+v)", got, em)
		}
	}

	h.navigate(t, s, "/emulation.html?again")
	p := probe()
	for name, ok := range applied {
		if name != "device" && !ok(p) { // the viewport came after the device
			t.Errorf("after a navigation, Emulate %s is gone: the page sees %v", name, p)
		}
	}
	var n int
	_, err = s.Tabs(ctx(t), engine.TabsRequest{Action: "new", URL: h.site.url("/emulation.html")})
	if err != nil {
		t.Fatal(err)
	}
	p = probe()
	for name, ok := range applied {
		if name != "device" && !ok(p) { // the viewport came after the device
			t.Errorf("a tab opened after Emulate %s sees %v", name, p)
		}
		n++
	}
	if geo && position() == beforePos {
		t.Errorf("a tab opened after Emulate geolocation reads %s", beforePos)
	}
	if _, err := s.Emulate(ctx(t), engine.EmulateRequest{Reset: true}); err != nil {
		t.Fatal(err)
	}
	after := probe()
	for k, v := range before {
		if after[k] != v {
			t.Errorf("after reset %s = %v, was %v", k, after[k], v)
		}
	}
	if geo && position() != beforePos {
		t.Errorf("after reset the position reads %s, was %s", position(), beforePos)
	}
	t.Logf("%s applied %d of 8 fields, and geolocation: %v", h.eng.Name(), n, geo)
}

package tools_test

import (
	"fmt"
	"html"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/devices"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/tools"
)

// probe is what emulation.html's page sees of its device and
// surroundings.
func probe(e *env, id string) map[string]any {
	e.t.Helper()
	out, _ := e.ok("evaluate", map[string]any{"sessionId": id, "script": "probe()"})["result"].(map[string]any)
	if out == nil {
		e.t.Fatal("probe() returned nothing")
	}
	return out
}

// position is the position the page's navigator.geolocation gives, or
// {error: code}.
func position(e *env, id string) map[string]any {
	e.t.Helper()
	out, _ := e.ok("evaluate", map[string]any{"sessionId": id, "script": "async () => await position()"})["result"].(map[string]any)
	return out
}

// tzOffset is new Date().getTimezoneOffset() in zone now.
func tzOffset(t *testing.T, zone string) float64 {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}
	_, off := time.Now().In(loc).Zone()
	return float64(-off / 60)
}

// TestEmulateChromium: every part of emulate, as the page itself sees it
// (matchMedia, navigator.geolocation, Intl, navigator.language,
// devicePixelRatio, innerWidth, maxTouchPoints, navigator.userAgent), on
// the current tab, after a reload, in a tab opened afterwards, and gone
// again after reset.
func TestEmulateChromium(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/emulation.html")
	before := probe(e, id)
	if before["dark"] == true || before["print"] == true || before["dpr"] != 1.0 {
		t.Fatalf("the page starts emulated: %v", before)
	}
	phone, _ := devices.Lookup("iPhone 13")
	out := e.ok("emulate", map[string]any{"sessionId": id, "colorScheme": "dark", "reducedMotion": "reduce", "media": "print",
		"cpuThrottling": 2, "geolocation": map[string]any{"latitude": 48.8584, "longitude": 2.2945, "accuracy": 10},
		"timezone": "Asia/Tokyo", "locale": "de-DE", "device": "iPhone 13"})
	em, _ := out["emulation"].(map[string]any)
	if em["colorScheme"] != "dark" || em["device"] != "iPhone 13" || em["cpuThrottling"] != 2.0 || em["width"] != float64(phone.Viewport.Width) || em["timezone"] != "Asia/Tokyo" {
		t.Fatalf("emulate's state: %v", out)
	}
	if applied, _ := out["applied"].([]any); len(applied) != 8 {
		t.Fatalf("emulate applied %d fields, want the 8 given: %v", len(applied), out)
	}
	// A phone lays out a page without a viewport meta tag 980 px wide:
	// the answer says so, as a check of innerWidth would be puzzled.
	if msg := fmt.Sprint(out["applied"]); !strings.Contains(msg, "980 px wide") {
		t.Errorf("the device's applied text does not say a page without a viewport meta tag is 980 px wide: %s", msg)
	}
	e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/welcome.html"})
	if w := e.eval(id, "innerWidth"); w != 980.0 {
		t.Errorf("a page without a viewport meta tag on the phone: innerWidth %v, want 980 as the answer says", w)
	}
	e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/emulation.html"})
	check := func(where string) {
		t.Helper()
		p := probe(e, id)
		want := map[string]any{"dark": true, "reduce": true, "print": true, "timeZone": "Asia/Tokyo", "offset": tzOffset(t, "Asia/Tokyo"),
			"language": "de-DE", "dpr": phone.DeviceScaleFactor, "width": float64(phone.Viewport.Width), "userAgent": phone.UserAgent}
		for k, v := range want {
			if p[k] != v {
				t.Errorf("%s: the page sees %s = %v, want %v", where, k, p[k], v)
			}
		}
		if p["touch"].(float64) < 1 {
			t.Errorf("%s: navigator.maxTouchPoints = %v, want touch", where, p["touch"])
		}
		sent := e.ok("evaluate", map[string]any{"sessionId": id, "script": "Promise.all(['Accept-Language', 'User-Agent'].map(h => fetch('/headers?h=' + h).then(r => r.text())))"})["result"]
		if l, _ := sent.([]any); len(l) != 2 || !strings.Contains(l[0].(string), "<title>de-DE</title>") || !strings.Contains(l[1].(string), "<title>"+html.EscapeString(phone.UserAgent)+"</title>") {
			t.Errorf("%s: the server got the headers %v", where, sent)
		}
		if pos := position(e, id); pos["latitude"] != 48.8584 || pos["longitude"] != 2.2945 || pos["accuracy"] != 10.0 {
			t.Errorf("%s: navigator.geolocation gives %v", where, pos)
		}
	}
	check("after emulate")
	e.ok("reload", map[string]any{"sessionId": id})
	check("after a reload")
	e.ok("tabs", map[string]any{"sessionId": id, "action": "new", "url": site.URL + "/emulation.html"})
	check("in a tab opened after emulate")
	e.ok("tabs", map[string]any{"sessionId": id, "action": "select", "index": 0})

	// A resize keeps the rest.
	out = e.ok("emulate", map[string]any{"sessionId": id, "viewport": map[string]any{"width": 700, "height": 500}})
	if em, _ := out["emulation"].(map[string]any); em["width"] != 700.0 || em["height"] != 500.0 || em["colorScheme"] != "dark" {
		t.Fatalf("after a resize: %v", out)
	}
	if p := probe(e, id); p["width"] != 700.0 || p["height"] != 500.0 || p["dark"] != true || p["dpr"] != phone.DeviceScaleFactor {
		t.Fatalf("after a resize the page sees %v", p)
	}

	// Reset: back to the session's own settings, in every tab.
	out = e.ok("emulate", map[string]any{"sessionId": id, "reset": true, "cpuThrottling": 1})
	if em, _ := out["emulation"].(map[string]any); em["colorScheme"] != nil || em["device"] != nil || em["cpuThrottling"] != 1.0 || em["geolocation"] != nil {
		t.Fatalf("after reset: %v", out)
	}
	for _, tab := range []int{0, 1} {
		e.ok("tabs", map[string]any{"sessionId": id, "action": "select", "index": tab})
		p := probe(e, id)
		for _, k := range []string{"dark", "light", "reduce", "print", "timeZone", "offset", "language", "dpr", "width", "height", "touch", "userAgent"} {
			if p[k] != before[k] {
				t.Errorf("tab %d after reset: %s = %v, was %v before emulate", tab, k, p[k], before[k])
			}
		}
		if pos := position(e, id); pos["latitude"] != nil {
			t.Errorf("tab %d after reset: navigator.geolocation still gives %v", tab, pos)
		}
	}
	// Light, and no-preference for motion, are values too.
	e.ok("emulate", map[string]any{"sessionId": id, "colorScheme": "light", "reducedMotion": "no-preference", "media": "screen"})
	if p := probe(e, id); p["light"] != true || p["dark"] != false || p["reduce"] != false || p["print"] != false {
		t.Fatalf("light and screen: %v", p)
	}
}

// TestEmulateBadInput: what emulate refuses before it reaches a browser,
// on both engines, each naming its field.
func TestEmulateBadInput(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		id := e.open("/emulation.html")
		out := e.fail(engine.InvalidParameters, "emulate", map[string]any{"sessionId": id, "device": "iPhone 99x"})
		if field(out) != "device" || !strings.Contains(out["message"].(string), `did you mean "iPhone`) {
			t.Fatalf("unknown device: %v", out)
		}
		for _, c := range []struct {
			args  map[string]any
			field string
		}{
			{map[string]any{"timezone": "Mars/Olympus_Mons"}, "timezone"},
			{map[string]any{"timezone": "Local"}, "timezone"},
			{map[string]any{"cpuThrottling": 0}, "cpuThrottling"},
			{map[string]any{"cpuThrottling": 21}, "cpuThrottling"},
			{map[string]any{"geolocation": map[string]any{"latitude": 200, "longitude": 0}}, "geolocation.latitude"},
			{map[string]any{"geolocation": map[string]any{"latitude": 0, "longitude": -181}}, "geolocation.longitude"},
			{map[string]any{"locale": "not a locale"}, "locale"},
			{map[string]any{"colorScheme": "blue"}, "colorScheme"},
			{map[string]any{"viewport": map[string]any{"width": 0, "height": 600}}, "viewport.width"},
			{map[string]any{}, "colorScheme"},
		} {
			c.args["sessionId"] = id
			if out := e.fail(engine.InvalidParameters, "emulate", c.args); field(out) != c.field {
				t.Errorf("emulate(%v): field %v, want %s: %v", c.args, field(out), c.field, out)
			}
		}
		if p := probe(e, id); p["width"] != 1280.0 {
			t.Fatalf("a refused call changed the page: %v", p)
		}
	})
}

// TestEmulateFirefox: Firefox over Playwright's WebDriver BiDi resizes
// the viewport (in tabs opened later too, and back at reset) and answers
// UNSUPPORTED, naming the browser, for every other field, without applying
// the rest of the call.
func TestEmulateFirefox(t *testing.T) {
	e := newEnvOnWith(t, firefoxEngine(t), sessions.Config{}, tools.Options{Version: "test", Caps: []tools.Group{tools.Emulation}})
	id := e.open("/emulation.html")
	for _, args := range []map[string]any{
		{"colorScheme": "dark"}, {"reducedMotion": "reduce"}, {"media": "print"}, {"cpuThrottling": 4},
		{"geolocation": map[string]any{"latitude": 1, "longitude": 2}}, {"timezone": "Asia/Tokyo"}, {"locale": "de-DE"}, {"device": "Pixel 7"},
	} {
		var name string
		for k := range args {
			name = k
		}
		args["sessionId"] = id
		out := e.fail(engine.Unsupported, "emulate", args)
		d, _ := out["details"].(map[string]any)
		if d["field"] != name || d["browser"] != "firefox" || !strings.Contains(out["message"].(string), "firefox") {
			t.Errorf("emulate %s on Firefox: %v", name, out)
		}
	}
	out := e.fail(engine.Unsupported, "emulate", map[string]any{"sessionId": id, "viewport": map[string]any{"width": 600, "height": 400}, "colorScheme": "dark", "locale": "fr-FR"})
	if d, _ := out["details"].(map[string]any); !slices.Equal(anyStrings(d["fields"]), []string{"colorScheme", "locale"}) {
		t.Fatalf("the refusal names %v, want colorScheme and locale: %v", d["fields"], out)
	}
	if p := probe(e, id); p["width"] != 1280.0 {
		t.Fatalf("a refused call resized the page: %v", p)
	}

	out = e.ok("emulate", map[string]any{"sessionId": id, "viewport": map[string]any{"width": 600, "height": 400}})
	if em, _ := out["emulation"].(map[string]any); em["width"] != 600.0 || em["height"] != 400.0 {
		t.Fatalf("resize: %v", out)
	}
	if p := probe(e, id); p["width"] != 600.0 || p["height"] != 400.0 {
		t.Fatalf("after a resize the page sees %v", p)
	}
	e.ok("reload", map[string]any{"sessionId": id})
	if p := probe(e, id); p["width"] != 600.0 {
		t.Fatalf("after a reload the page sees %v", p)
	}
	e.ok("tabs", map[string]any{"sessionId": id, "action": "new", "url": site.URL + "/emulation.html"})
	if p := probe(e, id); p["width"] != 600.0 || p["height"] != 400.0 {
		t.Fatalf("a tab opened after emulate sees %v", p)
	}
	e.ok("emulate", map[string]any{"sessionId": id, "reset": true})
	if p := probe(e, id); p["width"] != 1280.0 || p["height"] != 720.0 {
		t.Fatalf("after reset the page sees %v", p)
	}
}

func anyStrings(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, s := range l {
		str, _ := s.(string)
		out = append(out, str)
	}
	return out
}

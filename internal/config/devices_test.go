package config

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/internal/devices"
)

// TestDeviceNamesArePlaywrights loads --device with names playwright-mcp
// users pass, and checks the settings each brings against the embedded
// descriptor.
func TestDeviceNamesArePlaywrights(t *testing.T) {
	for _, name := range []string{"iPhone 13", "iPhone 15 Pro Max", "Pixel 7", "Galaxy S9+", "iPad Mini", "Desktop Safari", "Kindle Fire HDX landscape"} {
		want, ok := devices.Lookup(name)
		if !ok {
			t.Fatalf("%q is not in devices.json", name)
		}
		cfg, err := Load([]string{"--device", name}, noEnv, io.Discard, "test")
		if err != nil {
			t.Fatalf("--device %q: %v", name, err)
		}
		vp, _ := parseViewport(cfg.Browser.Viewport)
		d := cfg.ManagerConfig().Defaults
		if vp != want.Viewport || d.Viewport != want.Viewport || d.UserAgent != want.UserAgent || d.DeviceScaleFactor != want.DeviceScaleFactor ||
			d.IsMobile != want.IsMobile || d.HasTouch != want.HasTouch {
			t.Errorf("--device %q: viewport %v, defaults %+v; want %+v", name, vp, d, want)
		}
	}
	if cfg, _ := Load([]string{"--device", "iPhone 13"}, noEnv, io.Discard, "test"); cfg.Browser.Viewport != "390x664" {
		t.Errorf("iPhone 13's viewport = %q, want Playwright's 390x664", cfg.Browser.Viewport)
	}
}

// TestUnknownDeviceSuggests checks that an unknown --device exits with a
// usage error naming the closest device names.
func TestUnknownDeviceSuggests(t *testing.T) {
	cases := []struct {
		name string
		want []string // among the suggestions
	}{
		{"iphone 13", []string{`"iPhone 13"`}},
		{"iPhone 99", []string{`"iPhone `}},
		{"Pixel", []string{`"Pixel 7"`, `"Pixel 5"`}},
		{"Galaxy S9", []string{`"Galaxy S9+"`}},
	}
	for _, c := range cases {
		_, err := Load([]string{"--device", c.name}, noEnv, io.Discard, "test")
		if !errors.Is(err, ErrUsage) {
			t.Fatalf("--device %q: err = %v, want a usage error", c.name, err)
		}
		msg := err.Error()
		if !strings.Contains(msg, "unknown device; closest: ") {
			t.Fatalf("--device %q: %v", c.name, msg)
		}
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("--device %q: the suggestions lack %s: %v", c.name, w, msg)
			}
		}
		list, _, _ := strings.Cut(strings.SplitN(msg, "closest: ", 2)[1], " (Playwright")
		if n := len(strings.Split(list, ", ")); n > 5 {
			t.Errorf("--device %q: %d suggestions, want at most 5: %s", c.name, n, list)
		}
	}
	_, err := Load([]string{"--device", "zzzzzzzzzzzzzzzzzzzzzzzzzzzz"}, noEnv, io.Discard, "test")
	if !errors.Is(err, ErrUsage) || strings.Contains(err.Error(), "closest") || !strings.Contains(err.Error(), "device names") {
		t.Errorf("a name like no device: %v", err)
	}
}

func noEnv(string) string { return "" }

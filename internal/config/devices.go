package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/seed4af8c199/browsermcp/engine"
)

// device is what --device emulates: the page size, the pixel ratio, touch,
// the mobile viewport and the user agent of a common device. The values
// are Playwright's device descriptors of the same names.
type device struct {
	viewport  engine.Viewport
	scale     float64
	mobile    bool
	touch     bool
	userAgent string
}

// devices are the names --device accepts (README lists them).
var devices = map[string]device{
	"iPhone 15": {engine.Viewport{Width: 393, Height: 659}, 3, true, true,
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1"},
	"iPhone SE": {engine.Viewport{Width: 320, Height: 568}, 2, true, true,
		"Mozilla/5.0 (iPhone; CPU iPhone OS 10_3_1 like Mac OS X) AppleWebKit/603.1.30 (KHTML, like Gecko) Version/10.0 Mobile/14E304 Safari/602.1"},
	"Pixel 7": {engine.Viewport{Width: 412, Height: 839}, 2.625, true, true,
		"Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"},
	"Galaxy S9+": {engine.Viewport{Width: 320, Height: 658}, 4.5, true, true,
		"Mozilla/5.0 (Linux; Android 8.0.0; SM-G965U Build/R16NW) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"},
	"iPad Mini": {engine.Viewport{Width: 768, Height: 1024}, 2, true, true,
		"Mozilla/5.0 (iPad; CPU OS 12_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/12.1 Mobile/15E148 Safari/604.1"},
	"Desktop Chrome": {engine.Viewport{Width: 1280, Height: 720}, 1, false, false,
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"},
	"Desktop Firefox": {engine.Viewport{Width: 1280, Height: 720}, 1, false, false,
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0"},
}

// deviceNames are the names of devices, sorted.
func deviceNames() []string {
	names := make([]string, 0, len(devices))
	for n := range devices {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func checkDevice(name string) error {
	if _, ok := devices[name]; name == "" || ok {
		return nil
	}
	return fmt.Errorf("unknown device; want one of %s", strings.Join(deviceNames(), ", "))
}

// Package devices is Playwright's table of device presets (a phone's
// viewport, pixel ratio, touch, mobile viewport and user agent), which the
// server's --device and the emulate tool both take by name.
package devices

import (
	_ "embed"
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/editdist"
)

// devicesJSON is Playwright's table of device descriptors, the same
// table playwright-mcp's --device reads, so that every name a
// playwright-mcp user knows works here with the same values. It is a
// verbatim copy of lib/server/deviceDescriptorsSource.json from the npm
// package playwright-core at Version, the driver version engine/pw
// pins; TestDevicesMatchPinnedDriver compares the two when the driver is
// present. To refresh it, copy that file from the new driver.
//
//go:embed devices.json
var devicesJSON []byte

// Version is the playwright-core version devices.json comes from.
const Version = "1.52.0"

// descriptor is one entry of devices.json.
type descriptor struct {
	UserAgent         string          `json:"userAgent"`
	Viewport          engine.Viewport `json:"viewport"`
	DeviceScaleFactor float64         `json:"deviceScaleFactor"`
	IsMobile          bool            `json:"isMobile"`
	HasTouch          bool            `json:"hasTouch"`
	// defaultBrowserType (the browser Playwright picks for the device) is
	// not read: --browser chooses the browser here.
}

// all parses devicesJSON once. It panics on a bad table: the file is
// part of the binary, so a bad one is a build mistake a test catches.
var all = sync.OnceValue(func() map[string]engine.Device {
	var raw map[string]descriptor
	if err := json.Unmarshal(devicesJSON, &raw); err != nil {
		panic("devices: devices.json: " + err.Error())
	}
	m := make(map[string]engine.Device, len(raw))
	for name, d := range raw {
		m[name] = engine.Device{Name: name, Viewport: d.Viewport, DeviceScaleFactor: d.DeviceScaleFactor, IsMobile: d.IsMobile,
			HasTouch: d.HasTouch, UserAgent: d.UserAgent}
	}
	return m
})

// Lookup returns the device of that name; names are Playwright's,
// matched exactly as Playwright does.
func Lookup(name string) (engine.Device, bool) {
	d, ok := all()[name]
	return d, ok
}

// Count is the number of devices in the table.
func Count() int { return len(all()) }

// Names are the names of the devices, sorted.
func Names() []string {
	names := make([]string, 0, len(all()))
	for n := range all() {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Closest are up to n device names nearest to name: first those that
// contain it or that it contains, ignoring case (nearest in length
// first), then the rest by edit distance, ignoring case, when it is at most
// half the name's length (a name that resembles nothing gets no
// suggestion).
func Closest(name string, n int) []string {
	want := strings.ToLower(strings.TrimSpace(name))
	if want == "" {
		return nil
	}
	type cand struct {
		name  string
		group int // 0: substring either way; 1: by edit distance
		dist  int
	}
	var cands []cand
	for _, dn := range Names() {
		lower := strings.ToLower(dn)
		switch {
		case strings.Contains(lower, want) || strings.Contains(want, lower):
			cands = append(cands, cand{dn, 0, abs(len(lower) - len(want))})
		default:
			if d := editdist.Distance(want, lower); d <= max(2, len(want)/2) {
				cands = append(cands, cand{dn, 1, d})
			}
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		if a.group != b.group {
			return a.group - b.group
		}
		return a.dist - b.dist
	})
	var out []string
	for _, c := range cands[:min(n, len(cands))] {
		out = append(out, c.name)
	}
	return out
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

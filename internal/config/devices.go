package config

import (
	_ "embed"
	"encoding/json"
	"fmt"
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
// package playwright-core at DevicesVersion, the driver version engine/pw
// pins; TestDevicesMatchPinnedDriver compares the two when the driver is
// present. To refresh it, copy that file from the new driver.
//
//go:embed devices.json
var devicesJSON []byte

// DevicesVersion is the playwright-core version devices.json comes from.
const DevicesVersion = "1.52.0"

// device is what --device emulates: the page size, the pixel ratio, touch,
// the mobile viewport and the user agent of a device, as Playwright's
// descriptor of that name gives them.
type device struct {
	viewport  engine.Viewport
	scale     float64
	mobile    bool
	touch     bool
	userAgent string
}

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

// allDevices parses devicesJSON once. It panics on a bad table: the file
// is part of the binary, so a bad one is a build mistake a test catches.
var allDevices = sync.OnceValue(func() map[string]device {
	var raw map[string]descriptor
	if err := json.Unmarshal(devicesJSON, &raw); err != nil {
		panic("config: devices.json: " + err.Error())
	}
	m := make(map[string]device, len(raw))
	for name, d := range raw {
		m[name] = device{viewport: d.Viewport, scale: d.DeviceScaleFactor, mobile: d.IsMobile, touch: d.HasTouch,
			userAgent: d.UserAgent}
	}
	return m
})

// lookupDevice returns the device of that name; names are Playwright's,
// matched exactly as Playwright does.
func lookupDevice(name string) (device, bool) {
	d, ok := allDevices()[name]
	return d, ok
}

// deviceNames are the names of the devices, sorted.
func deviceNames() []string {
	names := make([]string, 0, len(allDevices()))
	for n := range allDevices() {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func checkDevice(name string) error {
	if _, ok := lookupDevice(name); name == "" || ok {
		return nil
	}
	near := closestDevices(name, 5)
	if len(near) == 0 {
		return fmt.Errorf("unknown device (it must be one of Playwright %s's %d device names; see README)", DevicesVersion, len(allDevices()))
	}
	return fmt.Errorf("unknown device; closest: %s (Playwright %s's %d device names are accepted; see README)",
		strings.Join(quoteAll(near), ", "), DevicesVersion, len(allDevices()))
}

func quoteAll(s []string) []string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = fmt.Sprintf("%q", v)
	}
	return q
}

// closestDevices are up to n device names nearest to name: first those
// that contain it or that it contains, ignoring case (nearest in length
// first), then the rest by edit distance, ignoring case, when it is at most
// half the name's length (a name that resembles nothing gets no
// suggestion).
func closestDevices(name string, n int) []string {
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
	for _, dn := range deviceNames() {
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

package cdp

import (
	"fmt"
	"os"
	"strings"

	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
)

// flag is one command-line switch of the browser: true is a bare switch,
// a string its value.
type flag struct {
	name  string
	value any
}

// ourFlags are the switches every browser we drive gets beyond chromedp's
// defaults, whether this engine launches it or a Selenium Grid node does
// (BrowserArgs).
var ourFlags = []flag{
	{"disable-background-networking", true},
	{"disable-component-update", true},
	{"disable-sync", true},
	{"no-first-run", true},
	{"disable-features", strings.Join(disabledFeatures, ",")},
	{"disable-quic", true},
	// Snapshots read roles and names from Chromium's accessibility
	// engine through Element.computedRole and computedName.
	{"enable-blink-features", "ComputedAccessibilityInfo"},
	{"no-service-autorun", true},
	{"password-store", "basic"},
}

// remoteFlags are those of chromedp's defaults that matter for a browser
// another program launches (a Grid node's chromedriver adds the rest, such
// as --enable-automation): background tabs of other sessions must not be
// throttled.
var remoteFlags = []flag{
	{"disable-background-timer-throttling", true},
	{"disable-backgrounding-occluded-windows", true},
	{"disable-renderer-backgrounding", true},
	{"disable-dev-shm-usage", true},
	{"disable-hang-monitor", true},
	{"disable-ipc-flooding-protection", true},
	{"disable-popup-blocking", true},
	{"hide-scrollbars", true},
	{"mute-audio", true},
}

func (f flag) arg() string {
	if f.value == true {
		return "--" + f.name
	}
	return fmt.Sprintf("--%s=%v", f.name, f.value)
}

// BrowserArgs are the command-line switches for a Chromium that another
// program starts for us, such as a Selenium Grid node: the ones this engine
// launches its own browser with, one merged --disable-features included.
// Sandboxing is off when this process runs as root, as for a local launch.
func BrowserArgs(headless bool, vp engine.Viewport) []string {
	var args []string
	for _, f := range append(append([]flag{}, ourFlags...), remoteFlags...) {
		args = append(args, f.arg())
	}
	if vp.Width > 0 && vp.Height > 0 {
		args = append(args, fmt.Sprintf("--window-size=%d,%d", vp.Width, vp.Height))
	}
	if headless {
		args = append(args, "--headless=new")
	}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	return args
}

// execFlags are ourFlags as options of chromedp's exec allocator.
func execFlags() []chromedp.ExecAllocatorOption {
	var opts []chromedp.ExecAllocatorOption
	for _, f := range ourFlags {
		opts = append(opts, chromedp.Flag(f.name, f.value))
	}
	return opts
}

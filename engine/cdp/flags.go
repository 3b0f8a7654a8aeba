package cdp

import (
	"fmt"
	"os"
	"slices"
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

// refusedArgs are the switches a user's extra arguments may not set
// (--browser-arg), with why: we own them, and sessions break without ours.
var refusedArgs = map[string]string{
	"remote-debugging-port":    "the server drives the browser over its own DevTools connection",
	"remote-debugging-pipe":    "the server drives the browser over its own DevTools connection",
	"remote-debugging-address": "the server drives the browser over its own DevTools connection",
	"user-data-dir":            "each browser gets its own profile, removed when it exits; use the server's --user-data-dir for a persistent one",
	"headless":                 "use --headless",
}

// listArgs are the switches whose value is a comma-separated list: Chromium
// honours only the last occurrence, so a user's value is merged into ours.
var listArgs = []string{"disable-features", "enable-features", "enable-blink-features", "disable-blink-features"}

// ParseArgs checks extra browser switches (--browser-arg) and returns them
// as "--name[=value]". Each must start with "--"; an entry without one
// continues the list of the previous switch, so that a comma-separated
// environment variable can carry --disable-features=A,B. The switches the
// server owns (refusedArgs) are refused with the reason.
func ParseArgs(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		a = strings.TrimSpace(a)
		if !strings.HasPrefix(a, "--") {
			if n := len(out); n > 0 && strings.Contains(out[n-1], "=") && a != "" && !strings.HasPrefix(a, "-") {
				out[n-1] += "," + a
				continue
			}
			return nil, fmt.Errorf("%q is not a browser switch: want --name or --name=value", a)
		}
		name, _, _ := strings.Cut(a[2:], "=")
		if name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("%q is not a browser switch: want --name or --name=value", a)
		}
		if why, ok := refusedArgs[name]; ok {
			return nil, fmt.Errorf("--%s cannot be set: %s", name, why)
		}
		out = append(out, a)
	}
	return out, nil
}

// mergeFlags is base with the extra switches (checked by ParseArgs): a
// list switch base has gains the extra's items, any other switch base has
// takes the extra's value, and the rest are appended.
func mergeFlags(base []flag, extra []string) []flag {
	out := slices.Clone(base)
	for _, a := range extra {
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		f := flag{name, any(true)}
		if hasValue {
			f.value = value
		}
		i := slices.IndexFunc(out, func(g flag) bool { return g.name == name })
		switch {
		case i < 0:
			out = append(out, f)
		case slices.Contains(listArgs, name) && hasValue:
			items := strings.Split(fmt.Sprint(out[i].value), ",")
			for _, it := range strings.Split(value, ",") {
				if it != "" && !slices.Contains(items, it) {
					items = append(items, it)
				}
			}
			out[i].value = strings.Join(items, ",")
		default:
			out[i] = f
		}
	}
	return out
}

// BrowserArgs are the command-line switches for a Chromium that another
// program starts for us, such as a Selenium Grid node: the ones this engine
// launches its own browser with, one merged --disable-features included,
// and the user's extra switches (ParseArgs) merged into them. Sandboxing is
// off when this process runs as root, as for a local launch.
func BrowserArgs(headless bool, vp engine.Viewport, extra []string) []string {
	var args []string
	for _, f := range mergeFlags(append(slices.Clone(ourFlags), remoteFlags...), extra) {
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

// execFlags are ourFlags, with the user's extra switches merged in, as
// options of chromedp's exec allocator.
func execFlags(extra []string) []chromedp.ExecAllocatorOption {
	var opts []chromedp.ExecAllocatorOption
	for _, f := range mergeFlags(ourFlags, extra) {
		opts = append(opts, chromedp.Flag(f.name, f.value))
	}
	return opts
}

package cdp_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/cdp"
)

// TestBrowserArgsMerge checks how a user's switches join ours: a list
// switch such as --disable-features gains the user's items and stays one
// switch (Chromium honours only the last), another of ours takes the user's
// value, a new one is appended, and an environment variable's comma-split
// list is put back together.
func TestBrowserArgsMerge(t *testing.T) {
	extra, err := cdp.ParseArgs([]string{"--disable-features=A", "B", "--password-store=gnome", "--force-dark-mode"})
	if err != nil {
		t.Fatal(err)
	}
	args := cdp.BrowserArgs(true, engine.Viewport{Width: 800, Height: 600}, extra)
	var features []string
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--disable-features="); ok {
			features = append(features, v)
		}
	}
	if len(features) != 1 || !slices.Contains(strings.Split(features[0], ","), "Translate") || !strings.HasSuffix(features[0], ",A,B") {
		t.Fatalf("--disable-features = %q, want one with ours, then A,B", features)
	}
	for _, want := range []string{"--password-store=gnome", "--force-dark-mode", "--headless=new"} {
		if !slices.Contains(args, want) {
			t.Errorf("args lack %s: %q", want, args)
		}
	}
	if slices.Contains(args, "--password-store=basic") {
		t.Errorf("ours --password-store=basic kept beside the user's: %q", args)
	}

	for _, bad := range []string{"--remote-debugging-port=0", "--remote-debugging-pipe", "--user-data-dir=/x", "--headless", "lang=fr", "--", "-x"} {
		if _, err := cdp.ParseArgs([]string{bad}); err == nil {
			t.Errorf("ParseArgs(%q) accepted it", bad)
		}
	}
}

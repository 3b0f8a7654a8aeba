package devices

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// TestDevicesMatchPinnedDriver checks that the embedded table is the one
// of the Playwright driver engine/pw pins, when that driver is present.
func TestDevicesMatchPinnedDriver(t *testing.T) {
	dir := os.Getenv("PLAYWRIGHT_DRIVER_PATH")
	if dir == "" {
		dir = testenv.PlaywrightDriverDir()
	}
	pkg, err := os.ReadFile(filepath.Join(dir, "package", "package.json"))
	if err != nil {
		t.Skipf("no Playwright driver to compare with: %v", err)
	}
	var meta struct{ Version string }
	if err := json.Unmarshal(pkg, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Version != Version {
		t.Fatalf("the driver in %s is playwright-core %s; devices.json is from %s: refresh it", dir, meta.Version, Version)
	}
	theirs, err := os.ReadFile(filepath.Join(dir, "package", "lib", "server", "deviceDescriptorsSource.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(theirs, devicesJSON) {
		t.Fatalf("devices.json differs from %s's lib/server/deviceDescriptorsSource.json: copy it again", dir)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(theirs, &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw) != len(all()) || len(raw) < 100 {
		t.Fatalf("%d devices parsed, the file has %d", len(all()), len(raw))
	}
}

// TestLookupAndClosest: a name is Playwright's, exactly; a near miss gets
// the closest names.
func TestLookupAndClosest(t *testing.T) {
	d, ok := Lookup("iPhone 13")
	if !ok || d.Name != "iPhone 13" || d.Viewport.Width != 390 || d.DeviceScaleFactor != 3 || !d.IsMobile || !d.HasTouch || d.UserAgent == "" {
		t.Fatalf("iPhone 13 = %+v, %v", d, ok)
	}
	if _, ok := Lookup("iphone 13"); ok {
		t.Fatal("names match exactly, as in Playwright")
	}
	if near := Closest("iphone 13", 5); !slices.Contains(near, "iPhone 13") {
		t.Fatalf("Closest(iphone 13) = %q", near)
	}
	if near := Closest("zzzzzzzzzzzzzzzzzzzz", 5); len(near) != 0 {
		t.Fatalf("a name like no device got %q", near)
	}
	if n := Names(); len(n) != Count() || !slices.IsSorted(n) {
		t.Fatalf("Names: %d names, sorted %v; Count %d", len(n), slices.IsSorted(n), Count())
	}
}

package main

import (
	"testing"

	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// TestEmulateOverStdio drives emulate of --caps emulation on the built
// binary: a dark colour scheme and a resize, as the page reads them, a
// refusal naming its field, and reset.
func TestEmulateOverStdio(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := startBinary(t, "--caps", "emulation")
	s.ok("navigate", map[string]any{"url": site.URL + "/emulation.html"})
	read := func() map[string]any {
		t.Helper()
		p, _ := s.ok("evaluate", map[string]any{"script": "probe()"})["result"].(map[string]any)
		return p
	}
	before := read()
	out := s.ok("emulate", map[string]any{"colorScheme": "dark", "viewport": map[string]any{"width": 500, "height": 400}})
	if em, _ := out["emulation"].(map[string]any); em["colorScheme"] != "dark" || em["width"] != 500.0 {
		t.Fatalf("emulate = %v", out)
	}
	if p := read(); p["dark"] != true || p["width"] != 500.0 || p["height"] != 400.0 {
		t.Fatalf("the page sees %v", p)
	}
	if e := s.fail("emulate", map[string]any{"timezone": "Nowhere/Special"}); e["errorCode"] != "INVALID_PARAMETERS" {
		t.Fatalf("a bad timezone: %v", e)
	}
	s.ok("emulate", map[string]any{"reset": true})
	if p := read(); p["dark"] != before["dark"] || p["width"] != before["width"] {
		t.Fatalf("after reset the page sees %v, before %v", p, before)
	}
}

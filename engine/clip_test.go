package engine_test

import (
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Clip cuts at a rune boundary and marks the cut; a short string stays.
func TestClipKeepsUTF8(t *testing.T) {
	if got := engine.Clip("aé", 2); got != "a…" {
		t.Errorf("Clip split a rune: %q", got)
	}
	if got := engine.Clip("abc", 3); got != "abc" {
		t.Errorf("Clip changed a short string: %q", got)
	}
	if got := engine.Clip("abcd", 3); got != "abc…" {
		t.Errorf("Clip(abcd, 3) = %q", got)
	}
}

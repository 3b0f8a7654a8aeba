package cli

import "testing"

// TestClosest: a typo of a command names the command meant; a word near
// no command names none.
func TestClosest(t *testing.T) {
	for in, want := range map[string]string{"clck": "click", "snapshto": "snapshot", "get_txt": "get_text", "Open": "open", "frobnicate": ""} {
		if got := closest(in); got != want {
			t.Errorf("closest(%q) = %q, want %q", in, got, want)
		}
	}
}

package editdist

import (
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"iphone 13", "iphone 12", 1},
		{"selector", "selectr", 1},
		{"kitten", "sitting", 3},
		{strings.Repeat("a", 300), "a", 300},
	} {
		if got := Distance(c.a, c.b); got != c.want {
			t.Errorf("Distance(%.20q, %.20q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

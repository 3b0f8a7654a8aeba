package estimate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/internal/tokens"
	"github.com/seed4af8c199/browsermcp/internal/tokens/estimate"
)

// TestEstimateNearExact holds the estimate between 0.9 and 1.2 times the exact o200k
// count on every pinned outline of the test site, (over, not under: it caps answers), line by line summed as
// the action results' cap sums them.
func TestEstimateNearExact(t *testing.T) {
	files, err := filepath.Glob("../../../testdata/golden/snapshot/*.txt")
	if err != nil || len(files) < 5 {
		t.Fatalf("golden outlines: %v %v", files, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		exact, est := 0, 0
		for _, l := range strings.Split(string(b), "\n") {
			n, err := tokens.O200k(l)
			if err != nil {
				t.Fatal(err)
			}
			exact += n + 1
			est += estimate.O200k(l) + 1
		}
		if r := float64(est) / float64(exact); r < 0.9 || r > 1.2 {
			t.Errorf("%s: estimate %d, exact %d (%.2f)", filepath.Base(f), est, exact, r)
		}
	}
}

func TestEstimateEdges(t *testing.T) {
	for s, want := range map[string]int{
		"":                  0,
		"   ":               0,
		"- button":          2,
		"[ref=e12]":         6, // [ ref = e 12 ]
		"1234567":           3,
		"éé":                2,
		"abcdefghijklmnopq": 3,
	} {
		if got := estimate.O200k(s); got != want {
			t.Errorf("O200k(%q) = %d, want %d", s, got, want)
		}
	}
}

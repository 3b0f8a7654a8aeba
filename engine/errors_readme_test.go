package engine

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeErrorCodes fails when a code has no row in README.md's table
// of error codes: agents branch on codes, so every one is documented.
func TestReadmeErrorCodes(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for c := range codeInfo {
		if !strings.Contains(readme, "| `"+string(c)+"` |") && !strings.Contains(readme, "`"+string(c)+"` / `") && !strings.Contains(readme, "/ `"+string(c)+"` |") {
			t.Errorf("README.md's table of error codes has no row for %s", c)
		}
	}
}

package tools_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// TestScriptsEmbedded keeps tools/js/ and the go:embed lines in step: every
// script there is embedded by some file of the package, and nothing else
// lies about in the directory unused.
func TestScriptsEmbedded(t *testing.T) {
	sources, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	embed := regexp.MustCompile(`(?m)^\s*//go:embed js/(\S+)$`)
	var embedded []string
	for _, f := range sources {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range embed.FindAllSubmatch(b, -1) {
			embedded = append(embedded, string(m[1]))
		}
	}
	entries, err := os.ReadDir("js")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !slices.Contains(embedded, e.Name()) {
			t.Errorf("js/%s is embedded by no file of package tools", e.Name())
		}
	}
	if len(embedded) != len(entries) {
		t.Errorf("%d go:embed lines for %d scripts in js/: one script is embedded twice", len(embedded), len(entries))
	}
}

// TestScriptsOnlyRead keeps the scripts that act in one home: the scripts
// under tools/js only read the page. A script that acts (fires events,
// scrolls, focuses, clicks, sets a value) is an engine call with its
// script in engine/page/js, which settles and reports what it caused.
func TestScriptsOnlyRead(t *testing.T) {
	acts := regexp.MustCompile(`dispatchEvent|scrollBy|scrollTo|scrollIntoView|\.focus\(|\.click\(|\.(value|checked|selected|textContent|innerText)\s*=[^=]`)
	entries, err := os.ReadDir("js")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("js", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if m := acts.Find(b); m != nil {
			t.Errorf("js/%s acts on the page (%s): make it an engine call, its script in engine/page/js", e.Name(), m)
		}
	}
}

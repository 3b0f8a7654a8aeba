package cli

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/seed4af8c199/browsermcp/tools"
)

var update = flag.Bool("update", false, "rewrite catalog.json from the tool registry")

// TestCatalogIsCurrent holds catalog.json, from which the commands are
// built, to the tool registry: a tool added, removed or changed there is
// a failure here until -update rewrites the catalog.
func TestCatalogIsCurrent(t *testing.T) {
	want, err := catalogOf(tools.Definitions())
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	if *update {
		if err := os.WriteFile("catalog.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(catalogJSON, want) {
		t.Fatal("internal/cli/catalog.json is stale: run go test ./internal/cli -run TestCatalogIsCurrent -update")
	}
}

package engine_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// module is the import path of this repository's module.
const module = "github.com/seed4af8c199/browsermcp"

// imports reads the module's packages (their non-test files) under root and
// returns, by directory relative to root, the module packages each one
// imports directly.
func imports(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			return err
		}
		dir = filepath.ToSlash(dir)
		if _, ok := out[dir]; !ok {
			out[dir] = nil
		}
		for _, s := range f.Imports {
			ip := strings.Trim(s.Path.Value, `"`)
			if rel, ok := strings.CutPrefix(ip, module+"/"); ok && !slices.Contains(out[dir], rel) {
				out[dir] = append(out[dir], rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// deps is every module package pkg reaches through its imports.
func deps(graph map[string][]string, pkg string) map[string]bool {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		for _, q := range graph[p] {
			if !seen[q] {
				seen[q] = true
				walk(q)
			}
		}
	}
	walk(pkg)
	return seen
}

// TestLayoutByOwner keeps the packages to what they own
// (docs/decisions/2026-11-27-layout-by-owner.md): engine is the contract and
// imports no other package of ours; engine/kit, the backends' toolkit,
// imports only engine; the tools and the session runtime reach no backend
// and not the toolkit; engine/cdp and engine/pw never reach each other; the
// conformance suite reaches no backend.
func TestLayoutByOwner(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	graph := imports(t, root)
	for _, p := range []string{"engine", "engine/kit", "engine/cdp", "engine/pw", "engine/grid", "engine/enginetest", "internal/sessions", "tools"} {
		if _, ok := graph[p]; !ok {
			t.Fatalf("no package %s under %s", p, root)
		}
	}
	backends := []string{"engine/cdp", "engine/pw", "engine/grid"}
	for _, tc := range []struct {
		pkg     string
		allowed func(dep string) bool
		why     string
	}{
		{"engine", func(string) bool { return false }, "the contract imports no package of ours"},
		{"engine/kit", func(d string) bool { return d == "engine" }, "the toolkit imports only the contract"},
		{"engine/cdp", func(d string) bool { return d != "engine/pw" && d != "engine/grid" }, "backends stand side by side"},
		{"engine/pw", func(d string) bool { return d != "engine/cdp" && d != "engine/grid" }, "backends stand side by side"},
		{"engine/enginetest", func(d string) bool { return !slices.Contains(backends, d) }, "the conformance suite links no backend"},
		{"internal/sessions", func(d string) bool { return d != "engine/kit" && d != "tools" && !slices.Contains(backends, d) }, "the session runtime works on the contract alone"},
		{"tools", func(d string) bool { return d != "engine/kit" && !slices.Contains(backends, d) }, "tools work on the contract and the session runtime"},
	} {
		for d := range deps(graph, tc.pkg) {
			if !tc.allowed(d) {
				t.Errorf("%s reaches %s: %s", tc.pkg, path.Clean(d), tc.why)
			}
		}
	}
}

package tools

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestToolFiles holds the package doc's list of which file defines which
// tools to the code: each registered tool is listed once, under the file
// that holds the constructor its registry() line calls.
func TestToolFiles(t *testing.T) {
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	funcFile := map[string]string{} // top-level function -> file
	var reg *ast.FuncDecl
	var doc *ast.CommentGroup
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if p == "doc.go" {
			doc = f.Doc
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				funcFile[fd.Name.Name] = p
				if fd.Name.Name == "registry" {
					reg = fd
				}
			}
		}
	}
	if reg == nil || doc == nil {
		t.Fatal("registry() or the package doc in doc.go not found")
	}

	// The constructor of each registry line is the innermost call: in
	// long(navigate(d)) or turnOn(d, "", contextCreate(d)), the last
	// argument that is itself a call is unwrapped.
	var ctors []string
	ast.Inspect(reg.Body, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		for _, e := range lit.Elts {
			ctors = append(ctors, constructor(t, e))
		}
		return false
	})
	ts := Tools(&Deps{})
	if len(ts) != len(ctors) {
		t.Fatalf("registry() has %d lines, Tools returns %d tools", len(ctors), len(ts))
	}

	listed := map[string]string{} // tool -> file the doc names
	for _, line := range strings.Split(doc.Text(), "\n") {
		fs := strings.Fields(line)
		if !strings.HasPrefix(line, "\t") || len(fs) < 2 || !strings.HasSuffix(fs[0], ".go") {
			continue
		}
		if strings.HasPrefix(fs[0], "server_") {
			t.Errorf("doc.go lists tools in %s; server_*.go files hold the server's features beyond tools", fs[0])
		}
		for _, name := range fs[1:] {
			if f, dup := listed[name]; dup {
				t.Errorf("doc.go lists %s twice (%s and %s)", name, f, fs[0])
			}
			listed[name] = fs[0]
		}
	}
	for i, tl := range ts {
		name, ctor := tl.Def.Name, ctors[i]
		got, ok := funcFile[ctor]
		if !ok {
			t.Errorf("%s: constructor %s not found", name, ctor)
			continue
		}
		want, ok := listed[name]
		delete(listed, name)
		switch {
		case !ok:
			t.Errorf("%s (%s in %s) is missing from doc.go's list of tool files", name, ctor, got)
		case got != want:
			t.Errorf("%s: doc.go says %s, but its constructor %s is in %s", name, want, ctor, got)
		}
	}
	for name, f := range listed {
		t.Errorf("doc.go lists %s under %s, but no such tool is registered", name, f)
	}
}

// constructor names the function a registry line calls with d alone.
func constructor(t *testing.T, e ast.Expr) string {
	call, ok := e.(*ast.CallExpr)
	if !ok {
		t.Fatalf("registry line %T is not a call", e)
	}
	for i := len(call.Args) - 1; i >= 0; i-- {
		if _, ok := call.Args[i].(*ast.CallExpr); ok {
			return constructor(t, call.Args[i])
		}
	}
	id, ok := call.Fun.(*ast.Ident)
	if !ok {
		t.Fatalf("registry line calls %T, not a function by name", call.Fun)
	}
	return id.Name
}

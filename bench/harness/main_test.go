package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFind holds each server's line format to the lines it prints (taken
// from their answers on the login page), and the agent's rule for the nth
// element of a name.
func TestFind(t *testing.T) {
	cases := []struct {
		server, text string
		t            target
		want         string
	}{
		{"ours", "- textbox \"Username\" [ref=e3]\n- button \"Sign in\" [ref=e5]", button("Sign in"), "e5"},
		{"ours", "+ - button \"Hide release history\" [expanded] [ref=e9]", button("Hide release history"), "e9"},
		{"ours", "- button \"Add to cart\" [ref=e4]\n- button \"Add to cart\" [ref=e7]", target{"button", "Add to cart", 2}, "e7"},
		{"ours", "- button \"Add to cart\" [ref=e4]", target{"button", "Add to cart", 2}, ""},
		{"playwright-mcp", "  - textbox \"Username\" [active] [ref=e6]", textbox("Username"), "e6"},
		{"playwright-mcp", "- link \"Firefox 3.5 release notes\" [ref=e12] [cursor=pointer]:", target{"link", "Firefox 3.5 release notes", 1}, "e12"},
		{"chrome-devtools-mcp", "      uid=1_14 button \"Sign in\" focusable focused", button("Sign in"), "1_14"},
		{"chrome-devtools-mcp", "uid=1_5 textbox \"Username\" value=\"probe\"", textbox("Username"), "1_5"},
		{"agent-browser", "- button \"Sign in\" [ref=e6]", button("Sign in"), "e6"},
		{"agent-browser", "- button \"Show release history\" [expanded=false, ref=e2]", button("Show release history"), "e2"},
		{"agent-browser", "- button \"Sign in later\" [ref=e6]", button("Sign in"), ""},
	}
	for _, c := range cases {
		a := newAgent(byName(c.server), nil, time.Second)
		if got := a.find(c.text, c.t); got != c.want {
			t.Errorf("%s: find(%s) in %q = %q, want %q", c.server, c.t, c.text, got, c.want)
		}
	}
}

func TestReplaceSection(t *testing.T) {
	doc := "# Benchmarks\n\nintro\n\n## Headline\n\nrows\n"
	once, err := replaceSection(doc, "tasks", "## Tokens per task\n\nA\n")
	if err != nil {
		t.Fatal(err)
	}
	tb, te := marks("tasks")
	want := "# Benchmarks\n\nintro\n\n" + tb + "\n## Tokens per task\n\nA\n" + te + "\n\n## Headline\n\nrows\n"
	if once != want {
		t.Fatalf("first write:\n%s\nwant:\n%s", once, want)
	}
	twice, err := replaceSection(once, "tasks", "## Tokens per task\n\nB\n")
	if err != nil {
		t.Fatal(err)
	}
	if twice != strings.Replace(want, "\nA\n", "\nB\n", 1) {
		t.Fatalf("second write:\n%s", twice)
	}
	// A second section goes after the first.
	both, err := replaceSection(twice, "steps", "## Steps\n")
	if err != nil {
		t.Fatal(err)
	}
	sb, se := marks("steps")
	if !strings.Contains(both, te+"\n\n"+sb+"\n## Steps\n"+se+"\n\n## Headline") {
		t.Fatalf("second section:\n%s", both)
	}
	if _, err := replaceSection(tb+"\n", "tasks", "x"); err == nil {
		t.Fatal("a document with one mark was rewritten")
	}
}

// TestSite serves every task's page with the large pages spliced in, and
// records what a page reports.
func TestSite(t *testing.T) {
	st, err := newSite("../..")
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	for _, tk := range tasks {
		resp, err := http.Get(st.url(tk.page, "r1"))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		src, err := os.ReadFile(filepath.Join("../site", tk.page))
		if err != nil {
			t.Fatal(err)
		}
		spliced := !strings.Contains(string(src), "<!--#include") || len(b) > len(src)+30000
		if resp.StatusCode != http.StatusOK || strings.Contains(string(b), "<!--#include") || !spliced {
			t.Errorf("%s: status %d, %d bytes from %d, include left: %v", tk.page, resp.StatusCode, len(b), len(src), strings.Contains(string(b), "<!--#include"))
		}
	}
	resp, err := http.Get(st.base + "/task/px.gif")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("px.gif beside the task pages: %v %v", resp, err)
	}
	resp.Body.Close()
	if _, err := http.Get(st.base + "/event?run=r1&e=signed-in:ann"); err != nil {
		t.Fatal(err)
	}
	if ok, got := st.reported("r1", "signed-in:ann", time.Second); !ok {
		t.Errorf("events of r1 = %q", got)
	}
	if ok, _ := st.reported("r2", "signed-in:ann", 0); ok {
		t.Error("an event of r1 counted for r2")
	}
}

// TestPeersPinned keeps the peers at exact versions: a range would let
// two clones of the repository measure different servers.
func TestPeersPinned(t *testing.T) {
	var pkg, lock struct {
		Dependencies map[string]string
		Packages     map[string]struct{ Version string }
	}
	for file, v := range map[string]any{"package.json": &pkg, "package-lock.json": &lock} {
		b, err := os.ReadFile(filepath.Join("../peers", file))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"@playwright/mcp", "chrome-devtools-mcp", "agent-browser"} {
		v := pkg.Dependencies[name]
		if v == "" || strings.ContainsAny(v, "^~<>*x ") {
			t.Errorf("package.json: %s %q is not an exact version", name, v)
		}
		if got := lock.Packages["node_modules/"+name].Version; got != v {
			t.Errorf("package-lock.json: %s %q, package.json %q", name, got, v)
		}
	}
}

// TestLocateNth takes the second of a name only from a text that lists
// the page in order: an action's result that shows one "Add to cart"
// (another product's, which changed) says nothing of which is the second.
func TestLocateNth(t *testing.T) {
	a := newAgent(ours(), nil, time.Second)
	a.view = []seen{
		{"- button \"Add to cart\" [ref=e4]\n- button \"Add to cart\" [ref=e7]\n- button \"Add to cart\" [ref=e9]", true},
		{"- button \"Add to cart\" [ref=e9] [pressed]\n- button \"Add to cart\" [ref=e11]", false},
	}
	a.lastResult = a.view[1].text
	ref, err := a.locate(context.Background(), target{"button", "Add to cart", 2})
	if err != nil || ref != "e7" {
		t.Fatalf("second Add to cart = %q, %v; want e7", ref, err)
	}
	ref, err = a.locate(context.Background(), button("Add to cart"))
	if err != nil || ref != "e9" {
		t.Fatalf("first Add to cart = %q, %v; want e9, from the last result", ref, err)
	}
}

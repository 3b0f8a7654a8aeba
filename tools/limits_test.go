package tools_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/tools"
)

// limitsTable renders every argument's bound as README.md's table shows it:
// one row per argument name and bound, with the tools that take it; string
// arguments at the default size share one row.
func limitsTable() string {
	type key struct {
		field, bound string
	}
	rows := map[key][]string{}
	for _, tl := range tools.Tools(&tools.Deps{Sessions: sessions.New(nil, sessions.Config{})}) {
		for _, l := range tl.Limits() {
			k := key{"`" + l.Field + "`", fmt.Sprintf("≤ %d bytes", l.MaxBytes)}
			if l.Number {
				k.bound = strconv.FormatFloat(l.Min, 'f', -1, 64) + "–" + strconv.FormatFloat(l.Max, 'f', -1, 64)
			} else if l.MaxBytes == tools.DefaultMaxString {
				k.field = "every other string"
			}
			if !slices.Contains(rows[k], tl.Def.Name) {
				rows[k] = append(rows[k], tl.Def.Name)
			}
		}
	}
	var lines []string
	for k, ts := range rows {
		list := strings.Join(ts, ", ")
		if k.field == "every other string" {
			list = "all"
		}
		lines = append(lines, fmt.Sprintf("| %s | %s | %s |", k.field, k.bound, list))
	}
	slices.Sort(lines)
	return "| Argument | Limit | Tools |\n|---|---|---|\n" + strings.Join(lines, "\n") + "\n"
}

// TestReadmeLimits fails when README.md's table of argument limits and the
// tags the adapter checks differ; -update rewrites the table.
func TestReadmeLimits(t *testing.T) {
	const begin, end = "<!-- limits -->\n", "<!-- /limits -->"
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	i, j := strings.Index(readme, begin), strings.Index(readme, end)
	if i < 0 || j < i {
		t.Fatalf("README.md has no %q … %q section", begin, end)
	}
	want := limitsTable()
	if got := readme[i+len(begin) : j]; got != want {
		if *update {
			if err := os.WriteFile("../README.md", []byte(readme[:i+len(begin)]+want+readme[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("README.md's table of limits is stale; rerun with -update. Want:\n%s", want)
	}
}

package page

import (
	_ "embed"
	"strings"
)

//go:embed js/query.js
var queryJS string

// queryFn is js/query.js without its leading comment: a function expression
// (kind, sel, all) that the other scripts embed where they say __QUERY__.
var queryFn = func() string {
	s := queryJS
	for strings.HasPrefix(s, "//") {
		_, s, _ = strings.Cut(s, "\n")
	}
	return strings.TrimSpace(s)
}()

// QueryScript returns js/query.js, the in-page function (kind, sel, all)
// that finds the first element (or with all, every element) a selector
// names: kind "css" pierces open shadow roots as Playwright's css engine
// does, kind "xpath" does not. Every script that takes a selector uses it,
// and an engine that looks an element up again after a script checked it
// must use it too, so that both find the same element.
func QueryScript() string { return queryFn }

// withQuery embeds QueryScript into script at its __QUERY__ placeholder.
func withQuery(script string) string {
	if !strings.Contains(script, "__QUERY__") {
		panic("page: script has no __QUERY__ placeholder")
	}
	return strings.Replace(script, "__QUERY__", queryFn, 1)
}

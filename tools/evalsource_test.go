package tools

import "testing"

func TestIsFunctionSource(t *testing.T) {
	for src, want := range map[string]bool{
		"() => 1":                             true,
		"async () => 42":                      true,
		"(a, b) => a + b":                     true,
		"el => el.textContent":                true,
		"async el => el.id":                   true,
		"function (x) { return x }":           true,
		"async function f() {}":               true,
		"(() => 1)":                           true,
		" ( (a) => a ) ":                      true,
		"(x = ')') => x":                      true,
		"(() => 1)()":                         false,
		"(async () => 42)()":                  false,
		"(function () { return 3 })()":        false,
		"document.title":                      false,
		"functionName()":                      false,
		"(1 + 2) * 3":                         false,
		"asyncValue":                          false,
		"async":                               false,
		"(a) /* => */ + 1":                    false,
		"document.querySelectorAll('button')": false,
	} {
		if got := isFunctionSource(src); got != want {
			t.Errorf("isFunctionSource(%q) = %v, want %v", src, got, want)
		}
	}
}

package engine

import (
	"strings"
	"testing"
)

func TestPolicyCheck(t *testing.T) {
	p, err := NewPolicy([]string{"*.example.com", "localhost:8080", "[::1]"}, []string{"ads.example.com", "*.evil.example.com"}, false)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]bool{
		"https://example.com/":             true,
		"https://www.example.com/a?b":      true,
		"http://EXAMPLE.com./":             true,
		"https://notexample.com/":          false,
		"https://ads.example.com/x.js":     false,
		"https://a.b.evil.example.com/":    false,
		"http://localhost:8080/":           true,
		"http://localhost:8081/":           false,
		"http://localhost/":                false,
		"http://[::1]:9000/":               true,
		"file:///etc/passwd":               false,
		"about:blank":                      true,
		"data:text/html,<p>hi":             true,
		"blob:https://example.com/uuid":    true,
		"wss://www.example.com/socket":     true,
		"https://example.org/":             false,
		"https://user@www.example.com:443": true,
		"view-source:file:///etc/passwd":   false,
		"VIEW-SOURCE:https://example.org/": false,
		"view-source:https://example.com/": true,
	}
	for u, want := range cases {
		if got, reason := p.Check(u); got != want {
			t.Errorf("Check(%q) = %v (%s), want %v", u, got, reason, want)
		}
	}
	if ok, _ := (&Policy{allowFile: true}).Check("file:///tmp/x"); !ok {
		t.Error("AllowFile does not allow file: URLs")
	}
	var none *Policy
	if ok, _ := none.Check("file:///x"); !ok || none.HasHostRules() {
		t.Error("a nil policy must allow everything and intercept nothing")
	}
}

func TestPolicyBadPatterns(t *testing.T) {
	_, err := NewPolicy([]string{"https://example.com/", "ex*ample.com"}, []string{"host:99x", ""}, false)
	if err == nil {
		t.Fatal("bad patterns accepted")
	}
	for _, want := range []string{"https://example.com/", "ex*ample.com", "host:99x", `""`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %s: %v", want, err)
		}
	}
}

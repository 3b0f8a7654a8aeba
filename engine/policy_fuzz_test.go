package engine

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzPolicyCheck holds the domain policy's promise over arbitrary URLs:
// with allowedDomains example.com and blockedDomains *.evil.test, a URL
// that loads from the network is allowed only when its host is
// example.com, whatever the case, dots, ports, user info or nesting in
// view-source:.
func FuzzPolicyCheck(f *testing.F) {
	for _, s := range []string{
		"https://example.com/", "http://EXAMPLE.com./a", "https://user@example.com:443",
		"https://example.com.evil.test/", "http://a.evil.test/", "view-source:https://example.org/",
		"VIEW-SOURCE:view-source:http://x.evil.test", "ws://example.com/s", "wss://example.org",
		"file:///etc/passwd", "about:blank", "data:text/html,hi", "javascript:alert(1)",
		"http://[::1]:80/", "http://example.com@evil.test/", "ftp://example.org/", "//example.org/x",
		"http://exam%70le.com/", "https://example.com%2eevil.test/", "blob:https://example.org/u",
	} {
		f.Add(s)
	}
	p, err := NewPolicy([]string{"example.com"}, []string{"*.evil.test"}, false)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		ok, reason := p.Check(raw)
		if !ok && reason == "" {
			t.Fatalf("Check(%q) refused without a reason", raw)
		}
		if !ok {
			return
		}
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatalf("Check(%q) allowed a URL that does not parse", raw)
		}
		scheme := strings.ToLower(u.Scheme)
		for scheme == "view-source" {
			if u, err = url.Parse(u.Opaque); err != nil {
				t.Fatalf("Check(%q) allowed a view-source: of a URL that does not parse", raw)
			}
			scheme = strings.ToLower(u.Scheme)
		}
		if scheme == "file" {
			t.Fatalf("Check(%q) allowed a file: URL", raw)
		}
		if u.Host == "" && !networkScheme[scheme] {
			return // loads nothing from the network
		}
		if host := strings.TrimSuffix(strings.ToLower(u.Hostname()), "."); host != "example.com" {
			t.Fatalf("Check(%q) allowed host %q", raw, host)
		}
	})
}

var networkScheme = map[string]bool{"http": true, "https": true, "ws": true, "wss": true, "ftp": true}

// FuzzHostRule checks that a host pattern either is refused with a
// message or compiles to a rule that matches the host it names.
func FuzzHostRule(f *testing.F) {
	for _, s := range []string{"example.com", "*.example.com", "localhost:8080", "[::1]", "*", "a*b.com", "x:99999", "", " ", "EXAMPLE.COM."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := NewPolicy([]string{s}, nil, false)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("pattern %q refused without a message", s)
			}
			return
		}
		r := p.allowed[0]
		if r.host == "" {
			if !r.wildcard {
				t.Fatalf("pattern %q compiled to a rule with no host", s)
			}
			return
		}
		port := r.port
		if port == "" {
			port = "80"
		}
		if !r.matches(r.host, port) {
			t.Fatalf("pattern %q does not match its own host %q:%s", s, r.host, port)
		}
	})
}

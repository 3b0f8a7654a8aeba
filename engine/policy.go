package engine

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"
)

// Policy is the server's security policy for where pages may go. Engines
// enforce it on every request a session's page makes: navigations, their
// redirects, subresources, iframes and popups.
//
// Host patterns are "example.com" (that host only), "*.example.com" (the
// host and every subdomain), "*" (every host), each optionally with a port
// ("example.com:8080", "[::1]:9000"); without a port every port matches.
// Blocked patterns win over allowed ones; when Allowed is non-empty, a host
// must match one of them. file: URLs are refused unless AllowFile is set.
// URLs without a host (about:, data:, blob:, javascript:) are always allowed:
// they load nothing from the network.
type Policy struct {
	allowed, blocked []hostRule
	allowFile        bool
}

type hostRule struct {
	raw      string
	host     string // lower case, without brackets; "" with wildcard means "*"
	wildcard bool   // host and all subdomains
	port     string // "" matches any port
}

// NewPolicy compiles host patterns. It reports every bad pattern at once.
func NewPolicy(allowed, blocked []string, allowFile bool) (*Policy, error) {
	p := &Policy{allowFile: allowFile}
	var errs []error
	for _, s := range allowed {
		r, err := parseHostRule(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("allowedDomains: %w", err))
			continue
		}
		p.allowed = append(p.allowed, r)
	}
	for _, s := range blocked {
		r, err := parseHostRule(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("blockedDomains: %w", err))
			continue
		}
		p.blocked = append(p.blocked, r)
	}
	return p, errors.Join(errs...)
}

func parseHostRule(s string) (hostRule, error) {
	r := hostRule{raw: s}
	in := strings.ToLower(strings.TrimSpace(s))
	if in == "" || strings.ContainsAny(in, "/?#@ ") {
		return r, fmt.Errorf("%q is not a host pattern; use forms like example.com, *.example.com or example.com:8080", s)
	}
	host, port := in, ""
	if h, p, err := net.SplitHostPort(in); err == nil {
		host, port = h, p
	} else if strings.HasPrefix(in, "[") && strings.HasSuffix(in, "]") {
		host = in[1 : len(in)-1]
	}
	if port != "" && !isPort(port) {
		return r, fmt.Errorf("%q has a bad port %q", s, port)
	}
	switch {
	case host == "*":
		r.wildcard = true
	case strings.HasPrefix(host, "*."):
		r.wildcard, host = true, host[2:]
	case strings.Contains(host, "*"):
		return r, fmt.Errorf("%q: a wildcard may only be the first label, as in *.example.com", s)
	}
	host = strings.TrimSuffix(host, ".")
	if host == "" && !r.wildcard {
		return r, fmt.Errorf("%q has no host", s)
	}
	r.host, r.port = host, port
	return r, nil
}

func isPort(p string) bool {
	if len(p) == 0 || len(p) > 5 {
		return false
	}
	for _, c := range p {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// HasHostRules reports whether any host pattern is configured. Engines
// intercept requests only then, so a server without domain rules pays
// nothing for the policy.
func (p *Policy) HasHostRules() bool {
	return p != nil && (len(p.allowed) > 0 || len(p.blocked) > 0)
}

// unparsable is Check's reason for a URL that does not parse, which
// Refused makes INVALID_URL: the URL is at fault, not a rule.
const unparsable = "the URL cannot be parsed"

// Check tells whether the policy lets a page load rawURL. When it does not,
// reason names the rule that refused it.
func (p *Policy) Check(rawURL string) (ok bool, reason string) {
	if p == nil {
		return true, ""
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return false, unparsable
	}
	switch strings.ToLower(u.Scheme) {
	case "file":
		if p.allowFile {
			return true, ""
		}
		return false, "file: URLs are not allowed (security.allowFileUrls is false)"
	case "view-source":
		// view-source:URL loads URL: it is allowed exactly when URL is.
		return p.Check(rawURL[len(u.Scheme)+1:])
	case "http", "https", "ws", "wss", "ftp":
	default:
		if u.Host == "" {
			return true, ""
		}
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	port := u.Port()
	if port == "" {
		port = defaultPort[strings.ToLower(u.Scheme)]
	}
	for _, r := range p.blocked {
		if r.matches(host, port) {
			return false, "blocked by blockedDomains entry " + r.raw
		}
	}
	if len(p.allowed) == 0 {
		return true, ""
	}
	for _, r := range p.allowed {
		if r.matches(host, port) {
			return true, ""
		}
	}
	return false, "host " + host + " is not in allowedDomains"
}

// Refused is the NAVIGATION_BLOCKED error for a navigation the policy
// refuses.
func Refused(rawURL, reason string) *Error {
	if reason == unparsable {
		return Errorf(InvalidURL, "%s is not a URL: %s", rawURL, reason).With("url", rawURL).With("field", "url")
	}
	return Errorf(NavigationBlocked, "navigation to %s is blocked: %s", rawURL, reason).
		With("url", rawURL).With("reason", reason)
}

var defaultPort = map[string]string{"http": "80", "ws": "80", "https": "443", "wss": "443", "ftp": "21"}

func (r hostRule) matches(host, port string) bool {
	if r.port != "" && r.port != port {
		return false
	}
	if r.wildcard && r.host == "" {
		return true
	}
	if host == r.host {
		return true
	}
	return r.wildcard && strings.HasSuffix(host, "."+r.host)
}

// BlockedRequest records one request the policy refused.
type BlockedRequest struct {
	URL string `json:"url"`
	// ResourceType is the engine's name for what was requested: Document,
	// Image, Script, ..., or Popup for a window the page tried to open.
	ResourceType string    `json:"resourceType"`
	Reason       string    `json:"reason"`
	Time         time.Time `json:"time"`
}

// BlockedLog is the part of a Session that lists what the Policy refused,
// newest last. A session whose engine holds no domain rules (or none were
// given) has refused nothing: its list is empty.
type BlockedLog interface {
	BlockedRequests() []BlockedRequest
}

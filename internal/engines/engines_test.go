package engines

import (
	"strings"
	"testing"
)

func TestNameDefaultsPerBrowser(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Browser: "chromium"}, "cdp"},
		{Config{Browser: "firefox"}, "playwright"},
		{Config{Browser: "webkit"}, "playwright"},
		{Config{Browser: "chromium", Engine: "playwright"}, "playwright"},
	} {
		if got := Name(c.cfg); got != c.want {
			t.Errorf("Name(%+v) = %q, want %q", c.cfg, got, c.want)
		}
	}
}

func TestCheckRefusesWhatCannotWork(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string // "": accepted
	}{
		{Config{Browser: "chromium"}, ""},
		{Config{Browser: "firefox"}, ""},
		{Config{Browser: "chromium", Engine: "playwright"}, ""},
		{Config{Browser: "chromium", CDPEndpoint: "http://127.0.0.1:9222", BlockedDomains: []string{"a.test"}}, ""},
		{Config{Browser: "chromium", Engine: "selenium"}, `want cdp or playwright, not "selenium"`},
		{Config{Browser: "firefox", Engine: "cdp"}, "--engine cdp drives only chromium, not firefox; use --engine playwright"},
		{Config{Browser: "chromium", Engine: "playwright", CDPEndpoint: "http://127.0.0.1:9222"}, "--cdp-endpoint needs --engine cdp"},
		{Config{Browser: "firefox", AllowedDomains: []string{"a.test"}}, "enforced only by --engine cdp"},
		{Config{Browser: "webkit", BlockedDomains: []string{"a.test"}}, "refusing to run webkit without them"},
		{Config{Browser: "firefox", SessionFlags: []string{"--init-script", "--device", "--mobile"}}, "--device, --mobile cannot be honoured with --browser firefox"},
		{Config{Browser: "firefox", SessionFlags: []string{"--init-script", "--block-service-workers"}}, ""},
		{Config{Browser: "chromium", Engine: "playwright", SessionFlags: []string{"--device"}}, ""},
	} {
		err := Check(c.cfg)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("Check(%+v) = %v, want nil", c.cfg, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("Check(%+v) = %v, want %q", c.cfg, err, c.want)
		}
	}
}

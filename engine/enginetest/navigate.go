package enginetest

import (
	"net"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

func (h *harness) testNavigate(t *testing.T) {
	s := h.session(t)
	t.Run("FileURLRefused", func(t *testing.T) {
		for _, u := range []string{"file:///etc/hostname", "view-source:file:///etc/hostname"} {
			_, err := s.Navigate(ctx(t), engine.NavigateRequest{URL: u})
			wantError(t, err, engine.NavigationBlocked, map[string]any{"url": u})
		}
	})
	t.Run("JavascriptURLRefused", func(t *testing.T) {
		// A javascript: URL would run script in the page: it is refused,
		// and nothing runs.
		s := h.open(t, "/form.html")
		_, err := s.Navigate(ctx(t), engine.NavigateRequest{URL: "javascript:document.title='pwned'"})
		wantError(t, err, engine.InvalidURL, map[string]any{"field": "url"})
		_, err = s.Tabs(ctx(t), engine.TabsRequest{Action: "new", URL: " JavaScript:document.title='pwned'"})
		wantError(t, err, engine.InvalidURL, map[string]any{"field": "url"})
		wantTitle(t, s, "Sign in")
	})
	t.Run("Title", func(t *testing.T) {
		res := h.navigate(t, s, "/form.html")
		want := engine.NavigateResult{Title: "Sign in", URL: h.site.url("/form.html"), Status: 200}
		if res != want {
			t.Fatalf("Navigate = %+v, want %+v", res, want)
		}
		if info := s.Info(ctx(t)); info.URL != want.URL || info.Title != want.Title {
			t.Fatalf("Info after Navigate = %+v", info)
		}
	})
	t.Run("Redirect", func(t *testing.T) {
		res := h.navigate(t, s, "/redirect?to=/welcome.html")
		want := engine.NavigateResult{Title: "Welcome", URL: h.site.url("/welcome.html"), Status: 200}
		if res != want {
			t.Fatalf("Navigate = %+v, want %+v (the final URL after the redirect)", res, want)
		}
	})
	t.Run("HTTPStatus", func(t *testing.T) {
		// An HTTP error is a page like any other, not a failed navigation.
		res := h.navigate(t, s, "/status?code=404")
		if res.Status != 404 || res.Title != "status 404" {
			t.Fatalf("Navigate = %+v, want status 404", res)
		}
	})
	t.Run("WaitUntil", func(t *testing.T) {
		for _, w := range []engine.WaitUntil{engine.WaitDOMContentLoaded, engine.WaitLoad, engine.WaitNetworkIdle} {
			res, err := s.Navigate(ctx(t), engine.NavigateRequest{URL: h.site.url("/form.html?w=" + string(w)), WaitUntil: w})
			if !supported(t, err) {
				continue
			}
			if err != nil {
				t.Fatalf("waitUntil %s: %v", w, err)
			}
			if res.Title != "Sign in" || res.Status != 200 {
				t.Fatalf("waitUntil %s: %+v", w, res)
			}
		}
	})
	t.Run("NetworkError", func(t *testing.T) {
		// A port nobody listens on (the connection is refused) and a host
		// that cannot resolve (.invalid never does, RFC 2606) are
		// NETWORK_ERROR with the browser's own error, and retryable.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		closed := "http://" + l.Addr().String() + "/"
		l.Close()
		for _, c := range []struct{ url, reason string }{
			{closed, "connection"},
			{"http://nonexistent.invalid/", "dns"},
		} {
			_, err = s.Navigate(ctx(t), engine.NavigateRequest{URL: c.url})
			e := wantError(t, err, engine.NetworkError, map[string]any{"url": c.url, "reason": c.reason})
			if ne, _ := e.Details["netError"].(string); ne == "" {
				t.Errorf("details.netError is empty: %v", e.Details)
			}
			if !e.Retryable {
				t.Errorf("%s: a network error is not retryable", c.url)
			}
		}
	})
	t.Run("InvalidURL", func(t *testing.T) {
		// A URL the browser cannot parse is INVALID_URL, not retryable:
		// one that does not parse at all, and one that parses as a
		// relative reference but that no browser loads as a URL.
		for _, bad := range []string{"ht!tp://bad url", "notaurl"} {
			_, err := s.Navigate(ctx(t), engine.NavigateRequest{URL: bad})
			if e := wantError(t, err, engine.InvalidURL, map[string]any{"url": bad, "field": "url"}); e.Retryable {
				t.Errorf("%s: an invalid URL is retryable", bad)
			}
		}
	})
	t.Run("Timeout", func(t *testing.T) {
		url := h.site.url("/hang")
		_, err := s.Navigate(ctx(t), engine.NavigateRequest{URL: url, Timeout: 500 * time.Millisecond})
		wantError(t, err, engine.NavigationFailed, map[string]any{"url": url, "reason": "timeout", "timeout": 500})
		// The session stays usable.
		if res := h.navigate(t, s, "/welcome.html"); res.Title != "Welcome" {
			t.Fatalf("after the timeout: %+v", res)
		}
	})
}

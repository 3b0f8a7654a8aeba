package enginetest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

func (h *harness) testSessions(t *testing.T) {
	t.Run("NewSessionIsBlank", func(t *testing.T) {
		s := h.session(t)
		info := s.Info(ctx(t))
		if info.URL != "about:blank" || info.Title != "" {
			t.Fatalf("new session's page = %+v, want about:blank without a title", info)
		}
	})
	t.Run("Viewport", func(t *testing.T) {
		s, err := h.eng.NewSession(ctx(t), engine.SessionOptions{Viewport: engine.Viewport{Width: 800, Height: 600}})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close(context.Background())
		h.navigate(t, s, "/viewport.html")
		wantTitle(t, s, "800x600")
	})
	t.Run("StorageState", func(t *testing.T) {
		s, err := h.eng.NewSession(ctx(t), engine.SessionOptions{Viewport: Viewport, StorageState: &engine.StorageState{
			Cookies: []engine.Cookie{{Name: "sid", Value: "ada", Domain: "127.0.0.1", Path: "/"}},
			Origins: []engine.OriginStorage{{Origin: h.site.URL, LocalStorage: []engine.NameValue{{Name: "token", Value: "t0k"}}}},
		}})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close(context.Background())
		h.navigate(t, s, "/members")
		if got := title(t, s); !strings.HasPrefix(got, "ada t0k ") {
			t.Fatalf("title = %q, want the cookie and localStorage of the storage state", got)
		}
	})
	t.Run("Emulation", func(t *testing.T) {
		// Every emulation option create_session takes reaches the page, or
		// the session is refused naming it: none is dropped.
		opts := []struct {
			field string
			set   func(*engine.SessionOptions)
		}{
			{"userAgent", func(o *engine.SessionOptions) { o.UserAgent = "bmcp-agent/1.0" }},
			{"locale", func(o *engine.SessionOptions) { o.Locale = "de-DE" }},
			{"timezoneId", func(o *engine.SessionOptions) { o.TimezoneID = "Asia/Tokyo" }},
			{"extraHTTPHeaders", func(o *engine.SessionOptions) { o.ExtraHTTPHeaders = map[string]string{"X-Test": "from-options"} }},
		}
		all := engine.SessionOptions{Viewport: Viewport}
		for _, o := range opts {
			o.set(&all)
		}
		if !h.chromium() {
			for _, o := range opts {
				one := engine.SessionOptions{Viewport: Viewport}
				o.set(&one)
				_, err := h.eng.NewSession(ctx(t), one)
				wantError(t, err, engine.Unsupported, map[string]any{"field": o.field})
			}
			return
		}
		s, err := h.eng.NewSession(ctx(t), all)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close(context.Background())
		h.navigate(t, s, "/members")
		wantTitle(t, s, "anonymous no-token de-DE Asia/Tokyo")
		h.navigate(t, s, "/headers")
		wantTitle(t, s, "from-options|bmcp-agent/1.0")
	})
	t.Run("Proxy", func(t *testing.T) {
		// A proxy that answers every request itself: a host that does not
		// exist loads through it, and only through it.
		proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<title>via proxy %s</title>", r.Host)
		}))
		defer proxy.Close()
		s, err := h.eng.NewSession(ctx(t), engine.SessionOptions{Viewport: Viewport, Proxy: proxy.URL})
		if !h.chromium() {
			wantError(t, err, engine.Unsupported, map[string]any{"field": "proxy"})
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close(context.Background())
		if _, err := s.Navigate(ctx(t), engine.NavigateRequest{URL: "http://proxied.invalid/page"}); err != nil {
			t.Fatal(err)
		}
		wantTitle(t, s, "via proxy proxied.invalid")
	})
	t.Run("ProxyLogin", func(t *testing.T) {
		// Proxies that want a login: the session logs in with the username
		// and password it was given, for plain HTTP, for a CONNECT tunnel
		// (https) and over SOCKS5; with a wrong password nothing loads
		// through the proxy.
		tlsSite := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<title>tunnelled to %s</title>", r.Host)
		}))
		defer tlsSite.Close()
		httpProxy := testenv.LoginProxy(t, "ada", "s3cret", tlsSite.Listener.Addr().String())
		socks := testenv.SocksProxy(t, "bob", "pa ss", h.site.Listener.Addr().String())
		login := func(proxy, user, pass string) (engine.Session, error) {
			return h.eng.NewSession(ctx(t), engine.SessionOptions{Viewport: Viewport, IgnoreHTTPSErrors: true,
				Proxy: proxy, ProxyUsername: user, ProxyPassword: pass})
		}
		s, err := login(httpProxy.String(), "ada", "s3cret")
		if strings.HasPrefix(h.eng.Name(), "grid/") {
			// The login forwarder listens on this host, which a Grid's
			// browser cannot reach.
			wantError(t, err, engine.Unsupported, map[string]any{"field": "proxy"})
			return
		}
		if !h.chromium() {
			wantError(t, err, engine.Unsupported, map[string]any{"field": "proxy"})
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close(context.Background())
		if _, err := s.Navigate(ctx(t), engine.NavigateRequest{URL: "http://proxied.invalid/page"}); err != nil {
			t.Fatal(err)
		}
		wantTitle(t, s, "via proxy proxied.invalid as ada")
		if _, err := s.Navigate(ctx(t), engine.NavigateRequest{URL: "https://secure.invalid/"}); err != nil {
			t.Fatal(err)
		}
		wantTitle(t, s, "tunnelled to secure.invalid")

		sk, err := login(socks.String(), "bob", "pa ss")
		if err != nil {
			t.Fatal(err)
		}
		defer sk.Close(context.Background())
		if _, err := sk.Navigate(ctx(t), engine.NavigateRequest{URL: "http://socks.invalid/form.html"}); err != nil {
			t.Fatal(err)
		}
		wantTitle(t, sk, "Sign in")

		bad, err := login(httpProxy.String(), "ada", "wrong")
		if err != nil {
			t.Fatal(err)
		}
		defer bad.Close(context.Background())
		res, err := bad.Navigate(ctx(t), engine.NavigateRequest{URL: "http://proxied.invalid/page"})
		if err == nil && (res.Status != http.StatusBadGateway || strings.HasPrefix(res.Title, "via proxy")) {
			t.Fatalf("with a wrong password: %+v, want a 502 from the forwarder or a failed navigation", res)
		}
		if _, err := bad.Navigate(ctx(t), engine.NavigateRequest{URL: "https://secure.invalid/"}); err == nil {
			t.Fatalf("with a wrong password the https tunnel opened: title %q", title(t, bad))
		}
	})
	t.Run("BadProxy", func(t *testing.T) {
		_, err := h.eng.NewSession(ctx(t), engine.SessionOptions{Viewport: Viewport, Proxy: "not a proxy"})
		wantError(t, err, engine.InvalidParameters, map[string]any{"field": "proxy"})
		for _, o := range []engine.SessionOptions{
			{Proxy: "http://user:pw@127.0.0.1:1"},                // a login in the URL
			{ProxyUsername: "ada"},                               // a login without a proxy
			{Proxy: "https://127.0.0.1:1", ProxyUsername: "ada"}, // a login for a scheme we cannot forward
		} {
			o.Viewport = Viewport
			_, err := h.eng.NewSession(ctx(t), o)
			wantError(t, err, engine.InvalidParameters, map[string]any{"field": "proxy"})
		}
	})
	t.Run("Concurrent", func(t *testing.T) {
		// Sessions are independent: calls on different sessions run at once.
		const n = 3
		ss := make([]engine.Session, n)
		for i := range ss {
			ss[i] = h.session(t)
		}
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i, s := range ss {
			wg.Go(func() {
				res, err := s.Navigate(ctx(t), engine.NavigateRequest{URL: h.site.url(fmt.Sprintf("/form.html?n=%d", i))})
				if err == nil && res.Title != "Sign in" {
					err = fmt.Errorf("title = %q", res.Title)
				}
				errs[i] = err
			})
		}
		wg.Wait()
		for i, s := range ss {
			if errs[i] != nil {
				t.Fatalf("session %d: %v", i, errs[i])
			}
			if got, want := s.Info(ctx(t)).URL, h.site.url(fmt.Sprintf("/form.html?n=%d", i)); got != want {
				t.Errorf("session %d is on %s, want %s", i, got, want)
			}
		}
	})
}

// testIsolation checks that cookies, localStorage and sessionStorage set in
// one session are invisible to another, and stay in their own session.
func (h *harness) testIsolation(t *testing.T) {
	const empty = `storage {"cookie":"","local":null,"session":null}`
	state := func(who string) string {
		return fmt.Sprintf(`storage {"cookie":"who=%s","local":"%s","session":"%s"}`, who, who, who)
	}
	a := h.open(t, "/storage.html?set=alice")
	wantTitle(t, a, state("alice"))

	b := h.open(t, "/storage.html")
	wantTitle(t, b, empty)

	h.navigate(t, b, "/storage.html?set=bob")
	h.navigate(t, a, "/storage.html")
	wantTitle(t, a, state("alice"))
	h.navigate(t, b, "/storage.html")
	wantTitle(t, b, state("bob"))

	// A session created after both sees neither.
	c := h.open(t, "/storage.html")
	wantTitle(t, c, empty)
}

// testInfoWhileBusy checks that Info answers while another call on the same
// session is blocked (list_sessions must never wait for a busy session), and
// that the blocked call ends when its context does.
func (h *harness) testInfoWhileBusy(t *testing.T) {
	s := h.open(t, "/form.html")
	for len(h.site.hang) > 0 {
		<-h.site.hang
	}
	navCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := s.Navigate(navCtx, engine.NavigateRequest{URL: h.site.url("/hang"), Timeout: 5 * time.Minute})
		done <- err
	}()
	select {
	case <-h.site.hang:
	case err := <-done:
		t.Fatalf("Navigate(/hang) returned before the server answered: %v", err)
	case <-time.After(callTimeout):
		t.Fatal("the browser never requested /hang")
	}

	infoDone := make(chan engine.PageInfo, 1)
	go func() { infoDone <- s.Info(ctx(t)) }()
	select {
	case info := <-infoDone:
		if info.Title != "Sign in" {
			t.Errorf("Info during a navigation: title = %q, want the current page's %q", info.Title, "Sign in")
		}
	case err := <-done:
		t.Fatalf("Navigate(/hang) returned while the server still held it: %v", err)
	case <-time.After(callTimeout):
		t.Fatal("Info waited for the busy session")
	}
	select {
	case err := <-done:
		t.Fatalf("Navigate(/hang) returned while the server still held it: %v", err)
	default:
	}

	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a cancelled Navigate(/hang) succeeded")
		}
	case <-time.After(callTimeout):
		t.Fatal("Navigate did not return after its context was cancelled")
	}
	// The session is still usable.
	if res := h.navigate(t, s, "/welcome.html"); res.Title != "Welcome" {
		t.Fatalf("after the cancelled navigation: title = %q", res.Title)
	}
}

// testSessionClose checks that Close is idempotent and that a closed
// session answers without hanging.
func (h *harness) testSessionClose(t *testing.T) {
	s := h.open(t, "/form.html")
	if err := s.Close(ctx(t)); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(ctx(t)); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	_, err := s.Navigate(ctx(t), engine.NavigateRequest{URL: h.site.url("/welcome.html")})
	wantError(t, err, engine.BrowserError, nil)
	_, err = s.Click(ctx(t), engine.ClickRequest{Target: sel("#count")})
	wantError(t, err, engine.BrowserError, nil)
	s.Info(ctx(t))

	// Closing one session leaves the others alone.
	a, b := h.open(t, "/form.html"), h.open(t, "/welcome.html")
	if err := a.Close(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if res := h.navigate(t, b, "/form.html"); res.Title != "Sign in" {
		t.Fatalf("other session after Close: title = %q", res.Title)
	}
}

// testEngineClose closes the engine: later sessions fail, and Close is
// idempotent.
func (h *harness) testEngineClose(t *testing.T) {
	s := h.open(t, "/form.html")
	if err := h.eng.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	_, err := h.eng.NewSession(ctx(t), engine.SessionOptions{Viewport: Viewport})
	wantError(t, err, engine.BrowserError, nil)
	if err := h.eng.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	// A session of a closed engine answers, as after a crash, instead of
	// hanging.
	_, err = s.Navigate(ctx(t), engine.NavigateRequest{URL: h.site.url("/welcome.html")})
	wantError(t, err, engine.BrowserCrashed, nil)
}

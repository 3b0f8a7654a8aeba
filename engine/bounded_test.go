package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// recorder is a Session that records the requests it gets and can hang
// until its context ends, as a stuck browser or driver call would.
type recorder struct {
	engine.Session
	hang    bool
	click   engine.ClickRequest
	mouse   engine.MouseRequest
	nav     engine.NavigateRequest
	history time.Duration
	err     error
}

// Watch reports nothing, as engine.NothingToReport's (which the embedded
// Session would make ambiguous).
func (r *recorder) Watch(ctx context.Context) func(context.Context, *engine.ActionResult) error {
	return engine.NothingToReport{}.Watch(ctx)
}

func (r *recorder) wait(ctx context.Context) error {
	if !r.hang {
		return r.err
	}
	<-ctx.Done()
	if r.err != nil {
		return r.err
	}
	return ctx.Err()
}

func (r *recorder) Click(ctx context.Context, req engine.ClickRequest) (engine.ActionResult, error) {
	r.click = req
	return engine.ActionResult{}, r.wait(ctx)
}

func (r *recorder) Mouse(ctx context.Context, req engine.MouseRequest) (engine.ActionResult, error) {
	r.mouse = req
	return engine.ActionResult{}, r.wait(ctx)
}

func (r *recorder) Navigate(ctx context.Context, req engine.NavigateRequest) (engine.NavigateResult, error) {
	r.nav = req
	return engine.NavigateResult{}, r.wait(ctx)
}

func (r *recorder) History(ctx context.Context, _ int, timeout time.Duration) (engine.NavigateResult, error) {
	r.history = timeout
	return engine.NavigateResult{}, r.wait(ctx)
}

func TestBoundAppliesDefaultsOnce(t *testing.T) {
	r := &recorder{}
	s := engine.Bound(r)
	if engine.Bound(s) != s {
		t.Fatal("Bound of a bound session wraps it again")
	}
	s.Click(t.Context(), engine.ClickRequest{})
	if r.click.Timeout != engine.DefaultActionTimeout || r.click.NavigationTimeout != engine.DefaultNavigationTimeout || r.click.ClickCount != 1 {
		t.Errorf("click defaults: %+v", r.click)
	}
	s.Click(t.Context(), engine.ClickRequest{Timeout: time.Second, ClickCount: 2})
	if r.click.Timeout != time.Second || r.click.ClickCount != 2 {
		t.Errorf("click kept %+v", r.click)
	}
	s.Navigate(t.Context(), engine.NavigateRequest{URL: "http://x/"})
	if r.nav.Timeout != engine.DefaultNavigationTimeout || r.nav.WaitUntil != engine.WaitLoad {
		t.Errorf("navigate defaults: %+v", r.nav)
	}
	s.History(t.Context(), -1, 0)
	if r.history != engine.DefaultNavigationTimeout {
		t.Errorf("history timeout %v", r.history)
	}
	s.Mouse(t.Context(), engine.MouseRequest{Action: "click"})
	if r.mouse.Button != engine.ButtonLeft || r.mouse.ClickCount != 1 {
		t.Errorf("mouse defaults: %+v", r.mouse)
	}
}

func TestBoundValidatesBeforeTheEngine(t *testing.T) {
	r := &recorder{}
	s := engine.Bound(r)
	cases := []struct {
		call  func() error
		field string
	}{
		{func() error {
			_, err := s.Mouse(t.Context(), engine.MouseRequest{Action: "click", Button: "fourth"})
			return err
		}, "button"},
		{func() error { _, err := s.Mouse(t.Context(), engine.MouseRequest{Action: "wiggle"}); return err }, "action"},
		{func() error {
			_, err := s.Upload(t.Context(), engine.UploadRequest{Files: []string{t.TempDir() + "/missing"}})
			return err
		}, "files"},
		{func() error { _, err := s.Tabs(t.Context(), engine.TabsRequest{Action: "shuffle"}); return err }, "action"},
		{func() error { _, err := s.AddRoute(t.Context(), engine.Route{}); return err }, "urlPattern"},
		{func() error {
			return engine.RestoreState(t.Context(), s, engine.StorageState{Origins: []engine.OriginStorage{{Origin: "file:///etc"}}})
		}, "state.origins"},
	}
	for i, c := range cases {
		var e *engine.Error
		if err := c.call(); !errors.As(err, &e) || e.Code != engine.InvalidParameters || e.Details["field"] != c.field {
			t.Errorf("case %d: got %v, want INVALID_PARAMETERS on %s", i, err, c.field)
		}
	}
	if r.mouse != (engine.MouseRequest{}) {
		t.Errorf("the engine saw an invalid request: %+v", r.mouse)
	}
}

func TestBoundCallEndsByItsDeadlineAsTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := engine.Bound(&recorder{hang: true})
		start := time.Now()
		_, err := s.Click(t.Context(), engine.ClickRequest{Target: engine.Target{Selector: "#b"}, Timeout: time.Second, NavigationTimeout: 3 * time.Second})
		want := time.Second + 3*time.Second + engine.SettleMax + engine.CallGrace
		if d := time.Since(start); d != want {
			t.Errorf("the call ended after %v, want its deadline %v", d, want)
		}
		var e *engine.Error
		if !errors.As(err, &e) || e.Code != engine.Timeout || !strings.Contains(e.Message, "click on selector #b") || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("got %v, want TIMEOUT naming the click and keeping the cause", err)
		}
	})
}

func TestBoundKeepsCodedErrorsAndCancellation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// A coded error at the deadline stays what it is.
		s := engine.Bound(&recorder{hang: true, err: engine.Errorf(engine.ElementNotFound, "no #b")})
		_, err := s.Click(t.Context(), engine.ClickRequest{Timeout: time.Second})
		if engine.CodeOf(err) != engine.ElementNotFound {
			t.Errorf("got %v, want ELEMENT_NOT_FOUND kept", err)
		}
		// A BROWSER_ERROR the deadline caused is a TIMEOUT.
		s = engine.Bound(&recorder{hang: true, err: engine.Wrap(engine.BrowserError, context.DeadlineExceeded, "")})
		_, err = s.Navigate(t.Context(), engine.NavigateRequest{Timeout: time.Second})
		if engine.CodeOf(err) != engine.Timeout {
			t.Errorf("got %v, want TIMEOUT", err)
		}
		// The caller's cancellation is not a timeout.
		ctx, cancel := context.WithCancel(t.Context())
		time.AfterFunc(time.Second, cancel)
		s = engine.Bound(&recorder{hang: true})
		_, err = s.Navigate(ctx, engine.NavigateRequest{})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want the caller's cancellation", err)
		}
		// The caller's own earlier deadline bounds the call, and is named.
		ctx, cancel2 := context.WithTimeout(t.Context(), 2*time.Second)
		defer cancel2()
		_, err = s.Navigate(ctx, engine.NavigateRequest{})
		var e *engine.Error
		if !errors.As(err, &e) || e.Code != engine.Timeout || e.Details["deadlineMs"] != int64(2000) {
			t.Errorf("got %v, want TIMEOUT after the caller's 2s", err)
		}
	})
}

// TestJavascriptURLsAreRefused: navigate and tabs new never take a
// javascript: URL, however a browser would still read its scheme.
func TestJavascriptURLsAreRefused(t *testing.T) {
	r := &recorder{}
	s := engine.Bound(r)
	for _, u := range []string{
		"javascript:alert(1)", "JavaScript:document.body.innerHTML='x'", "  javascript:1", "\x01javascript:1",
		"java\tscript:1", "jav\nascript:1", "view-source:javascript:1", "VIEW-SOURCE:view-source:javascript:1",
	} {
		_, err := s.Navigate(t.Context(), engine.NavigateRequest{URL: u})
		var e *engine.Error
		if !errors.As(err, &e) || e.Code != engine.InvalidURL || e.Details["field"] != "url" {
			t.Errorf("navigate %q: %v, want INVALID_URL", u, err)
		}
		if _, err := s.Tabs(t.Context(), engine.TabsRequest{Action: "new", URL: u}); engine.CodeOf(err) != engine.InvalidURL {
			t.Errorf("tabs new %q: %v, want INVALID_URL", u, err)
		}
	}
	if r.nav.URL != "" {
		t.Fatalf("the engine was asked to navigate to %q", r.nav.URL)
	}
	for _, u := range []string{"https://example.com/javascript:x", "about:blank", "data:text/html,javascript:", "javascriptx:1"} {
		if err := engine.CheckURL(u, "url"); err != nil {
			t.Errorf("CheckURL(%q) = %v, want nil", u, err)
		}
	}
}

// TestSessionOptionsValidate: options a browser would refuse with an opaque
// error are INVALID_PARAMETERS naming the field, before any browser sees
// them; valid ones, Unicode-free, pass.
func TestSessionOptionsValidate(t *testing.T) {
	for field, o := range map[string]engine.SessionOptions{
		"userAgent": {UserAgent: "agent/1 ünïcode"},
		"locale":    {Locale: "日本語"},
		"proxy":     {Proxy: "not a proxy"},
	} {
		var e *engine.Error
		if err := o.Validate(); !errors.As(err, &e) || e.Code != engine.InvalidParameters || e.Details["field"] != field {
			t.Errorf("%+v: %v, want INVALID_PARAMETERS on %s", o, err, field)
		}
	}
	for _, o := range []engine.SessionOptions{{}, {UserAgent: "Mozilla/5.0 (X11) bmcp/1.0", Locale: "de-DE"}, {Locale: "zh-Hant-TW"}, {Proxy: "socks5://127.0.0.1:1080"}} {
		if err := o.Validate(); err != nil {
			t.Errorf("%+v: %v", o, err)
		}
	}
}

// blocker is a Session whose clicks are blocked (ErrInputBlocked) the first
// blocked times, each after taking took, and then succeed.
type blocker struct {
	engine.Session
	blocked  int
	took     time.Duration
	timeouts []time.Duration
}

func (b *blocker) Watch(ctx context.Context) func(context.Context, *engine.ActionResult) error {
	return engine.NothingToReport{}.Watch(ctx)
}

func (b *blocker) Click(ctx context.Context, req engine.ClickRequest) (engine.ActionResult, error) {
	b.timeouts = append(b.timeouts, req.Timeout)
	time.Sleep(b.took)
	if len(b.timeouts) <= b.blocked {
		return engine.ActionResult{}, engine.Wrap(engine.ElementNotClickable, engine.ErrInputBlocked, "blocked").With("reason", "moved")
	}
	return engine.ActionResult{}, nil
}

func TestBoundTriesBlockedInputAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Blocked twice, then the click goes through: three tries, each
		// with what is left of the element timeout.
		b := &blocker{blocked: 2, took: 100 * time.Millisecond}
		if _, err := engine.Bound(b).Click(t.Context(), engine.ClickRequest{Timeout: time.Second}); err != nil {
			t.Fatalf("Click after two blocked tries: %v", err)
		}
		if want := []time.Duration{time.Second, 900 * time.Millisecond, 800 * time.Millisecond}; len(b.timeouts) != 3 || b.timeouts[1] != want[1] || b.timeouts[2] != want[2] {
			t.Errorf("tries had timeouts %v, want %v", b.timeouts, want)
		}
		// Always blocked: the third answer is the error.
		b = &blocker{blocked: 100, took: 10 * time.Millisecond}
		_, err := engine.Bound(b).Click(t.Context(), engine.ClickRequest{Timeout: time.Second})
		if !errors.Is(err, engine.ErrInputBlocked) || len(b.timeouts) != 3 {
			t.Errorf("always blocked: %d tries, %v; want 3 tries and the blocked error", len(b.timeouts), err)
		}
		// A try that spent the timeout is the last.
		b = &blocker{blocked: 100, took: 2 * time.Second}
		_, err = engine.Bound(b).Click(t.Context(), engine.ClickRequest{Timeout: time.Second, NavigationTimeout: time.Minute})
		if !errors.Is(err, engine.ErrInputBlocked) || len(b.timeouts) != 1 {
			t.Errorf("blocked past the timeout: %d tries, %v; want 1", len(b.timeouts), err)
		}
	})
}

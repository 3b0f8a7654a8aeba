// Package enginetest is the conformance suite every engine.Engine passes, in
// the spirit of testing/fstest.TestFS: an engine package calls Run with a
// constructor for its engine on a real browser, and the suite drives it
// through the engine interfaces on the pages under testdata/site, served on
// 127.0.0.1 by internal/testsite.
//
// The suite holds the behaviour the rest of browsermcp relies on, including
// the exact error codes and details, so that a difference between engines
// is a test failure. Where a browser genuinely lacks a feature, its engine
// answers UNSUPPORTED naming the browser, and the suite accepts exactly
// that (see supported); nothing is skipped silently.
package enginetest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// callTimeout bounds every call the suite makes, so that a hanging engine
// fails the test instead of the whole run. It is there only to stop a hang,
// so it is long: a machine under heavy load (other test binaries, two
// cores) can take many seconds for a call that usually takes milliseconds.
const callTimeout = 3 * time.Minute

// patience is the timeout of calls that must succeed after waiting for the
// page (an element that appears later, a popup's load): the wait is what
// they test, not how long it takes, so a loaded machine must not fail them.
const patience = time.Minute

// Viewport is the viewport the suite's sessions use.
var Viewport = engine.Viewport{Width: 1280, Height: 720}

// Policy is the server's default security policy, which the engine under
// test must be given: no host rules, file: URLs refused.
var Policy = func() *engine.Policy {
	p, err := engine.NewPolicy(nil, nil, false)
	if err != nil {
		panic(err)
	}
	return p
}()

// Run runs the suite on the engine newEngine returns. newEngine must return
// an engine with Policy that has not been started, on a headless browser; Run starts it
// and closes it at the end (the last subtest checks Close).
func Run(t *testing.T, newEngine func(t *testing.T) engine.Engine) {
	RunParts(t, newEngine)
}

// RunParts is Run for only the named parts of the suite (its top-level
// subtests, such as "Click" or "ReportTabs"); none named is all of them.
// It is for an engine that wraps another whose own run covers the rest,
// and whose sessions are too slow to start for the whole suite.
func RunParts(t *testing.T, newEngine func(t *testing.T) engine.Engine, parts ...string) {
	ran := map[string]bool{}
	run := func(name string, f func(t *testing.T)) {
		if len(parts) == 0 || slices.Contains(parts, name) {
			ran[name] = true
			t.Run(name, f)
		}
	}
	h := &harness{site: startSite(t)}
	h.eng = bound{newEngine(t)}
	h.eng.Start()
	closed := false
	t.Cleanup(func() {
		if !closed {
			h.eng.Close()
		}
	})
	if h.eng.Name() == "" {
		t.Error("Name() is empty")
	}

	run("Sessions", h.testSessions)
	run("Isolation", h.testIsolation)
	run("Navigate", h.testNavigate)
	run("Click", h.testClick)
	run("Stable", h.testStable)
	run("Type", h.testType)
	run("Forms", h.testForms)
	run("Settle", h.testSettle)
	run("Evaluate", h.testEvaluate)
	run("History", h.testHistory)
	run("Screenshot", h.testScreenshot)
	run("Pointer", h.testPointer)
	run("Storage", h.testStorage)
	run("Console", h.testConsole)
	run("Network", h.testNetwork)
	run("Tabs", h.testTabs)
	run("TabsNewThatFails", h.testTabsNewThatFails)
	run("ReportTabs", h.testReportTabs)
	run("ReportDownloads", h.testReportDownloads)
	run("ReportConsole", h.testReportConsole)
	run("Dialogs", h.testDialogs)
	run("FileChooser", h.testFileChooser)
	run("Routes", h.testRoutes)
	run("Emulation", h.testEmulation)
	run("Inspect", h.testInspect)
	run("Snapshot", h.testSnapshot)
	run("SnapshotHostile", h.testSnapshotHostile)
	run("Changes", h.testChanges)
	run("RefsAcrossTabs", h.testRefsAcrossTabs)
	run("Shadow", h.testShadow)
	run("InfoWhileBusy", h.testInfoWhileBusy)
	run("Tracing", h.testTracing)
	run("Video", h.testVideo)
	run("SessionClose", h.testSessionClose)
	run("EngineClose", func(t *testing.T) {
		closed = true
		h.testEngineClose(t)
	})
	for _, p := range parts {
		if !ran[p] {
			t.Errorf("the suite has no part %q", p)
		}
	}
}

// bound hands out sessions the way the Manager does, through engine.Bound,
// so that the suite calls every engine with complete requests under their
// deadlines, as the server does.
type bound struct{ engine.Engine }

func (b bound) NewSession(ctx context.Context, opts engine.SessionOptions) (engine.Session, error) {
	s, err := b.Engine.NewSession(ctx, opts)
	if err != nil {
		return nil, err
	}
	return engine.Bound(s), nil
}

type harness struct {
	eng  engine.Engine
	site *site
}

// site is the test site plus signals that a request for /hang (or
// /slow?tell=1) arrived, so that a test knows a navigation is under way (or
// a page stalls) without sleeping.
type site struct {
	*httptest.Server
	hang chan struct{}
	// slow says that a request for /slow?tell=1 arrived.
	slow chan struct{}
}

func startSite(t *testing.T) *site {
	s := &site{hang: make(chan struct{}, 1), slow: make(chan struct{}, 1)}
	inner := testsite.Handler()
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hang" {
			select {
			case s.hang <- struct{}{}:
			default:
			}
		}
		if r.URL.Path == "/slow" && r.URL.Query().Has("tell") {
			select {
			case s.slow <- struct{}{}:
			default:
			}
		}
		inner.ServeHTTP(w, r)
	}))
	// Registered first, so it runs after the engine's cleanup: a browser
	// still holding /hang open would make Close wait.
	t.Cleanup(func() {
		s.CloseClientConnections()
		s.Close()
	})
	return s
}

func (s *site) url(path string) string { return s.URL + path }

// chromium reports whether the engine drives Chromium (its Name ends in
// "/chromium"), where the suite demands what only Chromium offers.
func (h *harness) chromium() bool { return strings.HasSuffix(h.eng.Name(), "/chromium") }

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), callTimeout)
	t.Cleanup(cancel)
	return c
}

// session creates a session that the test closes when it ends.
func (h *harness) session(t *testing.T) engine.Session {
	t.Helper()
	s, err := h.eng.NewSession(ctx(t), engine.SessionOptions{Viewport: Viewport})
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return s
}

// open creates a session on a test page.
func (h *harness) open(t *testing.T, path string) engine.Session {
	t.Helper()
	s := h.session(t)
	h.navigate(t, s, path)
	return s
}

func (h *harness) navigate(t *testing.T, s engine.Session, path string) engine.NavigateResult {
	t.Helper()
	res, err := s.Navigate(ctx(t), engine.NavigateRequest{URL: h.site.url(path)})
	if err != nil {
		t.Fatalf("Navigate(%s): %v", path, err)
	}
	return res
}

// title is the page's title as Info reports it. Test pages write their state
// into the title, so the suite observes pages only through the interface.
func title(t *testing.T, s engine.Session) string {
	t.Helper()
	return s.Info(ctx(t)).Title
}

func wantTitle(t *testing.T, s engine.Session, want string) {
	t.Helper()
	if got := title(t, s); got != want {
		t.Fatalf("title = %q, want %q", got, want)
	}
}

func sel(s string) engine.Target { return engine.Target{Selector: s} }

func click(t *testing.T, s engine.Session, req engine.ClickRequest) engine.ActionResult {
	t.Helper()
	res, err := s.Click(ctx(t), req)
	if err != nil {
		t.Fatalf("Click(%s): %v", req.Target, err)
	}
	return res
}

func typeText(t *testing.T, s engine.Session, req engine.TypeRequest) engine.ActionResult {
	t.Helper()
	res, err := s.Type(ctx(t), req)
	if err != nil {
		t.Fatalf("Type(%s, %q): %v", req.Target, req.Text, err)
	}
	return res
}

// wantError checks that err is an *engine.Error with code, a message, and
// the given details (compared by their printed form, since details may hold
// ints or strings).
func wantError(t *testing.T, err error, code engine.Code, details map[string]any) *engine.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %s", code)
	}
	var e *engine.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *engine.Error, want %s", err, err, code)
	}
	if e.Code != code {
		t.Fatalf("error code = %s, want %s: %v (details %v)", e.Code, code, e, e.Details)
	}
	if e.Message == "" {
		t.Errorf("%s error has no message", code)
	}
	for k, want := range details {
		got, ok := e.Details[k]
		if !ok {
			t.Errorf("%s error lacks details.%s (want %v): %v", code, k, want, e.Details)
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s error details.%s = %v, want %v", code, k, got, want)
		}
	}
	return e
}

// supported reports whether err is not an UNSUPPORTED answer. An engine may
// answer UNSUPPORTED only in the agreed form: the code, and a message and
// details.browser naming the browser that lacks the feature. Anything else
// fails the test; the caller then checks err as usual.
func supported(t *testing.T, err error) bool {
	t.Helper()
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != engine.Unsupported {
		return true
	}
	b, _ := e.Details["browser"].(string)
	if b == "" || !strings.Contains(e.Message, b) {
		t.Fatalf("UNSUPPORTED must name the browser in its message and details.browser: %v (details %v)", e, e.Details)
	}
	t.Logf("%s answers UNSUPPORTED: %s", b, e.Message)
	return false
}

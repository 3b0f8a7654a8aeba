package sessions_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/uuid"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
)

// fakeEngine stands in for a browser in the Manager's unit tests, so that
// timers run under synctest's fake clock. Browser behaviour is tested
// against real browsers elsewhere.
type fakeEngine struct {
	mu      sync.Mutex
	open    int
	created int
	block   chan struct{} // when set, NewSession waits for it
	made    []*fakeSession
	profile []bool // SessionOptions.Profile of each NewSession
}

func (f *fakeEngine) Name() string { return "fake" }
func (f *fakeEngine) Start()       {}
func (f *fakeEngine) Close() error { return nil }
func (f *fakeEngine) NewSession(ctx context.Context, opts engine.SessionOptions) (engine.Session, error) {
	if f.block != nil {
		<-f.block
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.profile = append(f.profile, opts.Profile)
	f.open++
	f.created++
	s := &fakeSession{f: f}
	f.made = append(f.made, s)
	return s, nil
}

func (f *fakeEngine) openSessions() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.open
}

type fakeSession struct {
	engine.Session // methods the Manager never calls
	f              *fakeEngine
	closed         atomic.Bool
	running        atomic.Int32
	maxRun         atomic.Int32
}

// What every session must offer, fakeSession offers as an engine with
// nothing to report does (engine.NothingToReport).
func (s *fakeSession) Watch(ctx context.Context) func(context.Context, *engine.ActionResult) error {
	return engine.NothingToReport{}.Watch(ctx)
}
func (s *fakeSession) BlockedRequests() []engine.BlockedRequest { return nil }
func (s *fakeSession) Gone() <-chan struct{}                    { return nil }
func (s *fakeSession) EndedElsewhere(context.Context) bool      { return false }

func (s *fakeSession) Navigate(ctx context.Context, r engine.NavigateRequest) (engine.NavigateResult, error) {
	n := s.running.Add(1)
	defer s.running.Add(-1)
	if n > s.maxRun.Load() {
		s.maxRun.Store(n)
	}
	select {
	case <-time.After(r.Timeout):
		return engine.NavigateResult{URL: r.URL}, nil
	case <-ctx.Done():
		return engine.NavigateResult{}, ctx.Err()
	}
}
func (s *fakeSession) Click(context.Context, engine.ClickRequest) (engine.ActionResult, error) {
	return engine.ActionResult{}, engine.Errorf(engine.ElementNotFound, "no such element")
}
func (s *fakeSession) Type(context.Context, engine.TypeRequest) (engine.ActionResult, error) {
	return engine.ActionResult{}, nil
}
func (s *fakeSession) Info(context.Context) engine.PageInfo {
	return engine.PageInfo{URL: "about:blank"}
}
func (s *fakeSession) Close(context.Context) error {
	if !s.closed.Swap(true) {
		s.f.mu.Lock()
		s.f.open--
		s.f.mu.Unlock()
	}
	return nil
}

func newManager(f *fakeEngine, timeout time.Duration, max int) *sessions.Manager {
	return sessions.New(f, sessions.Config{Timeout: timeout, MaxSessions: max})
}

func code(err error) engine.Code {
	var e *engine.Error
	if !errors.As(err, &e) {
		return ""
	}
	return e.Code
}

func nav(d time.Duration) func(context.Context, engine.Session) error {
	return func(ctx context.Context, s engine.Session) error {
		_, err := s.Navigate(ctx, engine.NavigateRequest{URL: "x", Timeout: d})
		return err
	}
}

func TestCreateGivesUUIDv4AndExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newManager(&fakeEngine{}, time.Minute, 10)
		ids := map[string]bool{}
		for range 5 {
			info, err := m.Create(t.Context(), "", engine.SessionOptions{})
			if err != nil {
				t.Fatal(err)
			}
			u, err := uuid.Parse(info.ID)
			if err != nil || u.Version() != 4 {
				t.Fatalf("id %q is not a UUID v4", info.ID)
			}
			if ids[info.ID] {
				t.Fatalf("duplicate id %s", info.ID)
			}
			ids[info.ID] = true
			if got := info.ExpiresAt.Sub(info.CreatedAt); got != time.Minute {
				t.Fatalf("expiresAt - createdAt = %v, want 1m", got)
			}
		}
	})
}

func TestExpiryClosesSessionAndAnswersExpired(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeEngine{}
		m := newManager(f, time.Minute, 10)
		info, _ := m.Create(t.Context(), "", engine.SessionOptions{})
		time.Sleep(59 * time.Second)
		synctest.Wait()
		if f.openSessions() != 1 {
			t.Fatal("session closed before its expiry")
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if f.openSessions() != 0 {
			t.Fatal("expired session's browser context was not freed")
		}
		_, err := m.Run(t.Context(), info.ID, nav(time.Millisecond))
		if code(err) != engine.SessionExpired {
			t.Fatalf("call on expired session: %v, want SESSION_EXPIRED", err)
		}
		var e *engine.Error
		if errors.As(err, &e); e.SessionID != info.ID || e.Suggestion == "" {
			t.Fatalf("expired error lacks sessionId or suggestion: %+v", e)
		}
		if _, err := m.Close(t.Context(), info.ID); code(err) != engine.SessionExpired {
			t.Fatalf("close of expired session: %v", err)
		}
	})
}

func TestSuccessfulCallsSlideExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeEngine{}
		m := newManager(f, time.Minute, 10)
		info, _ := m.Create(t.Context(), "", engine.SessionOptions{})
		for range 5 {
			time.Sleep(50 * time.Second)
			got, err := m.Run(t.Context(), info.ID, nav(time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			if want := time.Now().Add(time.Minute); !got.ExpiresAt.Equal(want) {
				t.Fatalf("expiresAt = %v, want now+timeout %v", got.ExpiresAt, want)
			}
		}
		// A failed call does not extend the session.
		time.Sleep(50 * time.Second)
		if _, err := m.Run(t.Context(), info.ID, func(ctx context.Context, s engine.Session) error {
			_, err := s.Click(ctx, engine.ClickRequest{})
			return err
		}); code(err) != engine.ElementNotFound {
			t.Fatalf("click error = %v", err)
		}
		time.Sleep(11 * time.Second)
		synctest.Wait()
		if f.openSessions() != 0 {
			t.Fatal("a failed call extended the session")
		}
	})
}

func TestBusySessionIsNotExpiredMidCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeEngine{}
		m := newManager(f, time.Minute, 10)
		info, _ := m.Create(t.Context(), "", engine.SessionOptions{})
		// A call that runs past the expiry keeps the session alive.
		if _, err := m.Run(t.Context(), info.ID, nav(90*time.Second)); err != nil {
			t.Fatalf("long call failed: %v", err)
		}
		if f.openSessions() != 1 {
			t.Fatal("session expired during a call")
		}
	})
}

func TestClosedIDIsNotFound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeEngine{}
		m := newManager(f, time.Minute, 10)
		info, _ := m.Create(t.Context(), "", engine.SessionOptions{})
		if _, err := m.Close(t.Context(), info.ID); err != nil {
			t.Fatal(err)
		}
		if f.openSessions() != 0 {
			t.Fatal("close did not free the browser context")
		}
		if _, err := m.Run(t.Context(), info.ID, nav(0)); code(err) != engine.SessionNotFound {
			t.Fatalf("after close: %v, want SESSION_NOT_FOUND", err)
		}
		if _, err := m.Close(t.Context(), info.ID); code(err) != engine.SessionNotFound {
			t.Fatalf("second close: %v, want SESSION_NOT_FOUND", err)
		}
		if _, err := m.Run(t.Context(), "no-such-id", nav(0)); code(err) != engine.SessionNotFound {
			t.Fatalf("unknown id: %v", err)
		}
	})
}

func TestMaxSessionsCountsPendingCreates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeEngine{block: make(chan struct{})}
		m := newManager(f, time.Minute, 2)
		var wg sync.WaitGroup
		errs := make(chan error, 3)
		for range 3 {
			wg.Go(func() {
				_, err := m.Create(t.Context(), "", engine.SessionOptions{})
				errs <- err
			})
		}
		synctest.Wait()
		close(f.block)
		wg.Wait()
		close(errs)
		var ok, full int
		for err := range errs {
			switch code(err) {
			case "":
				ok++
			case engine.MaxSessionsReached:
				full++
			default:
				t.Fatal(err)
			}
		}
		if ok != 2 || full != 1 {
			t.Fatalf("ok=%d full=%d, want 2 and 1", ok, full)
		}
		// Closing one frees a slot.
		infos := m.List(t.Context())
		m.Close(t.Context(), infos[0].ID)
		if _, err := m.Create(t.Context(), "", engine.SessionOptions{}); err != nil {
			t.Fatalf("create after close: %v", err)
		}
	})
}

func TestCallsOnOneSessionAreSerialisedAcrossSessionsParallel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeEngine{}
		m := newManager(f, time.Hour, 10)
		a, _ := m.Create(t.Context(), "", engine.SessionOptions{})
		b, _ := m.Create(t.Context(), "", engine.SessionOptions{})
		// The Manager hands out the sessions bound (engine.Bound); the
		// engine's own are the ones it made, in order.
		sa, sb := f.made[0], f.made[1]
		start := time.Now()
		var wg sync.WaitGroup
		for _, id := range []string{a.ID, a.ID, a.ID, b.ID, b.ID, b.ID} {
			wg.Go(func() { m.Run(t.Context(), id, nav(time.Second)) })
		}
		wg.Wait()
		if sa.maxRun.Load() != 1 || sb.maxRun.Load() != 1 {
			t.Fatalf("concurrent calls on one session: %d, %d", sa.maxRun.Load(), sb.maxRun.Load())
		}
		// Three calls per session one after another, both sessions at once.
		if d := time.Since(start); d != 3*time.Second {
			t.Fatalf("took %v, want 3s (serial per session, parallel across)", d)
		}
	})
}

func TestCloseAbortsRunningCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newManager(&fakeEngine{}, time.Hour, 10)
		info, _ := m.Create(t.Context(), "", engine.SessionOptions{})
		done := make(chan error)
		go func() {
			_, err := m.Run(t.Context(), info.ID, nav(time.Hour))
			done <- err
		}()
		synctest.Wait()
		if _, err := m.Close(t.Context(), info.ID); err != nil {
			t.Fatal(err)
		}
		if err := <-done; code(err) != engine.SessionNotFound {
			t.Fatalf("aborted call: %v, want SESSION_NOT_FOUND", err)
		}
	})
}

func TestDefaultSessionAndNames(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeEngine{}
		m := newManager(f, time.Hour, 2)
		var first engine.SessionInfo
		var err error
		for range 3 {
			info, err2 := m.Run(t.Context(), "", nav(0))
			if err2 != nil {
				t.Fatal(err2)
			}
			if first.ID == "" {
				first = info
			} else if info.ID != first.ID {
				t.Fatal("omitted sessionId did not reuse the default session")
			}
		}
		if f.created != 1 {
			t.Fatalf("created %d sessions, want 1", f.created)
		}
		// The default counts toward the limit and answers to its name.
		if _, err = m.Run(t.Context(), sessions.DefaultName, nav(0)); err != nil {
			t.Fatal(err)
		}
		if _, err = m.Create(t.Context(), "work", engine.SessionOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err = m.Create(t.Context(), "more", engine.SessionOptions{}); code(err) != engine.MaxSessionsReached {
			t.Fatalf("third session: %v", err)
		}
		m.Close(t.Context(), "work")
		if _, err = m.Create(t.Context(), sessions.DefaultName, engine.SessionOptions{}); code(err) != engine.InvalidParameters {
			t.Fatalf("duplicate name: %v", err)
		}
	})
}

func TestOwnersAreIsolated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newManager(&fakeEngine{}, time.Hour, 10)
		alice := engine.WithOwner(t.Context(), "alice")
		bob := engine.WithOwner(t.Context(), "bob")
		a, _ := m.Create(alice, "", engine.SessionOptions{})
		if _, err := m.Run(bob, a.ID, nav(0)); code(err) != engine.SessionNotFound {
			t.Fatalf("bob used alice's session: %v", err)
		}
		if _, err := m.Close(bob, a.ID); code(err) != engine.SessionNotFound {
			t.Fatalf("bob closed alice's session: %v", err)
		}
		if n := len(m.List(bob)); n != 0 {
			t.Fatalf("bob sees %d sessions", n)
		}
		if n := len(m.List(alice)); n != 1 {
			t.Fatalf("alice sees %d sessions", n)
		}
		// Each owner has its own default session.
		ia, _ := m.Run(alice, "", nav(0))
		ib, _ := m.Run(bob, "", nav(0))
		if ia.ID == ib.ID {
			t.Fatal("owners share a default session")
		}
	})
}

// TestProfileDefault: with ProfileDefault, the session named default runs
// on the persistent profile, one at a time: calls racing to create it get
// the same session, and another owner's default is refused until the
// first one closes.
func TestProfileDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeEngine{block: make(chan struct{})}
		m := sessions.New(f, sessions.Config{Timeout: time.Hour, MaxSessions: 10, ProfileDefault: true})
		alice := engine.WithOwner(t.Context(), "alice")
		bob := engine.WithOwner(t.Context(), "bob")
		ids := make(chan string, 2)
		noop := func(context.Context, engine.Session) error { return nil }
		for range 2 {
			go func() {
				info, err := m.Run(alice, "", noop)
				if err != nil {
					t.Error(err)
				}
				ids <- info.ID
			}()
		}
		synctest.Wait()
		close(f.block)
		if a, b := <-ids, <-ids; a != b || f.created != 1 {
			t.Fatalf("racing calls got sessions %s and %s (%d created), want one", a, b, f.created)
		}
		if _, err := m.Create(alice, "work", engine.SessionOptions{}); err != nil {
			t.Fatal(err)
		}
		if len(f.profile) != 2 || !f.profile[0] || f.profile[1] {
			t.Fatalf("Profile of the default session and of a named one: %v", f.profile)
		}
		if _, err := m.Run(bob, "", noop); code(err) != engine.BrowserError {
			t.Fatalf("another owner's default session while the profile is held: %v", err)
		}
		if _, err := m.Close(alice, sessions.DefaultName); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Run(bob, "", noop); err != nil {
			t.Fatalf("another owner's default session once the profile is free: %v", err)
		}
	})
}

func TestShutdownClosesEverything(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeEngine{}
		m := newManager(f, time.Hour, 10)
		for range 3 {
			m.Create(t.Context(), "", engine.SessionOptions{})
		}
		m.Shutdown(t.Context())
		if f.openSessions() != 0 || m.Len() != 0 {
			t.Fatalf("open after shutdown: %d", f.openSessions())
		}
		if _, err := m.Create(t.Context(), "", engine.SessionOptions{}); err == nil {
			t.Fatal("create after shutdown succeeded")
		}
	})
}

func TestRememberedExpiredIDsAreBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newManager(&fakeEngine{}, time.Second, 10000)
		first, _ := m.Create(t.Context(), "", engine.SessionOptions{})
		time.Sleep(2 * time.Second)
		synctest.Wait()
		for range 4100 {
			m.Create(t.Context(), "", engine.SessionOptions{})
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		// The oldest expired id has been forgotten: it is now unknown.
		if _, err := m.Run(t.Context(), first.ID, nav(0)); code(err) != engine.SessionNotFound {
			t.Fatalf("oldest expired id: %v, want SESSION_NOT_FOUND once forgotten", err)
		}
	})
}

// A call kept waiting by a busy session gives up after DefaultCallTimeout
// with TIMEOUT naming what the session is busy with, and the session serves
// later calls once the busy one ends.
func TestWaitForBusySessionIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newManager(&fakeEngine{}, time.Hour, 10)
		info, _ := m.Create(t.Context(), "", engine.SessionOptions{})
		first := make(chan error)
		go func() {
			_, err := m.Run(sessions.WithOp(t.Context(), "navigate"), info.ID, nav(10*time.Minute))
			first <- err
		}()
		synctest.Wait()
		start := time.Now()
		_, err := m.Run(sessions.WithOp(t.Context(), "click"), info.ID, nav(time.Second))
		var e *engine.Error
		if !errors.As(err, &e) || e.Code != engine.Timeout || e.Details["busyWith"] != "navigate" || e.SessionID != info.ID {
			t.Fatalf("waiting for a busy session: %v, want TIMEOUT naming navigate", err)
		}
		if d := time.Since(start); d != engine.DefaultCallTimeout {
			t.Fatalf("the waiter gave up after %v, want %v", d, engine.DefaultCallTimeout)
		}
		// The caller's own deadline, when sooner, bounds the wait too.
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		if _, err := m.Run(ctx, info.ID, nav(time.Second)); engine.CodeOf(err) != engine.Timeout {
			t.Fatalf("waiting past the caller's deadline: %v, want TIMEOUT", err)
		}
		if err := <-first; err != nil {
			t.Fatalf("the busy call: %v", err)
		}
		if _, err := m.Run(t.Context(), info.ID, nav(time.Second)); err != nil {
			t.Fatalf("a call after the busy one ended: %v", err)
		}
	})
}

// goneSession is a fakeSession whose browser can die.
type goneSession struct {
	*fakeSession
	gone chan struct{}
}

func (s *goneSession) Gone() <-chan struct{} { return s.gone }

// goneEngine makes goneSessions that share one browser, killed by close(gone).
type goneEngine struct {
	*fakeEngine
	gone chan struct{}
}

func (g *goneEngine) NewSession(ctx context.Context, o engine.SessionOptions) (engine.Session, error) {
	s, err := g.fakeEngine.NewSession(ctx, o)
	if err != nil {
		return nil, err
	}
	return &goneSession{s.(*fakeSession), g.gone}, nil
}

func TestDeadBrowserFreesSessionsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeEngine{}
		g := &goneEngine{f, make(chan struct{})}
		m := sessions.New(g, sessions.Config{Timeout: time.Hour, MaxSessions: 2})
		a, _ := m.Create(t.Context(), "", engine.SessionOptions{})
		b, _ := m.Create(t.Context(), "named", engine.SessionOptions{})
		if _, err := m.Create(t.Context(), "", engine.SessionOptions{}); code(err) != engine.MaxSessionsReached {
			t.Fatalf("third create = %v; want MAX_SESSIONS_REACHED", err)
		}
		// A call running on a when the browser dies learns of it.
		running := make(chan error, 1)
		go func() {
			_, err := m.Run(t.Context(), a.ID, nav(time.Minute))
			running <- err
		}()
		synctest.Wait()
		close(g.gone)
		synctest.Wait()
		if n, open := m.Len(), f.openSessions(); n != 0 || open != 0 {
			t.Fatalf("after the browser died: %d sessions listed, %d open; want both freed", n, open)
		}
		var e *engine.Error
		if err := <-running; !errors.As(err, &e) || e.Code != engine.BrowserCrashed || !e.Retryable || e.Suggestion == "" {
			t.Fatalf("the running call answered %v; want BROWSER_CRASHED, retryable, with a suggestion", err)
		}
		// b answers BROWSER_CRASHED once (by id or name), then SESSION_NOT_FOUND.
		if _, err := m.Run(t.Context(), "named", nav(0)); !errors.As(err, &e) || e.Code != engine.BrowserCrashed || !e.Retryable || e.SessionID != b.ID {
			t.Fatalf("first call after the crash = %v; want BROWSER_CRASHED for %s", err, b.ID)
		}
		for _, ref := range []string{b.ID, "named", a.ID} {
			if _, err := m.Run(t.Context(), ref, nav(0)); code(err) != engine.SessionNotFound {
				t.Fatalf("later call on %s = %v; want SESSION_NOT_FOUND", ref, err)
			}
		}
		for range 2 {
			if _, err := m.Create(t.Context(), "", engine.SessionOptions{}); err != nil {
				t.Fatalf("create after the crash: %v", err)
			}
		}
	})
}

// endedSession is a goneSession that another server may have closed
// (engine.Ender).
type endedSession struct {
	*goneSession
	ended *atomic.Bool
}

func (s *endedSession) EndedElsewhere(context.Context) bool { return s.ended.Load() }

type endedEngine struct {
	*goneEngine
	ended *atomic.Bool
}

func (g *endedEngine) NewSession(ctx context.Context, o engine.SessionOptions) (engine.Session, error) {
	s, err := g.goneEngine.NewSession(ctx, o)
	if err != nil {
		return nil, err
	}
	return &endedSession{s.(*goneSession), g.ended}, nil
}

// TestSessionEndedElsewhere: a session another server closed (its Ender
// says so) is freed when its connection drops and answers
// SESSION_NOT_FOUND saying it was closed, every time, and also to a call
// that fails with BROWSER_CRASHED before the drop is seen; one whose
// browser died (the Ender says no) still answers BROWSER_CRASHED.
func TestSessionEndedElsewhere(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeEngine{}
		ended := &atomic.Bool{}
		g := &endedEngine{&goneEngine{f, make(chan struct{})}, ended}
		m := sessions.New(g, sessions.Config{Timeout: time.Hour, MaxSessions: 2})
		a, _ := m.Create(t.Context(), "", engine.SessionOptions{})
		crashed := func(context.Context, engine.Session) error {
			return engine.Errorf(engine.BrowserCrashed, "the browser crashed while trying to click")
		}
		if _, err := m.Run(t.Context(), a.ID, crashed); code(err) != engine.BrowserCrashed {
			t.Fatalf("a call whose browser died = %v; want BROWSER_CRASHED", err)
		}
		ended.Store(true)
		var e *engine.Error
		if _, err := m.Run(t.Context(), a.ID, crashed); !errors.As(err, &e) || e.Code != engine.SessionNotFound || !strings.Contains(e.Message, "was closed") || e.SessionID != a.ID {
			t.Fatalf("a call on a session closed elsewhere, before the drop = %v; want SESSION_NOT_FOUND saying it was closed", err)
		}
		close(g.gone)
		synctest.Wait()
		if n, open := m.Len(), f.openSessions(); n != 0 || open != 0 {
			t.Fatalf("after the session was closed elsewhere: %d sessions listed, %d open; want both freed", n, open)
		}
		for range 2 {
			if _, err := m.Run(t.Context(), a.ID, nav(0)); !errors.As(err, &e) || e.Code != engine.SessionNotFound || !strings.Contains(e.Message, "was closed") {
				t.Fatalf("a later call = %v; want SESSION_NOT_FOUND saying it was closed", err)
			}
		}
		if len(m.List(t.Context())) != 0 {
			t.Fatalf("list after the session was closed elsewhere: %v", m.List(t.Context()))
		}
	})
}

// usedBy returns the id of the session a call without sessionId runs on.
func usedBy(t *testing.T, m *sessions.Manager, ctx context.Context) (string, error) {
	t.Helper()
	var id string
	_, err := m.Run(ctx, "", func(ctx context.Context, _ engine.Session) error {
		id = engine.SessionIDFrom(ctx)
		return nil
	})
	return id, err
}

// TestActiveContext: each owner's calls without a sessionId run on its
// active context, which Switch sets and closing it resets to default; an
// expired active context answers SESSION_EXPIRED rather than falling back.
func TestActiveContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newManager(&fakeEngine{}, time.Minute, 10)
		a, b := engine.WithOwner(t.Context(), "a"), engine.WithOwner(t.Context(), "b")
		if got := m.Active(a); got != sessions.DefaultName {
			t.Fatalf("initial active = %q", got)
		}
		uk, _ := m.Create(a, "uk", engine.SessionOptions{Proxy: "socks5://127.0.0.1:1080", ProxyUsername: "u", ProxyPassword: "p"})
		if _, err := m.Switch(a, "uk"); err != nil {
			t.Fatal(err)
		}
		if id, err := usedBy(t, m, a); err != nil || id != uk.ID {
			t.Fatalf("owner a without sessionId ran on %s (%v), want uk %s", id, err, uk.ID)
		}
		// Owner b has its own default, and cannot reach a's context.
		bDefault, err := usedBy(t, m, b)
		if err != nil || bDefault == uk.ID {
			t.Fatalf("owner b without sessionId: %s, %v", bDefault, err)
		}
		if _, err := m.Switch(b, "uk"); code(err) != engine.SessionNotFound {
			t.Fatalf("owner b switching to a's context: %v", err)
		}
		if _, err := m.Close(b, "uk"); code(err) != engine.SessionNotFound {
			t.Fatalf("owner b closing a's context: %v", err)
		}
		var marked []string
		for _, i := range m.List(a) {
			if i.Active {
				marked = append(marked, i.Name)
			}
			if i.Name == "uk" && i.Proxy != "socks5://127.0.0.1:1080" {
				t.Fatalf("listed proxy = %q", i.Proxy)
			}
		}
		if len(marked) != 1 || marked[0] != "uk" {
			t.Fatalf("active marks = %v", marked)
		}
		// Closing the active context makes default active.
		if _, err := m.Close(a, "uk"); err != nil {
			t.Fatal(err)
		}
		if got := m.Active(a); got != sessions.DefaultName {
			t.Fatalf("active after close = %q", got)
		}
		// An expired active context is not replaced behind the caller.
		m.Create(a, "short", engine.SessionOptions{})
		m.Switch(a, "short")
		time.Sleep(time.Minute + time.Second)
		synctest.Wait()
		if _, err := usedBy(t, m, a); code(err) != engine.SessionExpired {
			t.Fatalf("call on an expired active context: %v", err)
		}
		if _, err := m.Switch(a, sessions.DefaultName); err != nil {
			t.Fatal(err)
		}
		if _, err := usedBy(t, m, a); err != nil {
			t.Fatal(err)
		}
		m.Shutdown(context.Background())
	})
}

// TestFindDoesNotUseTheSession: Find describes a session of the owner by
// id or name without extending its expiry; Run tells the call its
// session's name; another owner's names are not found.
func TestFindDoesNotUseTheSession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeEngine{}
		m := newManager(f, time.Minute, 10)
		info, err := m.Create(t.Context(), "uk", engine.SessionOptions{})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(30 * time.Second)
		for _, ref := range []string{"uk", info.ID} {
			got, err := m.Find(t.Context(), ref)
			if err != nil || got.ID != info.ID || got.Name != "uk" || !got.ExpiresAt.Equal(info.ExpiresAt) {
				t.Fatalf("Find(%s) = %+v, %v; want %+v unchanged", ref, got, err, info)
			}
		}
		if _, err := m.Find(engine.WithOwner(t.Context(), "other"), "uk"); code(err) != engine.SessionNotFound {
			t.Fatalf("another owner's Find: %v", err)
		}
		var name string
		if _, err := m.Run(t.Context(), info.ID, func(ctx context.Context, _ engine.Session) error {
			name = engine.SessionNameFrom(ctx)
			return nil
		}); err != nil || name != "uk" {
			t.Fatalf("the call's session name = %q, %v", name, err)
		}
		time.Sleep(31 * time.Second)
		synctest.Wait()
		if f.openSessions() != 1 {
			t.Fatal("the session expired though Run extended it")
		}
		m.Close(t.Context(), info.ID)
	})
}

// TestOnEndRunsOnceForEveryEnd: what a layer above registers with OnEnd
// runs once for a session closed, once for one that expired and once for
// each left at shutdown, after its browser context was freed.
func TestOnEndRunsOnceForEveryEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeEngine{}
		m := newManager(f, time.Minute, 10)
		var mu sync.Mutex
		ended := map[string]int{}
		m.OnEnd(func(id string) {
			mu.Lock()
			defer mu.Unlock()
			ended[id]++
		})
		count := func(id string) int {
			mu.Lock()
			defer mu.Unlock()
			return ended[id]
		}
		closed, _ := m.Create(t.Context(), "", engine.SessionOptions{})
		if _, err := m.Close(t.Context(), closed.ID); err != nil {
			t.Fatal(err)
		}
		if n := count(closed.ID); n != 1 {
			t.Fatalf("OnEnd ran %d times for a closed session, want 1", n)
		}
		m.Close(t.Context(), closed.ID) // already gone: no second end
		expiring, _ := m.Create(t.Context(), "", engine.SessionOptions{})
		time.Sleep(30 * time.Second)
		kept, _ := m.Create(t.Context(), "", engine.SessionOptions{})
		time.Sleep(31 * time.Second)
		synctest.Wait()
		if n := count(expiring.ID); n != 1 || f.openSessions() != 1 {
			t.Fatalf("OnEnd ran %d times for an expired session (open: %d), want 1", n, f.openSessions())
		}
		if n := count(kept.ID); n != 0 {
			t.Fatalf("OnEnd ran for a live session")
		}
		m.Shutdown(t.Context())
		if n := count(kept.ID); n != 1 || count(closed.ID) != 1 {
			t.Fatalf("after shutdown OnEnd ran %v", ended)
		}
	})
}

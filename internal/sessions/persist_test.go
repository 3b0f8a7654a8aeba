package sessions_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// stateEngine makes sessions that hold a storage state and a URL, and
// records the options each was created with.
type stateEngine struct {
	fakeEngine
	mu   sync.Mutex
	opts []engine.SessionOptions
}

func (e *stateEngine) NewSession(ctx context.Context, o engine.SessionOptions) (engine.Session, error) {
	s, _ := e.fakeEngine.NewSession(ctx, o)
	e.mu.Lock()
	e.opts = append(e.opts, o)
	e.mu.Unlock()
	st := engine.StorageState{Cookies: []engine.Cookie{}, Origins: []engine.OriginStorage{}}
	if o.StorageState != nil {
		st = *o.StorageState
	}
	return &stateSession{fakeSession: s.(*fakeSession), state: st}, nil
}

type stateSession struct {
	*fakeSession
	mu    sync.Mutex
	state engine.StorageState
	url   string
}

func (s *stateSession) SaveState(context.Context) (engine.StorageState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state, nil
}

func (s *stateSession) Info(context.Context) engine.PageInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return engine.PageInfo{URL: s.url}
}

func (s *stateSession) Navigate(_ context.Context, r engine.NavigateRequest) (engine.NavigateResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.url = r.URL
	return engine.NavigateResult{URL: r.URL}, nil
}

// TestPersistentSessionsRestore: with StateDir, a new Manager opens the
// sessions of the last one again, with their ids, names, owners, state and
// URL, and expiry still holds for those whose idle time ran out.
func TestPersistentSessionsRestore(t *testing.T) {
	dir := t.TempDir()
	cfg := sessions.Config{Timeout: time.Hour, MaxSessions: 5, StateDir: dir}
	e1 := &stateEngine{}
	m1 := sessions.New(e1, cfg)
	ctx := engine.WithOwner(t.Context(), "key-a")
	info, err := m1.Create(ctx, "mine", engine.SessionOptions{UserAgent: "kept/1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m1.Run(ctx, info.ID, func(ctx context.Context, s engine.Session) error {
		ss, _ := engine.As[*stateSession](s)
		ss.mu.Lock()
		ss.state.Cookies = []engine.Cookie{{Name: "c", Value: "v", Domain: "example.com"}}
		ss.mu.Unlock()
		_, err := s.Navigate(ctx, engine.NavigateRequest{URL: "https://example.com/page"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "sessions.json")
	testenv.Eventually(t, "the state file to hold the session's page", func() (bool, error) {
		b, _ := os.ReadFile(path)
		return strings.Contains(string(b), "https://example.com/page"), nil
	})
	m1.Shutdown(t.Context())
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("state file %v, %v; want mode 0600", fi, err)
	}

	e2 := &stateEngine{}
	m2 := sessions.New(e2, cfg)
	defer m2.Shutdown(context.Background())
	got, err := m2.Run(ctx, "mine", func(ctx context.Context, s engine.Session) error { return nil })
	if err != nil || got.ID != info.ID || got.Name != "mine" {
		t.Fatalf("the restored session: %+v, %v; want %s named mine", got, err, info.ID)
	}
	if _, err := m2.Run(engine.WithOwner(t.Context(), "key-b"), info.ID, func(context.Context, engine.Session) error { return nil }); code(err) != engine.SessionNotFound {
		t.Fatalf("another owner uses the restored session: %v", err)
	}
	e2.mu.Lock()
	o := e2.opts[0]
	e2.mu.Unlock()
	if o.UserAgent != "kept/1" || o.StorageState == nil || len(o.StorageState.Cookies) != 1 || o.StorageState.Cookies[0].Value != "v" {
		t.Fatalf("restored with options %+v", o)
	}
	if l := m2.List(ctx); len(l) != 1 || l[0].URL != "https://example.com/page" {
		t.Fatalf("restored sessions %+v", l)
	}
	m2.Shutdown(t.Context())

	// Down for longer than the idle timeout: SESSION_EXPIRED, not restored.
	cfg.Timeout = time.Nanosecond
	m3 := sessions.New(&stateEngine{}, cfg)
	defer m3.Shutdown(context.Background())
	if _, err := m3.Run(ctx, info.ID, func(context.Context, engine.Session) error { return nil }); code(err) != engine.SessionExpired {
		t.Fatalf("a session that expired while down: %v", err)
	}
}

// TestSwitchToDefaultDuringRestore: a switch to default made while the
// sessions are still being restored stays made: the restore does not put
// the saved active context back over it afterwards.
func TestSwitchToDefaultDuringRestore(t *testing.T) {
	dir := t.TempDir()
	cfg := sessions.Config{Timeout: time.Hour, MaxSessions: 5, StateDir: dir}
	ctx := engine.WithOwner(t.Context(), "key-a")
	m1 := sessions.New(&stateEngine{}, cfg)
	if _, err := m1.Create(ctx, "work", engine.SessionOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := m1.Switch(ctx, "work"); err != nil {
		t.Fatal(err)
	}
	m1.Shutdown(t.Context())

	synctest.Test(t, func(t *testing.T) {
		ctx := engine.WithOwner(t.Context(), "key-a")
		e2 := &stateEngine{}
		e2.block = make(chan struct{}) // the restore's NewSession waits
		m2 := sessions.New(e2, cfg)
		defer m2.Shutdown(context.Background())
		switched := make(chan engine.SessionInfo, 1)
		go func() {
			i, err := m2.Switch(ctx, sessions.DefaultName)
			if err != nil {
				t.Error(err)
			}
			switched <- i
		}()
		synctest.Wait() // the switch is waiting, the restore is held
		close(e2.block)
		if i := <-switched; i.Name != sessions.DefaultName {
			t.Fatalf("Switch(default) during the restore answered %q", i.Name)
		}
		if a := m2.Active(ctx); a != sessions.DefaultName {
			t.Fatalf("active after Switch(default) during the restore: %q", a)
		}
	})
}

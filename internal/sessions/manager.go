// Package sessions is the server's session runtime: the Manager gives the
// sessions an engine opens their ids, names and owners, runs the calls on
// each one at a time in arrival order, and ends them on close, expiry,
// crash or elsewhere. Its files go by concern: the registry of names and
// owners (registry.go), calls and turns (calls.go, turns.go), lifetime
// (lifetime.go), active contexts (contexts.go) and persistence across
// restarts (persist.go). Tools reach sessions only through it; backends
// never import it.
package sessions

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// DefaultName is the name of the session a call uses when it gives no
// sessionId.
const DefaultName = "default"

// Config configures a Manager.
type Config struct {
	// Timeout is how long a session lives after its last successful call.
	Timeout time.Duration
	// MaxSessions caps the open sessions, counting those being created.
	MaxSessions int
	// Defaults are applied to every new session's options where unset.
	Defaults engine.SessionOptions
	// OutputDir is where the server writes files for the agent: each
	// session's downloads go to OutputDir/<sessionId>/downloads, which is
	// removed with the session. Empty: browsermcp under os.TempDir().
	OutputDir string
	// DownloadDir, when set, takes the downloads instead of OutputDir:
	// DownloadDir/<sessionId>, also removed with the session.
	DownloadDir string
	// ProfileDefault gives the session named default the browser's
	// persistent profile (SessionOptions.Profile): the engine was launched
	// with a user data directory. One session holds it at a time.
	ProfileDefault bool
	// Timeouts are the default waits of calls whose request names none.
	Timeouts engine.Timeouts
	// IdleTimeout, when positive and the engine is an Idler, stops the
	// browser once no session has existed for this long; the next session
	// starts it again.
	IdleTimeout time.Duration
	// StateDir, when set, keeps the sessions across restarts of the
	// server (persist.go).
	StateDir string
	// Log gets what the Manager does on its own (persistent sessions);
	// nil: nothing is logged.
	Log *slog.Logger
}

// Manager gives sessions their ids, expiry and limits, and runs the calls on
// one session one at a time while different sessions run in parallel. Its
// lock guards only its maps; it is never held across browser I/O.
type Manager struct {
	eng engine.Engine
	cfg Config

	mu       sync.Mutex
	sessions map[string]*managed
	names    map[ownerName]*managed
	pending  int
	expired  recentIDs
	// ended are the sessions that were closed elsewhere (Ender), so that
	// they answer SESSION_NOT_FOUND saying so.
	ended recentIDs
	// crashed are the sessions whose browser died, by id and by name,
	// until a call learns of it (BROWSER_CRASHED, once).
	crashed map[ownerName]*managed
	crOrder []*managed
	closed  bool
	// idle stops the browser after IdleTimeout without a session; nil
	// while a session exists or is being created.
	idle *time.Timer
	// active is each owner's active context: the session its calls
	// without a sessionId use. An owner not here uses DefaultName.
	active map[string]activeContext
	// profile is the session that holds the persistent profile
	// (ProfileDefault); profileGate (capacity 1) lets one create of such
	// a session run at a time, so that a second finds the first's name.
	profile     *managed
	profileGate chan struct{}
	// store keeps the sessions across restarts; nil without StateDir.
	store *store
	// onEnd run after each session ends (OnEnd).
	onEnd []func(id string)
	// turns order the calls on each session by arrival (turns.go).
	turns turns
}

type ownerName struct{ owner, name string }

type managed struct {
	id, name, owner string
	// proxy is the proxy server the session was created with, for List.
	proxy   string
	sess    engine.Session
	created time.Time
	expires time.Time
	timer   *time.Timer
	busy    int
	lock    chan struct{} // capacity 1: serialises calls
	// running names the call that holds lock and since when, for the
	// error of a call that waited for it in vain.
	running      string
	runningSince time.Time
	ctx          context.Context
	cancel       context.CancelFunc
	// opts are the options it was created with, lastUsed the end of its
	// last successful call, and dirty says it may have changed since the
	// store last read it: for persistent sessions.
	opts     engine.SessionOptions
	lastUsed time.Time
	dirty    bool
}

// New returns a Manager over eng.
func New(eng engine.Engine, cfg Config) *Manager {
	if cfg.OutputDir == "" {
		cfg.OutputDir = filepath.Join(os.TempDir(), "browsermcp")
	}
	m := &Manager{
		eng:         eng,
		cfg:         cfg,
		sessions:    map[string]*managed{},
		names:       map[ownerName]*managed{},
		crashed:     map[ownerName]*managed{},
		active:      map[string]activeContext{},
		profileGate: make(chan struct{}, 1),
	}
	m.mu.Lock()
	m.idleLocked()
	m.mu.Unlock()
	if cfg.StateDir != "" {
		log := cfg.Log
		if log == nil {
			log = slog.New(slog.DiscardHandler)
		}
		m.store = newStore(cfg.StateDir, log)
		go m.persist()
	}
	return m
}

// idleLocked starts the idle timer when no session exists or is being
// created; busyLocked stops it. Call with m.mu held.
func (m *Manager) idleLocked() {
	_, ok := m.eng.(engine.Idler)
	if !ok || m.cfg.IdleTimeout <= 0 || m.closed || m.idle != nil || len(m.sessions)+m.pending > 0 {
		return
	}
	var t *time.Timer
	t = time.AfterFunc(m.cfg.IdleTimeout, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		// A session that came (and went) since left another timer.
		if m.idle != t {
			return
		}
		m.idle = nil
		if !m.closed && len(m.sessions)+m.pending == 0 && !m.eng.(engine.Idler).Idle() {
			m.idleLocked() // the browser is still starting: again later
		}
	})
	m.idle = t
}

func (m *Manager) busyLocked() {
	if m.idle != nil {
		m.idle.Stop()
		m.idle = nil
	}
}

// Len returns the number of open sessions of all owners.
func (m *Manager) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sessions)
}

// Shutdown closes every session; later calls fail. It does not close the
// engine.
func (m *Manager) Shutdown(ctx context.Context) {
	if m.store != nil {
		m.flushState(ctx)
	}
	m.mu.Lock()
	m.closed = true
	m.busyLocked()
	var all []*managed
	for _, s := range m.sessions {
		all = append(all, s)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		if m.remove(s, false) {
			wg.Go(func() { _ = m.closeSession(engine.WithCloseReason(ctx, engine.CloseShutdown), s) })
		}
	}
	wg.Wait()
}

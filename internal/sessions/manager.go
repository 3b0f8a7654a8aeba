package sessions

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/seed4af8c199/browsermcp/engine"
)

// DefaultName is the name of the session a call uses when it gives no
// sessionId.
const DefaultName = "default"

// rememberExpired bounds how many expired ids the Manager remembers so they
// answer SESSION_EXPIRED rather than SESSION_NOT_FOUND.
const rememberExpired = 4096

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

// activeContext is an owner's active context: its name (or id when it has
// none) to show, and the id of the session, which is looked up so that an
// expired context answers SESSION_EXPIRED.
type activeContext struct{ name, id string }

// activeOf is s as an active context.
func activeOf(s *managed) activeContext { return activeContext{name: cmp.Or(s.name, s.id), id: s.id} }

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

type opKey struct{}

// WithOp names the call ctx runs (a tool's name), so that a call kept
// waiting by it can say what the session is busy with.
func WithOp(ctx context.Context, op string) context.Context {
	return context.WithValue(ctx, opKey{}, op)
}

// Create opens a new session. A non-empty name must be unique for the owner
// and can then be used wherever the id is.
func (m *Manager) Create(ctx context.Context, name string, opts engine.SessionOptions) (engine.SessionInfo, error) {
	// A saved session being restored keeps its name: it is taken first.
	m.awaitRestore(ctx)
	owner := engine.OwnerOf(ctx)
	profile := m.cfg.ProfileDefault && name == DefaultName
	if profile {
		select {
		case m.profileGate <- struct{}{}:
			defer func() { <-m.profileGate }()
		case <-ctx.Done():
			return engine.SessionInfo{}, engine.Wrap(engine.BrowserError, ctx.Err(), "waiting for the persistent profile: "+ctx.Err().Error())
		}
		opts.Profile = true
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return engine.SessionInfo{}, engine.Errorf(engine.BrowserError, "the server is shutting down")
	}
	if len(m.sessions)+m.pending >= m.cfg.MaxSessions {
		m.mu.Unlock()
		return engine.SessionInfo{}, engine.Errorf(engine.MaxSessionsReached, "the server already has %d sessions, its maximum", m.cfg.MaxSessions).
			With("maxSessions", m.cfg.MaxSessions)
	}
	if name != "" {
		if _, taken := m.names[ownerName{owner, name}]; taken {
			m.mu.Unlock()
			return engine.SessionInfo{}, engine.Errorf(engine.InvalidParameters, "a session named %q already exists", name).With("field", "name")
		}
	}
	if profile && m.profile != nil {
		m.mu.Unlock()
		return engine.SessionInfo{}, engine.Errorf(engine.BrowserError, "the persistent browser profile (--user-data-dir) is held by another client's %q session; one session at a time can use it", name).
			Suggest("Call create_session without a name for an isolated session, or close the other client's default session.")
	}
	m.pending++
	m.busyLocked()
	m.mu.Unlock()

	// The id is known before the browser is asked for, so that an engine
	// can label what it creates with it (SessionIDFrom); e.g. the Grid's
	// session carries it as a capability.
	id := uuid.NewString()
	given := opts
	given.StorageState, given.DownloadDir = nil, ""
	sess, err := m.newSession(ctx, "create_session", id, name, opts)

	m.mu.Lock()
	defer m.mu.Unlock()
	m.pending--
	defer m.idleLocked()
	if err != nil {
		return engine.SessionInfo{}, err
	}
	if m.closed || (name != "" && m.names[ownerName{owner, name}] != nil) {
		// Shutdown or a concurrent create of the same name won the race.
		go engine.Bound(sess).Close(context.Background())
		if m.closed {
			return engine.SessionInfo{}, engine.Errorf(engine.BrowserError, "the server is shutting down")
		}
		return engine.SessionInfo{}, engine.Errorf(engine.InvalidParameters, "a session named %q already exists", name).With("field", "name")
	}
	s := m.holdLocked(id, name, owner, sess, time.Now())
	s.proxy = m.withDefaults(opts).Proxy
	if profile {
		m.profile = s
	}
	s.opts, s.lastUsed = given, s.created
	if m.store != nil {
		s.dirty = true
		m.store.wake()
	}
	return s.info(), nil
}

// holdLocked starts holding sess: it gets its expiry, and its name if the
// owner has no other session of that name.
func (m *Manager) holdLocked(id, name, owner string, sess engine.Session, created time.Time) *managed {
	sctx, cancel := context.WithCancel(context.Background())
	s := &managed{
		id: id, owner: owner, sess: engine.BoundWith(sess, m.cfg.Timeouts),
		created: created, expires: time.Now().Add(m.cfg.Timeout),
		lock: make(chan struct{}, 1), ctx: sctx, cancel: cancel,
	}
	s.timer = time.AfterFunc(m.cfg.Timeout, func() { m.expire(s) })
	m.sessions[s.id] = s
	if name != "" && m.names[ownerName{owner, name}] == nil {
		s.name = name
		m.names[ownerName{owner, name}] = s
		if old := m.crashed[ownerName{owner, name}]; old != nil {
			m.forgetCrashLocked(old)
		}
	}
	if gone := sess.Gone(); gone != nil { // nil: it never says
		go m.watch(s, gone)
	}
	return s
}

func (m *Manager) withDefaults(o engine.SessionOptions) engine.SessionOptions {
	if o.Viewport.Width == 0 || o.Viewport.Height == 0 {
		o.Viewport = m.cfg.Defaults.Viewport
	}
	d := m.cfg.Defaults
	o.IgnoreHTTPSErrors = o.IgnoreHTTPSErrors || d.IgnoreHTTPSErrors
	if o.UserAgent == "" {
		o.UserAgent = d.UserAgent
	}
	if o.Proxy == "" {
		// The bypass list and the login belong to the proxy they were
		// given with.
		o.Proxy, o.ProxyBypass, o.ProxyUsername, o.ProxyPassword = d.Proxy, d.ProxyBypass, d.ProxyUsername, d.ProxyPassword
	}
	if o.DeviceScaleFactor == 0 {
		o.DeviceScaleFactor = d.DeviceScaleFactor
	}
	o.InitScripts = append(slices.Clip(d.InitScripts), o.InitScripts...)
	o.Permissions = append(slices.Clip(d.Permissions), o.Permissions...)
	if o.StorageState == nil {
		o.StorageState = d.StorageState
	}
	o.BlockServiceWorkers = o.BlockServiceWorkers || d.BlockServiceWorkers
	o.IsMobile = o.IsMobile || d.IsMobile
	o.HasTouch = o.HasTouch || d.HasTouch
	return o
}

func (s *managed) info() engine.SessionInfo {
	return engine.SessionInfo{ID: s.id, Name: s.name, CreatedAt: s.created, ExpiresAt: s.expires, Proxy: s.proxy}
}

// lookup finds a session by id or name for the ctx's owner: one this
// Manager holds, or else one its engine (an Adopter) finds elsewhere.
func (m *Manager) lookup(ctx context.Context, ref string) (*managed, error) {
	s, err := m.lookupLocal(ctx, ref)
	if err != nil && m.store != nil {
		// A saved session may still be opening again.
		select {
		case <-m.store.restored:
		default:
			m.awaitRestore(ctx)
			s, err = m.lookupLocal(ctx, ref)
		}
	}
	a, shared := m.eng.(engine.Adopter)
	if err == nil || !shared || ref == "" {
		return s, err
	}
	s, aerr := m.adopt(ctx, a, ref)
	if ae := engine.AsError(aerr); aerr != nil && ae.Code == engine.SessionNotFound {
		return nil, err // this Manager's answer: it may know the id expired
	}
	return s, aerr
}

// adopt takes over a session the engine holds elsewhere (see Adopter). It
// counts against MaxSessions, and gets this Manager's expiry.
func (m *Manager) adopt(ctx context.Context, a engine.Adopter, ref string) (*managed, error) {
	owner := engine.OwnerOf(ctx)
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, engine.Errorf(engine.BrowserError, "the server is shutting down")
	}
	if len(m.sessions)+m.pending >= m.cfg.MaxSessions {
		m.mu.Unlock()
		return nil, engine.Errorf(engine.MaxSessionsReached, "the server already has %d sessions, its maximum", m.cfg.MaxSessions).
			With("maxSessions", m.cfg.MaxSessions)
	}
	m.pending++
	m.busyLocked()
	m.mu.Unlock()
	ad, err := engine.Within(ctx, "find the session", engine.NewSessionTimeout, func(ctx context.Context) (ad engine.Adopted, err error) {
		defer func() {
			if e := engine.Recovered(recover()); e != nil {
				err = e
			}
		}()
		return a.Adopt(ctx, ref, owner)
	})
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pending--
	defer m.idleLocked()
	if err != nil {
		return nil, err
	}
	if old, ok := m.sessions[ad.ID]; ok || m.closed {
		// A concurrent call adopted it first: let go of this attachment
		// only, the session stays.
		go engine.Bound(ad.Session).Close(engine.WithCloseReason(context.Background(), engine.CloseDetach))
		if ok && old.owner == owner {
			return old, nil
		}
		return nil, engine.Errorf(engine.BrowserError, "the server is shutting down")
	}
	return m.holdLocked(ad.ID, ad.Name, owner, ad.Session, ad.Created), nil
}

// lookupLocal finds a session this Manager holds.
func (m *Manager) lookupLocal(ctx context.Context, ref string) (*managed, error) {
	owner := engine.OwnerOf(ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := m.sessions[ref]; ok && s.owner == owner {
		return s, nil
	}
	if s, ok := m.names[ownerName{owner, ref}]; ok {
		return s, nil
	}
	if s, ok := m.crashed[ownerName{owner, ref}]; ok {
		m.forgetCrashLocked(s)
		e := engine.Errorf(engine.BrowserCrashed, "the browser of session %s went away (it crashed or was killed), and the session with it", s.id).
			Suggest("Call create_session for a new session: a new browser is starting. This session no longer exists.")
		e.SessionID = s.id
		return nil, e
	}
	if m.expired.of(ref, owner) {
		e := engine.Errorf(engine.SessionExpired, "session %s expired after %s without calls", ref, m.cfg.Timeout)
		e.SessionID = ref
		return nil, e
	}
	if m.ended.of(ref, owner) {
		return nil, endedErr(ref, "")
	}
	e := engine.Errorf(engine.SessionNotFound, "no session with id %q", ref)
	e.SessionID = ref
	return nil, e
}

// Owns reports whether ref (an id or a name) is an open session of ctx's
// owner.
func (m *Manager) Owns(ctx context.Context, ref string) bool {
	_, err := m.lookup(ctx, ref)
	return err == nil
}

// Find describes the owner's session named by ref (an id or a name)
// without waiting for a call running on it and without extending its
// expiry; it answers as Run would for a session that is not there.
func (m *Manager) Find(ctx context.Context, ref string) (engine.SessionInfo, error) {
	s, err := m.lookup(ctx, ref)
	if err != nil {
		return engine.SessionInfo{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return s.info(), nil
}

// Run runs fn on the session named by ref (an id or a name) once no other
// call on it is running and, when ctx carries a turn (WithTurn), once
// every call that arrived before it on the session has ended; its turn
// ends with it. An empty ref means the owner's default session, created
// on first use. On success the session's expiry slides to now + timeout.
// Errors from fn carry the session id.
func (m *Manager) Run(ctx context.Context, ref string, fn func(ctx context.Context, s engine.Session) error) (engine.SessionInfo, error) {
	defer m.Leave(turnOf(ctx))
	if err := m.WaitTurn(ctx); err != nil {
		return engine.SessionInfo{}, err
	}
	s, err := m.resolve(ctx, ref)
	if err != nil {
		return engine.SessionInfo{}, err
	}
	// A close or expiry of the session aborts the call at once.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.ctx, cancel)
	defer stop()

	if err := m.acquire(ctx, s); err != nil {
		return engine.SessionInfo{}, err
	}
	m.mu.Lock()
	s.busy++
	s.running, _ = ctx.Value(opKey{}).(string)
	s.runningSince = time.Now()
	m.mu.Unlock()

	err = fn(engine.WithSessionName(engine.WithSessionID(ctx, s.id), s.name), s.sess)

	m.mu.Lock()
	s.busy--
	live := m.sessions[s.id] == s
	if err == nil && live {
		s.expires = time.Now().Add(m.cfg.Timeout)
		s.lastUsed = time.Now()
		s.timer.Reset(m.cfg.Timeout)
	}
	info := s.info()
	m.mu.Unlock()
	<-s.lock
	if live {
		// Even a failed call may have changed the page or its cookies.
		m.changed(s)
	}

	if err != nil {
		if e := engine.AsError(err); e.Code == engine.BrowserCrashed && s.ctx.Err() == nil {
			// The browser went away, or another server closed the
			// session (then watch drops it, if it has not yet).
			// The question takes what is left of the call's own
			// deadline, at most EndedTimeout.
			d := engine.EndedTimeout
			if dl, ok := ctx.Deadline(); ok {
				d = min(d, time.Until(dl))
			}
			if d > 0 {
				ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), d)
				ended := s.sess.EndedElsewhere(ectx)
				cancel()
				if ended {
					return engine.SessionInfo{}, endedErr(s.id, "")
				}
			}
		}
		if s.ctx.Err() != nil && ctx.Err() != nil {
			return engine.SessionInfo{}, m.abortErr(s, ctx)
		}
		e := engine.AsError(err)
		e.SessionID = s.id
		return engine.SessionInfo{}, e
	}
	return info, nil
}

// acquire waits for the session's other call to end: at most
// DefaultCallTimeout, or until ctx ends. A call that waited in vain is
// TIMEOUT saying what the session is busy with, and the session stays
// usable for later calls.
func (m *Manager) acquire(ctx context.Context, s *managed) error {
	select {
	case s.lock <- struct{}{}:
		return nil
	default:
	}
	wait := time.NewTimer(engine.DefaultCallTimeout)
	defer wait.Stop()
	select {
	case s.lock <- struct{}{}:
		return nil
	case <-ctx.Done():
		if s.ctx.Err() == nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return m.busyErr(s, 0)
		}
		return m.abortErr(s, ctx)
	case <-wait.C:
		return m.busyErr(s, engine.DefaultCallTimeout)
	}
}

// busyErr is the TIMEOUT of a call that waited for a busy session.
func (m *Manager) busyErr(s *managed, waited time.Duration) *engine.Error {
	m.mu.Lock()
	op, since := s.running, s.runningSince
	m.mu.Unlock()
	if op == "" {
		op = "another call"
	}
	e := engine.Errorf(engine.Timeout, "session %s is busy with %s (running for %s); this call waited for it in vain", s.id, op, time.Since(since).Round(time.Millisecond)).
		With("busyWith", op).With("reason", "session_busy")
	if waited > 0 {
		e.With("waitedMs", waited.Milliseconds())
	}
	e.SessionID = s.id
	return e.Suggest("Calls on one session run one at a time: wait for the running call, or use another session.")
}

// abortErr explains a call that ended because its session went away.
func (m *Manager) abortErr(s *managed, ctx context.Context) error {
	if s.ctx.Err() != nil {
		m.mu.Lock()
		exp := m.expired.of(s.id, s.owner)
		ended := m.ended.of(s.id, s.owner)
		crashed := m.crashed[ownerName{s.owner, s.id}] == s
		if crashed {
			m.forgetCrashLocked(s)
		}
		m.mu.Unlock()
		if crashed {
			e := engine.Errorf(engine.BrowserCrashed, "the browser of session %s went away (it crashed or was killed) while the call ran, and the session with it", s.id).
				Suggest("Call create_session for a new session: a new browser is starting. This session no longer exists.")
			e.SessionID = s.id
			return e
		}
		if ended {
			return endedErr(s.id, " while the call ran")
		}
		code := engine.SessionNotFound
		if exp {
			code = engine.SessionExpired
		}
		e := engine.Errorf(code, "session %s was closed while the call ran", s.id)
		e.SessionID = s.id
		return e
	}
	return ctx.Err()
}

func (m *Manager) resolve(ctx context.Context, ref string) (*managed, error) {
	if ref != "" {
		return m.lookup(ctx, ref)
	}
	// The active context may be a saved session still opening again.
	m.awaitRestore(ctx)
	m.mu.Lock()
	a, ok := m.active[engine.OwnerOf(ctx)]
	m.mu.Unlock()
	if ok {
		active := a.name
		s, err := m.lookup(ctx, a.id)
		if e := engine.AsError(err); err != nil && (e.Code == engine.SessionNotFound || e.Code == engine.SessionExpired) {
			e.Message = fmt.Sprintf("your active context %q is gone: %s", active, e.Message)
			e.Suggest("Pass a sessionId, or call browser_context_switch or browser_context_create.")
			return nil, e
		}
		return s, err
	}
	if s, err := m.lookup(ctx, DefaultName); err == nil {
		return s, nil
	}
	if _, err := m.Create(ctx, DefaultName, engine.SessionOptions{}); err != nil {
		var e *engine.Error
		// A concurrent call may have created it first.
		if errors.As(err, &e) && e.Code == engine.InvalidParameters {
			return m.lookup(ctx, DefaultName)
		}
		return nil, err
	}
	return m.lookup(ctx, DefaultName)
}

// Close closes the session named by ref. A call running on it is aborted.
func (m *Manager) Close(ctx context.Context, ref string) (engine.SessionInfo, error) {
	s, err := m.lookup(ctx, ref)
	if err != nil {
		return engine.SessionInfo{}, err
	}
	if !m.remove(s, false) {
		e := engine.Errorf(engine.SessionNotFound, "session %s is already closed", s.id)
		e.SessionID = s.id
		return engine.SessionInfo{}, e
	}
	m.mu.Lock()
	if a := m.active[s.owner]; a.id == s.id {
		// Closing the active context makes "default" active.
		delete(m.active, s.owner)
	}
	m.mu.Unlock()
	return s.info(), m.closeSession(ctx, s)
}

// Active returns the owner's active context: the name (or id) of the
// session that calls without a sessionId use. It starts as
// DefaultName.
func (m *Manager) Active(ctx context.Context) string {
	m.awaitRestore(ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	if a, ok := m.active[engine.OwnerOf(ctx)]; ok {
		return a.name
	}
	return DefaultName
}

// Switch makes the session ref (a name or an id) the owner's active
// context. DefaultName is created if it does not exist yet; any
// other ref must be an open session of the owner.
func (m *Manager) Switch(ctx context.Context, ref string) (engine.SessionInfo, error) {
	// The restore sets each owner's saved active context when it ends: a
	// switch made before that would be undone.
	m.awaitRestore(ctx)
	owner := engine.OwnerOf(ctx)
	if ref == DefaultName {
		m.mu.Lock()
		delete(m.active, owner)
		m.mu.Unlock()
		m.activeChanged()
		s, err := m.resolve(ctx, "")
		if err != nil {
			return engine.SessionInfo{}, err
		}
		return m.withPage(ctx, s), nil
	}
	s, err := m.lookup(ctx, ref)
	if err != nil {
		return engine.SessionInfo{}, err
	}
	m.mu.Lock()
	if m.sessions[s.id] == s {
		m.active[owner] = activeOf(s)
	}
	m.mu.Unlock()
	m.activeChanged()
	return m.withPage(ctx, s), nil
}

// newSession asks the engine for session id (named name) with opts, its
// download directory set, within NewSessionTimeout; what names the call
// in a timeout. A panicking engine is an error, so that the caller's
// pending slot is not leaked.
func (m *Manager) newSession(ctx context.Context, what, id, name string, opts engine.SessionOptions) (engine.Session, error) {
	opts.DownloadDir = filepath.Join(m.outputDir(id), "downloads")
	if m.cfg.DownloadDir != "" {
		opts.DownloadDir = filepath.Join(m.cfg.DownloadDir, id)
	}
	ctx = engine.WithSessionName(engine.WithSessionID(ctx, id), name)
	return engine.Within(ctx, what, engine.NewSessionTimeout, func(ctx context.Context) (s engine.Session, err error) {
		defer func() {
			if e := engine.Recovered(recover()); e != nil {
				err = e
			}
		}()
		return m.eng.NewSession(ctx, m.withDefaults(opts))
	})
}

// withPage describes s with its page, as List does.
func (m *Manager) withPage(ctx context.Context, s *managed) engine.SessionInfo {
	m.mu.Lock()
	i := s.info()
	m.mu.Unlock()
	p := s.sess.Info(ctx)
	i.URL, i.Title, i.Pages = p.URL, p.Title, p.Pages
	i.Active = true
	return i
}

// remove takes s out of the maps; it reports false if s was already gone.
func (m *Manager) remove(s *managed, expired bool) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.removeLocked(s, expired)
}

func (m *Manager) removeLocked(s *managed, expired bool) bool {
	if m.sessions[s.id] != s {
		return false
	}
	delete(m.sessions, s.id)
	defer m.idleLocked()
	if m.profile == s {
		m.profile = nil
	}
	if s.name != "" {
		delete(m.names, ownerName{s.owner, s.name})
	}
	s.timer.Stop()
	if expired {
		m.expired.add(s.id, s.owner)
	}
	m.forget(s)
	return true
}

// recentIDs remembers the latest rememberExpired session ids of a kind
// (expired, ended elsewhere) with their owners, forgetting the oldest
// first. The zero value is empty; the Manager's lock guards it.
type recentIDs struct {
	owners map[string]string // id -> owner
	order  []string
}

// add remembers session id of owner.
func (r *recentIDs) add(id, owner string) {
	if r.owners == nil {
		r.owners = map[string]string{}
	}
	r.owners[id] = owner
	r.order = append(r.order, id)
	if len(r.order) > rememberExpired {
		delete(r.owners, r.order[0])
		r.order = r.order[1:]
	}
}

// of reports whether session id of owner is remembered.
func (r *recentIDs) of(id, owner string) bool {
	o, ok := r.owners[id]
	return ok && o == owner
}

// OnEnd registers f to run with a session's id once the session has ended
// (closed, expired, lost with its browser, ended by another server, or at
// shutdown), after its browser context is closed and its files removed:
// what a layer above keeps for a session goes with it. f runs outside the
// Manager's lock, once per session.
func (m *Manager) OnEnd(f func(id string)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.onEnd = append(m.onEnd, f)
}

// closeSession aborts any running call, waits for it, and frees the browser
// context.
func (m *Manager) closeSession(ctx context.Context, s *managed) error {
	s.cancel()
	s.lock <- struct{}{}
	defer func() { <-s.lock }()
	err := s.sess.Close(ctx)
	// The session's files (its downloads) go with it.
	if rerr := os.RemoveAll(m.outputDir(s.id)); err == nil && rerr != nil {
		err = engine.Wrap(engine.BrowserError, rerr, "could not remove the session's files: "+rerr.Error())
	}
	m.mu.Lock()
	ends := slices.Clone(m.onEnd)
	m.mu.Unlock()
	for _, f := range ends {
		f(s.id)
	}
	return err
}

// outputDir is where the server writes the files of session id.
func (m *Manager) outputDir(id string) string {
	return filepath.Join(m.cfg.OutputDir, id)
}

// watch frees s as soon as its browser goes away (gone closes), or
// returns once s is closed. The next call on s answers BROWSER_CRASHED,
// once; later ones SESSION_NOT_FOUND. A session that another server
// closed (an Ender that says so) answers SESSION_NOT_FOUND saying it was
// closed, every time.
func (m *Manager) watch(s *managed, gone <-chan struct{}) {
	select {
	case <-s.ctx.Done():
		return
	case <-gone:
	}
	ctx, cancel := context.WithTimeout(context.Background(), engine.EndedTimeout)
	ended := s.sess.EndedElsewhere(ctx)
	cancel()
	m.mu.Lock()
	removed := m.removeLocked(s, false)
	if removed && ended {
		m.ended.add(s.id, s.owner)
	} else if removed {
		m.crashed[ownerName{s.owner, s.id}] = s
		if s.name != "" {
			m.crashed[ownerName{s.owner, s.name}] = s
		}
		m.crOrder = append(m.crOrder, s)
		if len(m.crOrder) > rememberExpired {
			m.forgetCrashLocked(m.crOrder[0])
		}
	}
	m.mu.Unlock()
	if removed {
		_ = m.closeSession(context.Background(), s)
	}
}

// endedErr is the SESSION_NOT_FOUND of session id, which was closed
// elsewhere (Ender); when adds to the message. Who closed it is not known
// for sure: the Grid also drops a session, minutes later, whose browser or
// node it lost (that session answered BROWSER_CRASHED meanwhile).
func endedErr(id, when string) *engine.Error {
	e := engine.Errorf(engine.SessionNotFound, "session %s was closed%s: the Grid no longer has it; another server (replica) that shares it closed it (close_session or expiry), or the Grid ended it after losing its browser or node", id, when).
		Suggest("Call create_session for a new session, or list_sessions to see the open ones.")
	e.SessionID = id
	return e
}

// forgetCrashLocked drops s from the crashed sessions.
func (m *Manager) forgetCrashLocked(s *managed) {
	delete(m.crashed, ownerName{s.owner, s.id})
	if s.name != "" && m.crashed[ownerName{s.owner, s.name}] == s {
		delete(m.crashed, ownerName{s.owner, s.name})
	}
	if i := slices.Index(m.crOrder, s); i >= 0 {
		m.crOrder = slices.Delete(m.crOrder, i, i+1)
	}
}

// expire runs from the session's timer.
func (m *Manager) expire(s *managed) {
	m.mu.Lock()
	if s.busy > 0 && m.sessions[s.id] == s {
		// An agent mid-call must not lose its session: try again later.
		s.timer.Reset(m.cfg.Timeout)
		m.mu.Unlock()
		return
	}
	removed := m.removeLocked(s, true)
	m.mu.Unlock()
	if removed {
		_ = m.closeSession(engine.WithCloseReason(context.Background(), engine.CloseExpired), s)
	}
}

// List returns the owner's sessions, oldest first, with their page URL and
// title. It does not wait for busy sessions.
func (m *Manager) List(ctx context.Context) []engine.SessionInfo {
	// The saved sessions are listed once they are open again.
	m.awaitRestore(ctx)
	owner := engine.OwnerOf(ctx)
	m.mu.Lock()
	var ss []*managed
	for _, s := range m.sessions {
		if s.owner == owner {
			ss = append(ss, s)
		}
	}
	a, ok := m.active[owner]
	infos := make([]engine.SessionInfo, len(ss))
	for i, s := range ss {
		infos[i] = s.info()
		infos[i].Active = (ok && a.id == s.id) || (!ok && s.name == DefaultName)
	}
	m.mu.Unlock()
	for i, s := range ss {
		p := s.sess.Info(ctx)
		infos[i].URL, infos[i].Title, infos[i].Pages = p.URL, p.Title, p.Pages
	}
	if a, ok := m.eng.(engine.Adopter); ok {
		infos = m.withShared(ctx, a, infos)
	}
	sort.Slice(infos, func(i, j int) bool { return infos[i].CreatedAt.Before(infos[j].CreatedAt) })
	return infos
}

// withShared adds the owner's sessions that other servers hold, and
// leaves out those held here that the engine no longer lists: another
// server closed them (every session of an Adopter may be ended
// elsewhere), and this one has not noticed yet. When the engine cannot list them, the list is
// this Manager's alone.
func (m *Manager) withShared(ctx context.Context, a engine.Adopter, infos []engine.SessionInfo) []engine.SessionInfo {
	ctx, cancel := context.WithTimeout(ctx, engine.InfoTimeout)
	defer cancel()
	shared, err := a.Shared(ctx, engine.OwnerOf(ctx))
	if err != nil {
		return infos
	}
	there := map[string]bool{}
	for _, i := range shared {
		there[i.ID] = true
	}
	infos = slices.DeleteFunc(infos, func(i engine.SessionInfo) bool { return !there[i.ID] })
	held := map[string]bool{}
	for _, i := range infos {
		held[i.ID] = true
	}
	for _, i := range shared {
		if !held[i.ID] {
			infos = append(infos, i)
		}
	}
	return infos
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

package sessions

import (
	"context"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/google/uuid"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Registry: sessions by id and by owner and name. Create, the lookup of a
// ref (an id or a name) for its owner, Grid adoption of a session another
// server holds, and List.

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

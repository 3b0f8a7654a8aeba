package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Persistent sessions (session.persistentSessions) outlive the server: the
// Manager keeps each session's id, name, owner, options, cookies,
// localStorage and page URL in one file under Config.StateDir, and
// a new Manager over the same directory opens them again, with the same
// ids. The file is rewritten after every call that may have changed a
// session (in the background, by one saver) and at Shutdown; it is written
// to a temporary file and renamed, so a kill at any moment leaves the last
// whole file. A session whose idle time ran out while the server was down
// is not restored: it answers SESSION_EXPIRED.

// stateFile is the name of the file under StateDir.
const stateFile = "sessions.json"

// snapshotTimeout bounds reading one session's state for the file.
const snapshotTimeout = 10 * time.Second

// savedSessions is the file's JSON.
type savedSessions struct {
	Version  int            `json:"version"`
	Sessions []savedSession `json:"sessions"`
	// Active is each owner's active context other than "default": the
	// id of its session, by owner ("" is stdio's).
	Active map[string]string `json:"active,omitempty"`
}

// savedSession is one session in the file.
type savedSession struct {
	ID        string                `json:"id"`
	Name      string                `json:"name,omitempty"`
	Owner     string                `json:"owner,omitempty"`
	CreatedAt time.Time             `json:"createdAt"`
	LastUsed  time.Time             `json:"lastUsed"`
	URL       string                `json:"url,omitempty"`
	Options   engine.SessionOptions `json:"options"`
	State     engine.StorageState   `json:"state"`
}

// store is the Manager's side of the file.
type store struct {
	path string
	log  *slog.Logger
	// kick wakes the saver; restored is closed once the file's sessions
	// are open again (or the attempt is over); done once the saver ends.
	kick     chan struct{}
	stop     chan struct{}
	restored chan struct{}
	done     chan struct{}
	stopOnce sync.Once

	// wmu serialises writes of the file.
	wmu sync.Mutex
	mu  sync.Mutex
	// saved holds the last snapshot of each session, by id.
	saved map[string]savedSession
	// frozen is set at Shutdown once the last file is written: sessions
	// closed by the shutdown stay in it.
	frozen bool
}

func newStore(dir string, log *slog.Logger) *store {
	return &store{path: filepath.Join(dir, stateFile), log: log, kick: make(chan struct{}, 1), stop: make(chan struct{}),
		restored: make(chan struct{}), done: make(chan struct{}), saved: map[string]savedSession{}}
}

// wake asks the saver for a pass; it never blocks.
func (st *store) wake() {
	select {
	case st.kick <- struct{}{}:
	default:
	}
}

// awaitRestore waits until the saved sessions are open again, or ctx ends.
func (m *Manager) awaitRestore(ctx context.Context) {
	if m.store == nil {
		return
	}
	select {
	case <-m.store.restored:
	case <-ctx.Done():
	}
}

// changed marks s as possibly changed, for the saver.
func (m *Manager) changed(s *managed) {
	if m.store == nil {
		return
	}
	m.mu.Lock()
	s.dirty = true
	m.mu.Unlock()
	m.store.wake()
}

// activeChanged has the file record an owner's new active context.
func (m *Manager) activeChanged() {
	if m.store != nil {
		m.store.wake()
	}
}

// forget drops a closed session from the file.
func (m *Manager) forget(s *managed) {
	if m.store == nil {
		return
	}
	m.store.mu.Lock()
	_, had := m.store.saved[s.id]
	if !m.store.frozen {
		delete(m.store.saved, s.id)
	}
	m.store.mu.Unlock()
	if had {
		m.store.wake()
	}
}

// persist runs for the Manager's life: it restores the saved sessions,
// then rewrites the file whenever a session changed.
func (m *Manager) persist() {
	st := m.store
	defer close(st.done)
	m.restore()
	close(st.restored)
	for {
		select {
		case <-st.stop:
			return
		case <-st.kick:
		}
		m.mu.Lock()
		var dirty []*managed
		for _, s := range m.sessions {
			if s.dirty {
				s.dirty = false
				dirty = append(dirty, s)
			}
		}
		m.mu.Unlock()
		for _, s := range dirty {
			m.snapshot(s, false)
		}
		m.writeState()
	}
}

// snapshot reads s's state into the store. Unless wait is set it does not
// wait for a running call: the call marks s again as it ends.
func (m *Manager) snapshot(s *managed, wait bool) {
	ctx, cancel := context.WithTimeout(s.ctx, snapshotTimeout)
	defer cancel()
	select {
	case s.lock <- struct{}{}:
	default:
		if !wait {
			return
		}
		select {
		case s.lock <- struct{}{}:
		case <-ctx.Done():
			return
		}
	}
	state, url, err := func() (st engine.StorageState, url string, err error) {
		defer func() {
			if e := engine.Recovered(recover()); e != nil {
				err = e
			}
		}()
		st, err = s.sess.SaveState(ctx)
		return st, s.sess.Info(ctx).URL, err
	}()
	<-s.lock
	if err != nil {
		m.store.log.Warn("could not read a session's state to keep it", "session", s.id, "err", err)
		return
	}
	m.mu.Lock()
	saved := savedSession{ID: s.id, Name: s.name, Owner: s.owner, CreatedAt: s.created, LastUsed: s.lastUsed,
		URL: url, Options: s.opts, State: state}
	live := m.sessions[s.id] == s
	m.mu.Unlock()
	m.store.mu.Lock()
	if live && !m.store.frozen {
		m.store.saved[s.id] = saved
	}
	m.store.mu.Unlock()
}

// writeState writes the store to its file, atomically and readable by
// the user only.
func (m *Manager) writeState() {
	st := m.store
	// One write at a time, and not under mu, which forget takes while
	// the Manager's own lock is held.
	st.wmu.Lock()
	defer st.wmu.Unlock()
	// The active contexts, read before st.mu: forget takes st.mu under
	// the Manager's lock.
	active := map[string]string{}
	m.mu.Lock()
	for owner, a := range m.active {
		active[owner] = a.id
	}
	m.mu.Unlock()
	st.mu.Lock()
	if st.frozen {
		st.mu.Unlock()
		return
	}
	f := savedSessions{Version: 1, Sessions: []savedSession{}, Active: map[string]string{}}
	for _, s := range st.saved {
		f.Sessions = append(f.Sessions, s)
		if active[s.Owner] == s.ID {
			f.Active[s.Owner] = s.ID // kept only while its session is
		}
	}
	st.mu.Unlock()
	if err := writeFileAtomic(st.path, f); err != nil {
		st.log.Error("could not save the sessions", "file", st.path, "err", err)
	}
}

func writeFileAtomic(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".sessions-*.json") // mode 0600
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // gone after the rename
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return engine.FileError(engine.BrowserError, err, "cannot write "+tmp.Name())
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// restore opens the sessions of the file again, with their ids, owners,
// state and URL; a session whose idle time ran out is remembered as
// expired instead.
func (m *Manager) restore() {
	st := m.store
	b, err := os.ReadFile(st.path)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	var f savedSessions
	if err == nil {
		err = json.Unmarshal(b, &f)
	}
	if err != nil {
		st.log.Error("could not read the saved sessions; starting without them", "file", st.path, "err", err)
		return
	}
	var wg sync.WaitGroup
	for _, saved := range f.Sessions {
		left := time.Until(saved.LastUsed.Add(m.cfg.Timeout))
		if left <= 0 {
			m.mu.Lock()
			m.expired.add(saved.ID, saved.Owner)
			m.mu.Unlock()
			st.log.Info("a saved session expired while the server was down", "session", saved.ID)
			continue
		}
		// Kept in the file until it is open again, so that a kill during
		// the restore loses nothing.
		st.mu.Lock()
		st.saved[saved.ID] = saved
		st.mu.Unlock()
		wg.Go(func() {
			if err := m.reopen(saved, left); err != nil {
				st.log.Warn("could not restore a saved session", "session", saved.ID, "err", err)
				st.mu.Lock()
				delete(st.saved, saved.ID)
				st.mu.Unlock()
			}
		})
	}
	wg.Wait()
	// Each owner's active context comes back with its session; one that
	// is not open again (expired, or failed to open) leaves "default"
	// active.
	m.mu.Lock()
	for owner, id := range f.Active {
		if s := m.sessions[id]; s != nil && s.owner == owner {
			m.active[owner] = activeOf(s)
		}
	}
	m.mu.Unlock()
	m.writeState()
}

// reopen opens one saved session again; it expires left from now.
func (m *Manager) reopen(saved savedSession, left time.Duration) error {
	ctx := engine.WithOwner(context.Background(), saved.Owner)
	// The default session on the persistent profile (--user-data-dir)
	// holds it again, as Create's would: one session at a time, and only
	// when this server has the profile; else it opens in a fresh context.
	profile := saved.Options.Profile && m.cfg.ProfileDefault && saved.Name == DefaultName
	if profile {
		m.profileGate <- struct{}{}
		defer func() { <-m.profileGate }()
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return errors.New("the server is shutting down")
	}
	profile = profile && m.profile == nil
	if len(m.sessions)+m.pending >= m.cfg.MaxSessions {
		m.mu.Unlock()
		return engine.Errorf(engine.MaxSessionsReached, "the server already has %d sessions, its maximum", m.cfg.MaxSessions)
	}
	m.pending++
	m.busyLocked()
	m.mu.Unlock()

	opts := saved.Options
	opts.Profile = profile
	state := saved.State
	opts.StorageState = &state
	sess, err := m.newSession(ctx, "restore a session", saved.ID, saved.Name, opts)
	m.mu.Lock()
	m.pending--
	if err == nil && (m.closed || m.sessions[saved.ID] != nil) {
		go engine.Bound(sess).Close(context.Background())
		err = errors.New("the server is shutting down")
	}
	if err != nil {
		m.idleLocked()
		m.mu.Unlock()
		return err
	}
	s := m.holdLocked(saved.ID, saved.Name, saved.Owner, sess, saved.CreatedAt)
	s.proxy = m.withDefaults(opts).Proxy
	if profile {
		m.profile = s
	}
	s.opts, s.lastUsed = saved.Options, saved.LastUsed
	s.opts.Profile = profile
	s.expires = time.Now().Add(left)
	s.timer.Reset(left)
	m.mu.Unlock()

	if saved.URL != "" && saved.URL != "about:blank" {
		// The page comes back where it was; a page that no longer loads
		// leaves the session, with its cookies, on a blank page.
		s.lock <- struct{}{}
		_, nerr := s.sess.Navigate(s.ctx, engine.NavigateRequest{URL: saved.URL})
		<-s.lock
		if nerr != nil {
			m.store.log.Warn("a restored session could not load its page again", "session", saved.ID, "url", saved.URL, "err", nerr)
		}
	}
	m.changed(s)
	return nil
}

// flushState writes every session's state at Shutdown, before the
// sessions close, and freezes the file: closing them does not remove them
// from it.
func (m *Manager) flushState(ctx context.Context) {
	st := m.store
	select {
	case <-st.restored:
	case <-ctx.Done():
	}
	st.stopOnce.Do(func() { close(st.stop) })
	select {
	case <-st.done:
	case <-ctx.Done():
	}
	m.mu.Lock()
	all := make([]*managed, 0, len(m.sessions))
	for _, s := range m.sessions {
		all = append(all, s)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Go(func() { m.snapshot(s, true) })
	}
	wg.Wait()
	m.writeState()
	st.mu.Lock()
	st.frozen = true
	st.mu.Unlock()
}

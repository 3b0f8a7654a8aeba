package sessions

import (
	"context"
	"os"
	"path/filepath"
	"slices"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Lifetime: how sessions end. Close and expiry, a browser that crashed or
// a session ended elsewhere (answered once, then forgotten), the ids that
// still answer SESSION_EXPIRED, and the download directories removed with
// a session.

// rememberExpired bounds how many expired ids the Manager remembers so they
// answer SESSION_EXPIRED rather than SESSION_NOT_FOUND.
const rememberExpired = 4096

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

package sessions

import (
	"cmp"
	"context"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Contexts: each owner's active context, the session its calls without a
// sessionId use (Active, Switch).

// activeContext is an owner's active context: its name (or id when it has
// none) to show, and the id of the session, which is looked up so that an
// expired context answers SESSION_EXPIRED.
type activeContext struct{ name, id string }

// activeOf is s as an active context.
func activeOf(s *managed) activeContext { return activeContext{name: cmp.Or(s.name, s.id), id: s.id} }

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

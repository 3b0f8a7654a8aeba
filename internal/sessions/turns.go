package sessions

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Turns: the calls on one session run in the order they arrived. A client
// may send navigate, click and snapshot without waiting for the answers
// (pipelining, or an agent's parallel tool calls); the session lock alone
// would run them in whatever order their goroutines reach it. The
// transport takes a turn for each call as it reads it, in order (Arrive),
// and hands its token to the call; Run (or WaitTurn) waits until every
// earlier turn the call must follow has ended, then takes the session. A
// turn ends when its call ends, is cancelled, or its request goes away
// (Leave), so a cancelled call leaves the line at once.
//
// Each owner has one line. A call that names its session follows the
// earlier calls on that session; a call that names none (the active
// context, which a browser_context_switch read before it may change by
// the time it runs) follows every earlier call of its owner, and every
// later call of its owner follows it. Calls on different sessions that
// name them run in parallel.

// maxTurns bounds the turns waiting at once: past it a call takes no turn
// and is ordered by the session lock alone.
const maxTurns = 4096

// turns holds the lines of waiting and running calls, one per owner.
type turns struct {
	mu    sync.Mutex
	next  uint64
	byTok map[string]*turn
	lines map[string][]*turn // by owner, in arrival order
}

// turn is one call's place in its owner's line.
type turn struct {
	owner string
	key   string        // the session it named: its id, or owner and name
	name  string        // the session as the call named it, for errors
	any   bool          // the call names no session: it follows, and is followed by, every call of its owner
	left  chan struct{} // closed when the turn ends or is dropped
	// reached: its call reached WaitTurn. dropped: a later call waited
	// DefaultCallTimeout for it before its call reached WaitTurn (a turn
	// whose request was lost), so it left the line; its call, should it
	// still come, runs ordered by the session lock alone.
	reached, dropped bool
}

// after reports whether t must wait for u, which arrived before it.
func (t *turn) after(u *turn) bool { return t.any || u.any || t.key == u.key }

type turnKey struct{}

// WithTurn returns ctx carrying the token of the call's turn (Arrive):
// Run then waits for the turns before it.
func WithTurn(ctx context.Context, token string) context.Context {
	if token == "" {
		return ctx
	}
	return context.WithValue(ctx, turnKey{}, token)
}

func turnOf(ctx context.Context) string {
	t, _ := ctx.Value(turnKey{}).(string)
	return t
}

// Arrive takes the next turn on the session that ref names for ctx's
// owner (an id, a name, or "" for the active context, whichever it is
// when the call runs), and returns its token. The transport calls it as
// it reads each call, in order; it never waits. The session need not
// exist yet: a name or the default context that a call is about to
// create has its line too.
func (m *Manager) Arrive(ctx context.Context, ref string) string {
	owner := engine.OwnerOf(ctx)
	key, name := m.lineOf(owner, ref)
	q := &m.turns
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.byTok) >= maxTurns {
		return ""
	}
	if q.byTok == nil {
		q.byTok, q.lines = map[string]*turn{}, map[string][]*turn{}
	}
	q.next++
	tok := strconv.FormatUint(q.next, 10)
	t := &turn{owner: owner, key: key, name: name, any: ref == "", left: make(chan struct{})}
	q.byTok[tok] = t
	q.lines[owner] = append(q.lines[owner], t)
	return tok
}

// lineOf is the key of the session ref names: its id when the session is
// open, else the owner and the name.
func (m *Manager) lineOf(owner, ref string) (key, name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ref == "" {
		if a, ok := m.active[owner]; ok {
			return a.id, a.name
		}
		ref = DefaultName
	}
	if s, ok := m.sessions[ref]; ok && s.owner == owner {
		return s.id, ref
	}
	if s, ok := m.names[ownerName{owner, ref}]; ok {
		return s.id, ref
	}
	return "\x00" + owner + "\x00" + ref, ref
}

// Leave ends the turn of token: its call ended, was cancelled, or its
// request went away. The next call on the session may start. Leaving a
// turn twice, or an unknown one, does nothing.
func (m *Manager) Leave(token string) {
	if token == "" {
		return
	}
	q := &m.turns
	q.mu.Lock()
	defer q.mu.Unlock()
	t, ok := q.byTok[token]
	if !ok {
		return
	}
	delete(q.byTok, token)
	if !t.dropped {
		q.drop(t)
	}
}

// drop takes t out of its line and lets the calls behind it go; q.mu is
// held.
func (q *turns) drop(t *turn) {
	line := q.lines[t.owner]
	if i := slices.Index(line, t); i >= 0 {
		line = slices.Delete(line, i, i+1)
	}
	if len(line) == 0 {
		delete(q.lines, t.owner)
	} else {
		q.lines[t.owner] = line
	}
	t.dropped = true
	close(t.left)
}

// before is the last turn before t that t must wait for, or nil; q.mu is
// held.
func (q *turns) before(t *turn) *turn {
	line := q.lines[t.owner]
	for i := slices.Index(line, t) - 1; i >= 0; i-- {
		if t.after(line[i]) {
			return line[i]
		}
	}
	return nil
}

// WaitTurn waits until every turn before the one ctx carries (WithTurn)
// that its call must follow has ended; Run calls it, and the tools that
// change which session calls run on (a switch, a close) call it before
// they do. It waits at most DefaultCallTimeout, as a call waits for a busy
// session, or until ctx ends. When the wait runs out, the turns before it
// whose calls never came (requests lost before their handler) leave the
// line and the call goes on; if a call before it is still waiting or
// running, the call answers TIMEOUT session_busy. A turn that already
// ended was cancelled (Leave): its call must not run.
func (m *Manager) WaitTurn(ctx context.Context) error {
	tok := turnOf(ctx)
	if tok == "" {
		return nil
	}
	q := &m.turns
	q.mu.Lock()
	t, ok := q.byTok[tok]
	if !ok {
		q.mu.Unlock()
		return context.Canceled
	}
	t.reached = true
	q.mu.Unlock()
	var wait *time.Timer
	for {
		q.mu.Lock()
		if t.dropped {
			// Left by Leave (cancelled), or dropped while its call was
			// lost on the way.
			_, ok := q.byTok[tok]
			q.mu.Unlock()
			if !ok {
				return context.Canceled
			}
			return nil
		}
		prev := q.before(t)
		q.mu.Unlock()
		if prev == nil {
			return nil
		}
		if wait == nil {
			wait = time.NewTimer(engine.DefaultCallTimeout)
			defer wait.Stop()
		}
		select {
		case <-prev.left:
		case <-ctx.Done():
			return ctx.Err()
		case <-wait.C:
			q.mu.Lock()
			line := q.lines[t.owner]
			for _, u := range slices.Clone(line[:slices.Index(line, t)]) {
				if !u.reached && t.after(u) {
					q.drop(u)
				}
			}
			busy := q.before(t) != nil
			q.mu.Unlock()
			if !busy {
				return nil
			}
			e := engine.Errorf(engine.Timeout, "session %s is busy with the calls sent before this one; this call waited %s for them in vain", t.name, engine.DefaultCallTimeout).
				With("reason", "session_busy").With("waitedMs", engine.DefaultCallTimeout.Milliseconds())
			e.SessionID = t.name
			return e.Suggest("Calls on one session run one at a time, in the order they arrive: wait for the earlier calls, or use another session.")
		}
	}
}

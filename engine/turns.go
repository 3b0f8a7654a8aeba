package engine

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Turns: the calls on one session run in the order they arrived. A client
// may send navigate, click and snapshot without waiting for the answers
// (pipelining, or an agent's parallel tool calls); the session lock alone
// would run them in whatever order their goroutines reach it. The
// transport takes a turn for each call as it reads it, in order (Arrive),
// and hands its token to the call; Use waits until every earlier turn of
// the same session has ended, then takes the session. A turn ends when
// its call ends, is cancelled, or its request goes away (Leave), so a
// cancelled call leaves the line at once. Calls on different sessions
// have different lines and run in parallel.

// maxTurns bounds the turns waiting at once: past it a call takes no turn
// and is ordered by the session lock alone.
const maxTurns = 4096

// turns holds the lines of waiting and running calls, one per session.
type turns struct {
	mu    sync.Mutex
	next  uint64
	byTok map[string]*turn
	lines map[string][]*turn // by session key, in arrival order
}

// turn is one call's place in its session's line.
type turn struct {
	key  string
	name string        // the session as the call named it, for errors
	left chan struct{} // closed when the turn ends
}

type turnKey struct{}

// WithTurn returns ctx carrying the token of the call's turn (Arrive):
// Use then waits for the turns before it.
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
// owner (an id, a name, or "" for the active context), and returns its
// token. The transport calls it as it reads each call, in order; it never
// waits. The session need not exist yet: a name or the default context
// that a call is about to create has its line too.
func (m *Manager) Arrive(ctx context.Context, ref string) string {
	key, name := m.lineOf(ownerOf(ctx), ref)
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
	t := &turn{key: key, name: name, left: make(chan struct{})}
	q.byTok[tok] = t
	q.lines[key] = append(q.lines[key], t)
	return tok
}

// lineOf is the key of the line of the session ref names: its id when the
// session is open, else the owner and the name.
func (m *Manager) lineOf(owner, ref string) (key, name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ref == "" {
		if a, ok := m.active[owner]; ok {
			return a.id, a.name
		}
		ref = DefaultSessionName
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
	line := q.lines[t.key]
	if i := slices.Index(line, t); i >= 0 {
		line = slices.Delete(line, i, i+1)
	}
	if len(line) == 0 {
		delete(q.lines, t.key)
	} else {
		q.lines[t.key] = line
	}
	close(t.left)
}

// waitTurn waits until every turn before ctx's on its session has ended:
// at most DefaultCallTimeout, as a call waits for a busy session, or until
// ctx ends. A turn that already ended was cancelled (Leave): its call
// must not run.
func (m *Manager) waitTurn(ctx context.Context) error {
	tok := turnOf(ctx)
	if tok == "" {
		return nil
	}
	var wait *time.Timer
	for {
		q := &m.turns
		q.mu.Lock()
		t, ok := q.byTok[tok]
		if !ok {
			q.mu.Unlock()
			return context.Canceled
		}
		line := q.lines[t.key]
		i := slices.Index(line, t)
		if i <= 0 {
			q.mu.Unlock()
			return nil
		}
		prev := line[i-1].left
		q.mu.Unlock()
		if wait == nil {
			wait = time.NewTimer(DefaultCallTimeout)
			defer wait.Stop()
		}
		select {
		case <-prev:
		case <-ctx.Done():
			return ctx.Err()
		case <-wait.C:
			e := Errorf(Timeout, "session %s is busy with the calls sent before this one; this call waited %s for them in vain", t.name, DefaultCallTimeout).
				With("reason", "session_busy").With("waitedMs", DefaultCallTimeout.Milliseconds())
			e.SessionID = t.name
			return e.Suggest("Calls on one session run one at a time, in the order they arrive: wait for the earlier calls, or use another session.")
		}
	}
}

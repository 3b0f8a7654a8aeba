package sessions

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Calls: Run runs one call on a session at a time, in the order the calls
// arrived (turns.go), under the session's context, and answers a call kept
// waiting too long with what the session is busy with.

type opKey struct{}

// WithOp names the call ctx runs (a tool's name), so that a call kept
// waiting by it can say what the session is busy with.
func WithOp(ctx context.Context, op string) context.Context {
	return context.WithValue(ctx, opKey{}, op)
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

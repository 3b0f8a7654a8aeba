package grid

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/cdp"
)

// session is one Grid session: engine/cdp's session in the Grid's browser,
// the cdp engine attached to that browser, and the keep-alive.
type session struct {
	// engine/cdp's: every page call goes straight to it, and so does what
	// every session offers (engine.Reporter, engine.BlockedLog), except
	// Gone and EndedElsewhere, which are the Grid's (below).
	engine.Session

	e       *Engine
	browser *cdp.Engine
	gridID  string
	log     *slog.Logger

	stop      context.CancelFunc // ends the keep-alive
	done      chan struct{}      // closed when the keep-alive has ended
	lost      atomic.Bool        // the keep-alive found the browser gone
	closeOnce sync.Once
	closeErr  error

	ended   chan struct{} // closed once the Grid no longer lists the session
	endOnce sync.Once
}

func newSession(e *Engine, inner engine.Session, browser *cdp.Engine, gridID string, log *slog.Logger) *session {
	ctx, stop := context.WithCancel(context.Background())
	s := &session{Session: inner, e: e, browser: browser, gridID: gridID, log: log, stop: stop,
		done: make(chan struct{}), ended: make(chan struct{})}
	go s.keepAlive(ctx)
	go s.watchEnd(ctx, inner.Gone())
	return s
}

// watchEnd asks the Grid, once the connection to the session's browser
// is lost (gone), whether another server closed the session.
func (s *session) watchEnd(ctx context.Context, gone <-chan struct{}) {
	select {
	case <-ctx.Done():
		return
	case <-gone:
	}
	ectx, cancel := context.WithTimeout(ctx, engine.EndedTimeout)
	defer cancel()
	s.EndedElsewhere(ectx)
}

// Gone closes when another server closed the session (engine.Ender): the
// Manager then drops it. A browser or node that died does not close it;
// the session's calls answer BROWSER_CRASHED until it is closed.
func (s *session) Gone() <-chan struct{} { return s.ended }

// keepAlive sends the Grid a WebDriver command for the session at once and
// then every KeepAlive until the session closes. It keeps the node's session timeout
// from ending the session, and finds a browser that died: the Grid keeps
// the se:cdp websocket of a dead browser open, so the CDP connection alone
// would leave calls waiting for their deadline.
func (s *session) keepAlive(ctx context.Context) {
	defer close(s.done)
	t := time.NewTicker(s.e.cfg.KeepAlive)
	defer t.Stop()
	unreachable := 0 // beats in a row the Grid could not pass to the node
	// The first beat goes at once: a server that just adopted the session
	// holds it from now on, and the expiry of another server that held it
	// must see that (shared.go).
	for first := true; ; first = false {
		if !first {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
		_, err := s.e.beat(ctx, s.gridID, false)
		if nodeUnreachable(err) {
			unreachable++
		} else {
			unreachable = 0
		}
		switch {
		case err == nil || ctx.Err() != nil:
		case gone(err) || unreachable >= unreachableBeats:
			s.log.Warn("the Grid session's browser is gone", "err", err)
			s.lost.Store(true)
			s.browser.Lost()
			return
		default:
			s.log.Debug("keeping the Grid session alive", "err", err)
		}
	}
}

// unreachableBeats is how many keep-alives in a row the Grid must fail to
// pass to the session's node before the node counts as dead: one may be a
// blip of the network.
const unreachableBeats = 2

// nodeUnreachable reports whether the Grid's router could not reach the
// node that holds the session: it then answers 408 with no WebDriver error
// code ({"value": {"message": "Connection failure"}}), at once, and goes on
// doing so until its health check drops the node minutes later.
func nodeUnreachable(err error) bool {
	var we *wdError
	return errors.As(err, &we) && we.Status == http.StatusRequestTimeout && we.Code == ""
}

// gone reports whether a WebDriver answer says the session's browser or
// node is gone (rather than, say, the Grid being slow).
func gone(err error) bool {
	var we *wdError
	if !errors.As(err, &we) {
		return false
	}
	switch we.Code {
	case "invalid session id", "no such window", "disconnected", "chrome not reachable":
		return true
	}
	return we.Status == http.StatusNotFound
}

// Close ends the session or only lets go of it, by why it closes (see
// shared.go): close_session deletes the Grid session (which ends the
// browser); expiry and shutdown delete it unless another server holds it
// (shutdown: or KeepOnShutdown is set); a detach (a second attachment of a
// concurrent adoption) only lets go. The deletion gets its own bounded time even when ctx has run
// out, because a Grid session left behind holds a slot until the node's
// timeout.
func (s *session) Close(ctx context.Context) error {
	s.closeOnce.Do(func() {
		s.stop()
		<-s.done
		reason := engine.CloseReasonOf(ctx)
		if reason == engine.CloseDetach {
			s.release()
			return
		}
		if reason != engine.CloseRequested && !s.lost.Load() {
			others, err := s.e.beat(context.WithoutCancel(ctx), s.gridID, true)
			if (reason == engine.CloseShutdown && s.e.cfg.KeepOnShutdown) || (err == nil && others > 0) {
				s.log.Info("letting go of the Grid session", "otherHolders", others, "shutdown", reason == engine.CloseShutdown)
				s.release()
				return
			}
		}
		s.closeErr = s.Session.Close(ctx)
		s.browser.Close()
		s.e.deleteGridSession(context.WithoutCancel(ctx), s.gridID)
		s.e.forget(s)
	})
	return s.closeErr
}

// release detaches from the session's browser and leaves its pages as they
// are, for another server to adopt.
func (s *session) release() {
	s.stop()
	<-s.done
	s.browser.Close() // the session's pages are Shared: this only detaches
	s.e.forget(s)
}

// EndedElsewhere reports whether the Grid no longer lists the session
// (engine.Ender): another server deleted it (its close_session or expiry).
// A browser or node that died leaves the session listed (until the Grid's
// health check drops the node, minutes later), and so does a Grid that
// does not answer: that is false, BROWSER_CRASHED.
func (s *session) EndedElsewhere(ctx context.Context) bool {
	select {
	case <-s.ended:
		return true
	default:
	}
	ss, err := s.e.listSessions(ctx)
	if err != nil {
		s.log.Debug("asking the Grid whether the session was closed", "err", err)
		return false
	}
	for _, g := range ss {
		if g.ID == s.gridID {
			return false
		}
	}
	s.endOnce.Do(func() {
		s.log.Info("the Grid session was closed elsewhere")
		close(s.ended)
	})
	return true
}

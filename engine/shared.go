package engine

import (
	"context"
	"time"
)

// Sessions that outlive their server. An engine whose browsers live
// elsewhere (engine/grid: on a Selenium Grid) lets several servers share
// them: any server serves any session. Such an engine is an Adopter, and the
// Manager asks it for a session it does not hold before it answers
// SESSION_NOT_FOUND.

// Adopter is an Engine whose sessions other servers can take over.
type Adopter interface {
	// Adopt attaches to the session that ref names (its id, or its name)
	// for owner, which another server (or this one, earlier) created. A
	// session of another owner is not found: the error is
	// SESSION_NOT_FOUND, exactly as for a session that does not exist.
	Adopt(ctx context.Context, ref, owner string) (Adopted, error)
	// Shared lists owner's sessions wherever they are held, without
	// attaching to them (so URL, Title and ExpiresAt stay empty).
	Shared(ctx context.Context, owner string) ([]SessionInfo, error)
}

// Adopted is a session an Adopter attached to.
type Adopted struct {
	Session Session
	ID      string
	Name    string
	Created time.Time
}

// CloseReason says why a session closes, for an engine whose sessions
// outlive the server: only an agent's close_session ends them for
// certain.
type CloseReason int

// The reasons a session closes.
const (
	// CloseRequested is an agent's close_session: the session ends.
	CloseRequested CloseReason = iota
	// CloseExpired is the session's idle expiry in this server: it ends
	// unless another server holds it still (an Adopter's engine decides).
	CloseExpired
	// CloseShutdown is this server going away: the session ends, unless the
	// engine is set to leave shared sessions for another server to adopt
	// (engine/grid's KeepOnShutdown).
	CloseShutdown
	// CloseDetach lets go of this server's attachment only: the session
	// stays for whoever else holds it (a second attachment a concurrent
	// adoption made).
	CloseDetach
)

type closeReasonKey struct{}

// WithCloseReason marks ctx, given to Session.Close, with why it closes.
func WithCloseReason(ctx context.Context, r CloseReason) context.Context {
	return context.WithValue(ctx, closeReasonKey{}, r)
}

// CloseReasonOf returns the reason WithCloseReason put into ctx;
// CloseRequested when none.
func CloseReasonOf(ctx context.Context) CloseReason {
	r, _ := ctx.Value(closeReasonKey{}).(CloseReason)
	return r
}

// SessionInfo describes one session: what the session runtime and an
// Adopter say about it.
type SessionInfo struct {
	ID        string
	Name      string
	CreatedAt time.Time
	ExpiresAt time.Time
	URL       string
	Title     string
	// Pages is how many pages (tabs) the session has; List sets it.
	Pages int
	// Proxy is the session's proxy server, without its login.
	Proxy string
	// Active marks the owner's active context; List sets it.
	Active bool
}

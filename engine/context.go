package engine

import "context"

// What a call's context carries about the session it runs on. The session
// runtime (internal/sessions) puts these in; backends read them.

type sessionIDKey struct{}

// WithSessionID marks ctx as running on, or creating, the session id.
func WithSessionID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, sessionIDKey{}, id)
}

// SessionIDFrom returns the id of the session a call runs on, or of the
// session an Engine's NewSession creates.
func SessionIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(sessionIDKey{}).(string)
	return id
}

type sessionNameKey struct{}

// WithSessionName marks ctx as running on, or creating, the session name.
func WithSessionName(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, sessionNameKey{}, name)
}

// SessionNameFrom returns the name of the session an Engine's NewSession
// creates ("" when it has none), for an engine that labels what it creates
// with it; in a call the session runtime runs, the name of its session.
func SessionNameFrom(ctx context.Context) string {
	n, _ := ctx.Value(sessionNameKey{}).(string)
	return n
}

type ownerKey struct{}

// WithOwner marks ctx as acting for owner (an API key's identity). Sessions
// created under an owner are invisible to every other owner.
func WithOwner(ctx context.Context, owner string) context.Context {
	return context.WithValue(ctx, ownerKey{}, owner)
}

// OwnerOf returns the owner WithOwner put into ctx; "" is the owner of
// stdio and in-process clients.
func OwnerOf(ctx context.Context) string {
	o, _ := ctx.Value(ownerKey{}).(string)
	return o
}

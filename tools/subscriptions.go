package tools

import (
	"context"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/seed4af8c199/browsermcp/engine"
)

// subscriptions remembers which client sessions watch which resources of
// which browser session, so that a navigation sends
// notifications/resources/updated to exactly them. A subscription only
// counts for the owner (API key) it was made as.
type subscriptions struct {
	srv *server.MCPServer

	mu      sync.Mutex
	watch   map[string][]subscriber // browser session id -> subscribers
	lastURL map[string]string       // browser session id -> URL last seen
}

type subscriber struct {
	client, uri, owner string
}

func newSubscriptions(srv *server.MCPServer, hooks *server.Hooks, d *Deps) *subscriptions {
	s := &subscriptions{srv: srv, watch: map[string][]subscriber{}, lastURL: map[string]string{}}
	hooks.AddAfterSubscribe(func(ctx context.Context, _ any, req *mcp.SubscribeRequest, _ *mcp.EmptyResult) {
		cs := server.ClientSessionFromContext(ctx)
		id := sessionOfURI(req.Params.URI)
		if cs == nil || id == "" {
			return
		}
		// Resolve names, and ignore sessions the caller does not own.
		info, err := findSession(ctx, d, id)
		if err != nil {
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if _, ok := s.lastURL[info.ID]; !ok {
			s.lastURL[info.ID] = info.URL
		}
		s.watch[info.ID] = append(s.watch[info.ID], subscriber{client: cs.SessionID(), uri: req.Params.URI, owner: engine.OwnerOf(ctx)})
	})
	hooks.AddAfterUnsubscribe(func(ctx context.Context, _ any, req *mcp.UnsubscribeRequest, _ *mcp.EmptyResult) {
		if cs := server.ClientSessionFromContext(ctx); cs != nil {
			s.drop(func(sub subscriber) bool { return sub.client == cs.SessionID() && sub.uri == req.Params.URI })
		}
	})
	hooks.AddOnUnregisterSession(func(_ context.Context, cs server.ClientSession) {
		s.drop(func(sub subscriber) bool { return sub.client == cs.SessionID() })
	})
	return s
}

func (s *subscriptions) drop(match func(subscriber) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, subs := range s.watch {
		kept := subs[:0]
		for _, sub := range subs {
			if !match(sub) {
				kept = append(kept, sub)
			}
		}
		if len(kept) == 0 {
			delete(s.watch, id)
			delete(s.lastURL, id)
		} else {
			s.watch[id] = kept
		}
	}
}

// sessionOfURI is the session id in browser:///KIND/{sessionId}[/...].
func sessionOfURI(uri string) string {
	rest, ok := strings.CutPrefix(uri, ResourceScheme)
	if !ok {
		return ""
	}
	parts := strings.Split(rest, "/")
	if len(parts) < 2 {
		return ""
	}
	return parts[1]
}

// afterCall runs after every successful call on a session: when someone
// watches it and its page URL changed, it tells them. It costs nothing for
// sessions nobody watches.
func (s *subscriptions) afterCall(ctx context.Context, id string, sess engine.Session) {
	if s == nil {
		return
	}
	s.mu.Lock()
	_, watched := s.watch[id]
	s.mu.Unlock()
	if !watched {
		return
	}
	url := sess.Info(ctx).URL
	owner := engine.OwnerOf(ctx)
	s.mu.Lock()
	changed := s.lastURL[id] != url
	s.lastURL[id] = url
	subs := append([]subscriber(nil), s.watch[id]...)
	s.mu.Unlock()
	if !changed {
		return
	}
	for _, sub := range subs {
		if sub.owner == owner {
			s.srv.SendNotificationToSpecificClient(sub.client, "notifications/resources/updated", map[string]any{"uri": sub.uri})
		}
	}
}

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
//
// Clients subscribe in one of two ways. Up to protocol 2025-11-25 a client
// session sends resources/subscribe and is reached by its session id.
// Protocol 2026-07-28 has no client sessions: a client opens a
// subscriptions/listen stream naming the URIs, and mcp-go serves it with a
// session that lives as long as the stream and is registered nowhere we can
// look it up by id, so the subscriber keeps the stream's session itself.
type subscriptions struct {
	srv *server.MCPServer

	mu      sync.Mutex
	watch   map[string][]subscriber // browser session id -> subscribers
	lastURL map[string]string       // browser session id -> URL last seen
}

type subscriber struct {
	client, uri, owner string
	// stream is the session of a subscriptions/listen stream; nil for a
	// resources/subscribe subscription, which client names.
	stream server.ClientSession
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
	hooks.AddBeforeSubscriptionsListen(func(ctx context.Context, _ any, req *mcp.SubscriptionsListenRequest) {
		cs := server.ClientSessionFromContext(ctx)
		if cs == nil {
			return
		}
		owner := engine.OwnerOf(ctx)
		for _, uri := range req.Params.Notifications.ResourceSubscriptions {
			id := sessionOfURI(uri)
			if id == "" {
				continue
			}
			// A URI of a session the caller does not own is not watched,
			// though mcp-go acknowledges it: telling the client which URIs
			// were refused would tell it which sessions exist.
			info, err := findSession(ctx, d, id)
			if err != nil {
				continue
			}
			s.mu.Lock()
			if _, ok := s.lastURL[info.ID]; !ok {
				s.lastURL[info.ID] = info.URL
			}
			s.watch[info.ID] = append(s.watch[info.ID], subscriber{uri: uri, owner: owner, stream: cs})
			s.mu.Unlock()
		}
	})
	// The listen request returns when its stream closes, or fails.
	endListen := func(ctx context.Context) {
		if cs := server.ClientSessionFromContext(ctx); cs != nil {
			s.drop(func(sub subscriber) bool { return sub.stream == cs })
		}
	}
	hooks.AddAfterSubscriptionsListen(func(ctx context.Context, _ any, _ *mcp.SubscriptionsListenRequest, _ *mcp.SubscriptionsListenResult) {
		endListen(ctx)
	})
	hooks.AddOnError(func(ctx context.Context, _ any, method mcp.MCPMethod, _ any, _ error) {
		if method == mcp.MethodSubscriptionsListen {
			endListen(ctx)
		}
	})
	hooks.AddAfterUnsubscribe(func(ctx context.Context, _ any, req *mcp.UnsubscribeRequest, _ *mcp.EmptyResult) {
		if cs := server.ClientSessionFromContext(ctx); cs != nil {
			s.drop(func(sub subscriber) bool { return sub.client == cs.SessionID() && sub.uri == req.Params.URI })
		}
	})
	hooks.AddOnUnregisterSession(func(_ context.Context, cs server.ClientSession) {
		s.drop(func(sub subscriber) bool { return sub.stream == nil && sub.client == cs.SessionID() })
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
	rest, ok := cutScheme(uri)
	if !ok {
		return ""
	}
	parts := strings.Split(rest, "/")
	if len(parts) < 2 {
		return ""
	}
	return parts[1]
}

// Before is the subscriptions' side of Observer: nothing.
func (s *subscriptions) Before(context.Context, Call) {}

// After tells the subscribers of a session, after every successful call
// on it, when its page URL changed. It costs nothing for sessions nobody
// watches.
func (s *subscriptions) After(ctx context.Context, c Call, _ *mcp.CallToolResult, err error) {
	if err != nil || c.Session == nil {
		return
	}
	id, sess := c.SessionID, c.Session
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
		if sub.owner != owner {
			continue
		}
		if sub.stream == nil {
			s.srv.SendNotificationToSpecificClient(sub.client, mcp.MethodNotificationResourceUpdated, map[string]any{"uri": sub.uri})
		} else {
			notifyStream(sub.stream, sub.uri)
		}
	}
}

// notifyStream puts notifications/resources/updated on a listen stream,
// which tags it with the stream's subscription id. It skips a stream that
// does not (or no longer) hold the subscription in mcp-go's record, which
// the stream drops when it closes. Like mcp-go's own fan-out it never
// blocks: a full channel drops the notification.
func notifyStream(cs server.ClientSession, uri string) {
	if r, ok := cs.(server.SessionWithResourceSubscriptions); ok && !r.IsSubscribedToResource(uri) {
		return
	}
	n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
		Method: mcp.MethodNotificationResourceUpdated,
		Params: mcp.NotificationParams{AdditionalFields: map[string]any{"uri": uri}},
	}}
	select {
	case cs.NotificationChannel() <- n:
	default:
	}
}

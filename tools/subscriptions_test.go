package tools_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/internal/httpservetest"
	"github.com/seed4af8c199/browsermcp/tools"
)

// A client subscribed to a session's page hears of its navigations, and of
// nothing else; another API key cannot watch that session.
func TestResourceSubscriptionNotifiesOnNavigation(t *testing.T) {
	s := startHTTP(t, tools.Options{})
	watch := func(key string) (*sync.Mutex, *[]string, func() []string) {
		var mu sync.Mutex
		var got []string
		return &mu, &got, func() []string { mu.Lock(); defer mu.Unlock(); return slices.Clone(got) }
	}
	a := legacySSEClient(t, s, httpservetest.KeyA)
	mu, got, updates := watch(httpservetest.KeyA)
	a.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/resources/updated" {
			mu.Lock()
			*got = append(*got, n.Params.AdditionalFields["uri"].(string))
			mu.Unlock()
		}
	})
	b := legacySSEClient(t, s, httpservetest.KeyB)
	bmu, bgot, bupdates := watch(httpservetest.KeyB)
	b.OnNotification(func(n mcp.JSONRPCNotification) {
		bmu.Lock()
		*bgot = append(*bgot, n.Method)
		bmu.Unlock()
	})

	id := a.OK("create_session", nil)["sessionId"].(string)
	a.OK("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
	uri := "browser:///page/" + id + "/0"
	if err := a.Subscribe(t.Context(), mcp.SubscribeRequest{Params: mcp.SubscribeParams{URI: uri}}); err != nil {
		t.Fatal(err)
	}
	// Key B subscribing to A's session is ignored.
	b.Subscribe(t.Context(), mcp.SubscribeRequest{Params: mcp.SubscribeParams{URI: uri}})

	a.OK("get_text", map[string]any{"sessionId": id, "selector": "h1"})
	a.OK("type", map[string]any{"sessionId": id, "selector": "#user", "text": "sub"})
	a.OK("click", map[string]any{"sessionId": id, "selector": "#go"})
	deadline := time.Now().Add(5 * time.Second)
	for len(updates()) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if u := updates(); len(u) != 1 || u[0] != uri {
		t.Fatalf("updates = %v, want one for %s", u, uri)
	}
	if n := bupdates(); slices.Contains(n, "notifications/resources/updated") {
		t.Fatal("another key heard of the session's navigation")
	}
	if err := a.Unsubscribe(t.Context(), mcp.UnsubscribeRequest{Params: mcp.UnsubscribeParams{URI: uri}}); err != nil {
		t.Fatal(err)
	}
	a.OK("navigate", map[string]any{"sessionId": id, "url": site.URL + "/catalog.html"})
	time.Sleep(200 * time.Millisecond)
	if u := updates(); len(u) != 1 {
		t.Fatalf("update after unsubscribe: %v", u)
	}
}

// legacySSEClient pins protocol 2025-06-18, where resources/subscribe is a
// request of its own.
func legacySSEClient(t *testing.T, s *httpservetest.Server, key string) *httpservetest.Client {
	t.Helper()
	tr, err := transport.NewSSE(s.URL+"/sse", transport.WithHeaders(map[string]string{"Authorization": "Bearer " + key}))
	if err != nil {
		t.Fatal(err)
	}
	return httpservetest.Connect(t, client.NewClient(tr, client.WithProtocolVersion("2025-06-18")))
}

// On protocol 2026-07-28 a client opts in with subscriptions/listen instead
// of resources/subscribe: the stream carries notifications/resources/updated
// for the sessions of its own key, and never for another key's.
func TestListenStreamNotifiesOnNavigation(t *testing.T) {
	s := startHTTP(t, tools.Options{})
	a := modernClient(t, s, httpservetest.KeyA)
	b := modernClient(t, s, httpservetest.KeyB)
	aSeen, bSeen := recordNotifications(a), recordNotifications(b)

	idA := a.OK("create_session", nil)["sessionId"].(string)
	a.OK("navigate", map[string]any{"sessionId": idA, "url": site.URL + "/form.html"})
	idB := b.OK("create_session", nil)["sessionId"].(string)
	b.OK("navigate", map[string]any{"sessionId": idB, "url": site.URL + "/form.html"})
	uriA, uriB := "browser:///page/"+idA+"/0", "browser:///page/"+idB+"/0"

	listen(t, a, aSeen, uriA)
	// Key B asks for A's page as well as its own.
	listen(t, b, bSeen, uriA, uriB)

	a.OK("get_text", map[string]any{"sessionId": idA, "selector": "h1"})
	a.OK("type", map[string]any{"sessionId": idA, "selector": "#user", "text": "sub"})
	a.OK("click", map[string]any{"sessionId": idA, "selector": "#go"})
	waitFor(t, aSeen, func(u []string) bool { return len(u) > 0 })
	if u := aSeen.updates(); len(u) != 1 || u[0] != uriA {
		t.Fatalf("key A's updates = %v, want one for %s", u, uriA)
	}
	// B's own navigation comes after A's on B's stream, so once B hears of
	// it, it would have heard of A's.
	b.OK("navigate", map[string]any{"sessionId": idB, "url": site.URL + "/catalog.html"})
	waitFor(t, bSeen, func(u []string) bool { return len(u) > 0 })
	if u := bSeen.updates(); len(u) != 1 || u[0] != uriB {
		t.Fatalf("key B's updates = %v, want only its own %s", u, uriB)
	}
}

// seen records the URIs of notifications/resources/updated and whether the
// listen stream was acknowledged.
type seen struct {
	mu    sync.Mutex
	uris  []string
	acked int
}

func (s *seen) updates() []string { s.mu.Lock(); defer s.mu.Unlock(); return slices.Clone(s.uris) }

func recordNotifications(c *httpservetest.Client) *seen {
	s := &seen{}
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		s.mu.Lock()
		defer s.mu.Unlock()
		switch n.Method {
		case mcp.MethodNotificationResourceUpdated:
			s.uris = append(s.uris, n.Params.AdditionalFields["uri"].(string))
		case mcp.MethodNotificationSubscriptionsAcknowledged:
			s.acked++
		}
	})
	return s
}

// listen opens a subscriptions/listen stream for uris and waits for its
// acknowledgement, so that nothing the test does next can go unheard.
func listen(t *testing.T, c *httpservetest.Client, s *seen, uris ...string) {
	t.Helper()
	stop, err := c.ListenAsync(context.Background(), mcp.SubscriptionFilter{ResourceSubscriptions: uris}, func(err error) { t.Errorf("listen: %v", err) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.mu.Lock()
		acked := s.acked
		s.mu.Unlock()
		if acked > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("subscriptions/listen was never acknowledged")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func waitFor(t *testing.T, s *seen, done func([]string) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !done(s.updates()) {
		if time.Now().After(deadline) {
			t.Fatalf("no update arrived; got %v", s.updates())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// modernClient speaks protocol 2026-07-28 over Streamable HTTP.
func modernClient(t *testing.T, s *httpservetest.Server, key string) *httpservetest.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(s.URL+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + key}))
	if err != nil {
		t.Fatal(err)
	}
	c := httpservetest.Connect(t, client.NewClient(tr, client.WithProtocolVersion(mcp.ProtocolVersion20260728)))
	if v := c.ProtocolVersion(); v != mcp.ProtocolVersion20260728 {
		t.Fatalf("negotiated %q, want %s", v, mcp.ProtocolVersion20260728)
	}
	return c
}

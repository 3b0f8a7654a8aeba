package tools_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/internal/httpservetest"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
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
	subscribe(t, a, uri)
	// Key B subscribing to A's session is ignored.
	//lint:ignore SA1019 resources/subscribe is what this test is about: clients before protocol 2026-07-28 still use it.
	b.Subscribe(t.Context(), mcp.SubscribeRequest{Params: mcp.SubscribeParams{URI: uri}})

	a.OK("get_text", map[string]any{"sessionId": id, "selector": "h1"})
	a.OK("type", map[string]any{"sessionId": id, "selector": "#user", "text": "sub"})
	a.OK("click", map[string]any{"sessionId": id, "selector": "#go"})
	testenv.Eventually(t, "an update", func() (bool, error) { return len(updates()) > 0, nil })
	if u := updates(); len(u) != 1 || u[0] != uri {
		t.Fatalf("updates = %v, want one for %s", u, uri)
	}
	if n := bupdates(); slices.Contains(n, "notifications/resources/updated") {
		t.Fatal("another key heard of the session's navigation")
	}
	//lint:ignore SA1019 resources/unsubscribe is what this test is about: clients before protocol 2026-07-28 still use it.
	if err := a.Unsubscribe(t.Context(), mcp.UnsubscribeRequest{Params: mcp.UnsubscribeParams{URI: uri}}); err != nil {
		t.Fatal(err)
	}
	a.OK("navigate", map[string]any{"sessionId": id, "url": site.URL + "/catalog.html"})
	// The server sends a client's notifications in order on its one
	// stream: once the update of a later navigation, of a session A still
	// watches, has arrived, one for the navigation above would have too.
	later := a.OK("create_session", nil)["sessionId"].(string)
	a.OK("navigate", map[string]any{"sessionId": later, "url": site.URL + "/form.html"})
	laterURI := "browser:///page/" + later + "/0"
	subscribe(t, a, laterURI)
	a.OK("navigate", map[string]any{"sessionId": later, "url": site.URL + "/catalog.html"})
	testenv.Eventually(t, "the update of the later navigation", func() (bool, error) {
		return slices.Contains(updates(), laterURI), nil
	})
	if u := updates(); !slices.Equal(u, []string{uri, laterURI}) {
		t.Fatalf("updates = %v, want none after unsubscribe (only %s, then %s)", u, uri, laterURI)
	}
}

// subscribe subscribes c to uri with resources/subscribe.
func subscribe(t *testing.T, c *httpservetest.Client, uri string) {
	t.Helper()
	//lint:ignore SA1019 resources/subscribe is what this test is about: clients before protocol 2026-07-28 still use it.
	if err := c.Subscribe(t.Context(), mcp.SubscribeRequest{Params: mcp.SubscribeParams{URI: uri}}); err != nil {
		t.Fatal(err)
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
	waitUpdate(t, aSeen)
	if u := aSeen.updates(); len(u) != 1 || u[0] != uriA {
		t.Fatalf("key A's updates = %v, want one for %s", u, uriA)
	}
	// B's own navigation comes after A's on B's stream, so once B hears of
	// it, it would have heard of A's.
	b.OK("navigate", map[string]any{"sessionId": idB, "url": site.URL + "/catalog.html"})
	waitUpdate(t, bSeen)
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
	testenv.Eventually(t, "the acknowledgement of subscriptions/listen", func() (bool, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.acked > 0, nil
	})
}

// waitUpdate waits for the first notifications/resources/updated.
func waitUpdate(t *testing.T, s *seen) {
	t.Helper()
	testenv.Eventually(t, "an update", func() (bool, error) { return len(s.updates()) > 0, nil })
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

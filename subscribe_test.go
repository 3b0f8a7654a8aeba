package main

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/tools"
)

// A client subscribed to a session's page hears of its navigations, and of
// nothing else; another API key cannot watch that session.
func TestResourceSubscriptionNotifiesOnNavigation(t *testing.T) {
	s := startServer(t, tools.Options{})
	watch := func(key string) (*sync.Mutex, *[]string, func() []string) {
		var mu sync.Mutex
		var got []string
		return &mu, &got, func() []string { mu.Lock(); defer mu.Unlock(); return slices.Clone(got) }
	}
	a := legacySSEClient(t, s, keyA)
	mu, got, updates := watch(keyA)
	a.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == "notifications/resources/updated" {
			mu.Lock()
			*got = append(*got, n.Params.AdditionalFields["uri"].(string))
			mu.Unlock()
		}
	})
	b := legacySSEClient(t, s, keyB)
	bmu, bgot, bupdates := watch(keyB)
	b.OnNotification(func(n mcp.JSONRPCNotification) {
		bmu.Lock()
		*bgot = append(*bgot, n.Method)
		bmu.Unlock()
	})

	id := ok(t, a, "create_session", nil)["sessionId"].(string)
	ok(t, a, "navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
	uri := "browser:///page/" + id + "/0"
	if err := a.Subscribe(t.Context(), mcp.SubscribeRequest{Params: mcp.SubscribeParams{URI: uri}}); err != nil {
		t.Fatal(err)
	}
	// Key B subscribing to A's session is ignored.
	b.Subscribe(t.Context(), mcp.SubscribeRequest{Params: mcp.SubscribeParams{URI: uri}})

	ok(t, a, "get_text", map[string]any{"sessionId": id, "selector": "h1"})
	ok(t, a, "type", map[string]any{"sessionId": id, "selector": "#user", "text": "sub"})
	ok(t, a, "click", map[string]any{"sessionId": id, "selector": "#go"})
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
	ok(t, a, "navigate", map[string]any{"sessionId": id, "url": site.URL + "/catalog.html"})
	time.Sleep(200 * time.Millisecond)
	if u := updates(); len(u) != 1 {
		t.Fatalf("update after unsubscribe: %v", u)
	}
}

// legacySSEClient pins protocol 2025-06-18, where resources/subscribe is a
// request of its own.
func legacySSEClient(t *testing.T, s *testServer, key string) *client.Client {
	t.Helper()
	tr, err := transport.NewSSE(s.url+"/sse", transport.WithHeaders(map[string]string{"Authorization": "Bearer " + key}))
	if err != nil {
		t.Fatal(err)
	}
	return connect(t, client.NewClient(tr, client.WithProtocolVersion("2025-06-18")))
}

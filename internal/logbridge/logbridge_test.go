package logbridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine/cdp"
	"github.com/seed4af8c199/browsermcp/internal/logbridge"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testenv/mcpcheck"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
	"github.com/seed4af8c199/browsermcp/tools"
)

// A client that sets logging/setLevel debug gets the server's debug records
// about its own requests as notifications/message.
func TestLoggingNotifications(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	logs, err := logbridge.New(logbridge.Options{Level: "error", Format: "text"}, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer logs.Close()
	// The browser never starts: a call on a session that does not exist
	// fails before the engine is asked for anything.
	eng := cdp.New(cdp.Config{Headless: true})
	defer eng.Close()
	mgr := sessions.New(eng, sessions.Config{Timeout: time.Minute, MaxSessions: 20})
	defer mgr.Shutdown(context.Background())
	srv := tools.NewServer(mgr, tools.Options{Version: "test", Log: logs.Logger})
	logs.Attach(srv)

	c, err := client.NewInProcessClient(srv)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []mcp.JSONRPCNotification
	c.OnNotification(func(n mcp.JSONRPCNotification) {
		mu.Lock()
		got = append(got, n)
		mu.Unlock()
	})
	//lint:ignore SA1019 logging/setLevel is what this test is about: the server still honours it for clients that use it.
	if err := c.SetLevel(ctx, mcp.SetLevelRequest{Params: mcp.SetLevelParams{Level: mcp.LoggingLevelDebug}}); err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"sessionId": "missing", "url": site.URL}
	res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "navigate", Arguments: args}})
	if err != nil {
		t.Fatal(err)
	}
	if out := mcpcheck.Body(res); !res.IsError || out["errorCode"] != "SESSION_NOT_FOUND" {
		t.Fatalf("navigate(%v) = %+v, want SESSION_NOT_FOUND", args, res)
	}
	testenv.Eventually(t, "a log notification of the failed call", func() (bool, error) {
		mu.Lock()
		defer mu.Unlock()
		for _, n := range got {
			b, _ := json.Marshal(n)
			if n.Method == "notifications/message" && strings.Contains(string(b), "tool failed") && strings.Contains(string(b), "SESSION_NOT_FOUND") {
				return true, nil
			}
		}
		return false, fmt.Errorf("the notifications are %v", got)
	})
}

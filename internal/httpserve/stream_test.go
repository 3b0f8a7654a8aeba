package httpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/seed4af8c199/browsermcp/internal/jsonrpc"
)

// countTurns gives every tools/call a turn and counts those still held.
type countTurns struct {
	mu   sync.Mutex
	n    int
	held map[string]bool
}

func (c *countTurns) Take(_ context.Context, method string, _ json.RawMessage) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	tok := strconv.Itoa(c.n)
	c.held[tok] = true
	return tok
}

func (c *countTurns) Leave(token string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.held, token)
}

// TestStreamEndsTheTurnsOfRequestsItDrops: a request the stream read, and
// stamped with a turn, but never handled because the stream ended while
// every slot was busy does not keep its turn: its session's later calls
// would wait for it. Before, dispatch dropped it and nothing left its
// turn.
func TestStreamEndsTheTurnsOfRequestsItDrops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := server.NewMCPServer("t", "1", server.WithToolCapabilities(false))
		srv.AddTool(mcp.NewTool("s"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done() // busy until the stream ends
			return mcp.NewToolResultText("ended"), nil
		})
		turns := &countTurns{held: map[string]bool{}}
		s := &streamServer{srv: srv, guard: jsonrpc.Guard{Turns: turns}, log: slog.New(slog.DiscardHandler), out: jsonrpc.NewLockedWriter(io.Discard)}
		ctx, cancel := context.WithCancel(t.Context())
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		go func() { done <- s.serve(ctx, "sid", pr) }()
		go func() {
			for i := range wsMaxInflight + 2 {
				fmt.Fprintf(pw, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"s","arguments":{}}}`+"\n", i+1)
			}
		}()
		synctest.Wait() // every slot is busy; one request waits for a slot
		turns.mu.Lock()
		taken := turns.n
		turns.mu.Unlock()
		if taken != wsMaxInflight+1 {
			t.Fatalf("%d turns taken, want %d (the slots and one waiting)", taken, wsMaxInflight+1)
		}
		cancel()
		pw.Close()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		turns.mu.Lock()
		defer turns.mu.Unlock()
		if len(turns.held) != 0 {
			t.Fatalf("%d turns still held after the stream ended: %v", len(turns.held), turns.held)
		}
	})
}

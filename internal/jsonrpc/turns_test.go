package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// fakeTurns hands out turns to the calls of tool "s" and notes which
// turns were taken and left.
type fakeTurns struct {
	mu          sync.Mutex
	taken, left []string
}

func (f *fakeTurns) Take(_ context.Context, method string, params json.RawMessage) string {
	var p struct{ Name string }
	if json.Unmarshal(params, &p) != nil || p.Name != "s" {
		return ""
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	tok := "t" + strconv.Itoa(len(f.taken)+1)
	f.taken = append(f.taken, tok)
	return tok
}

func (f *fakeTurns) Leave(token string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.left = append(f.left, token)
}

func (f *fakeTurns) state() (taken, left []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.taken), slices.Clone(f.left)
}

// turnsOf reads the token stamped in each line passed to mcp-go, by id.
func turnsOf(t *testing.T, passed []byte) map[string]string {
	t.Helper()
	got := map[string]string{}
	for l := range strings.Lines(string(passed)) {
		var m struct {
			ID     any `json:"id"`
			Params struct {
				Meta *mcp.Meta `json:"_meta"`
			} `json:"params"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		if m.ID != nil {
			got[IDKey(m.ID)] = TurnOf(m.Params.Meta)
		}
	}
	return got
}

// TestStdioTakesTurnsInOrder: each tools/call that Turns gives a turn
// reaches mcp-go with its token in _meta, taken in the order of the
// lines, beside the client's own _meta; a token the client wrote itself is
// removed; the turn ends when the call's answer is written or the client
// cancels it, in a batch too.
func TestStdioTakesTurnsInOrder(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"s","_meta":{"progressToken":"p1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"other","_meta":{"browsermcp/turn":"t1"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"s","_meta":{"browsermcp\/turn":"t1"}}}`,
		`[{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"s"}},{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"s"}}]`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`,
	}, "\n") + "\n"
	f := &fakeTurns{}
	var out bytes.Buffer
	w := NewLockedWriter(&out)
	passed, err := io.ReadAll(Reader(t.Context(), Guard{Turns: f}, strings.NewReader(in), w))
	if err != nil {
		t.Fatal(err)
	}
	got := turnsOf(t, passed)
	if got[IDKey(1.0)] != "t1" || got[IDKey(2.0)] != "" || got[IDKey(3.0)] != "t2" {
		t.Fatalf("turns passed on: %v", got)
	}
	if !bytes.Contains(passed, []byte(`"progressToken":"p1"`)) {
		t.Fatalf("the client's _meta was lost: %s", passed)
	}
	var batch []string
	for k, v := range got {
		if strings.Contains(k, "bmcp-batch") {
			batch = append(batch, v)
		}
	}
	slices.Sort(batch)
	if !slices.Equal(batch, []string{"t3", "t4"}) {
		t.Fatalf("the batch's turns: %v", got)
	}
	taken, left := f.state()
	if !slices.Equal(taken, []string{"t1", "t2", "t3", "t4"}) || !slices.Equal(left, []string{"t2", "t4"}) {
		t.Fatalf("taken %v, left %v after the cancellations, want t1-t4 and t2, t4", taken, left)
	}
	w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"))
	w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"))
	if _, left := f.state(); !slices.Equal(left, []string{"t2", "t4", "t1"}) {
		t.Fatalf("left %v after id 1's answer, want t1 added once", left)
	}
}

// TestHTTPTurnEndsWithItsPOST: over HTTP a call's turn is stamped in the
// body mcp-go reads and ends when its POST does, unless the POST was
// accepted (202) to run on (the legacy SSE transport); then the handler
// ends it. The calls of a batch take their turns in the batch's order.
func TestHTTPTurnEndsWithItsPOST(t *testing.T) {
	f := &fakeTurns{}
	var seen []string
	var mu sync.Mutex
	status := http.StatusOK
	h := Handler(Guard{Turns: f}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     any `json:"id"`
			Params struct {
				Meta *mcp.Meta `json:"_meta"`
			} `json:"params"`
		}
		json.NewDecoder(r.Body).Decode(&m)
		tok := TurnOf(m.Params.Meta)
		mu.Lock()
		seen = append(seen, tok)
		mu.Unlock()
		if _, left := f.state(); slices.Contains(left, tok) {
			t.Errorf("turn %s ended before its POST", tok)
		}
		w.WriteHeader(status)
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	}))
	do := func(body string) {
		t.Helper()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/mcp", strings.NewReader(body)))
	}
	do(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"s"}}`)
	if taken, left := f.state(); !slices.Equal(seen, []string{"t1"}) || !slices.Equal(taken, []string{"t1"}) || !slices.Equal(left, []string{"t1"}) {
		t.Fatalf("seen %v, taken %v, left %v", seen, taken, left)
	}
	status = http.StatusAccepted
	do(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"s"}}`)
	if _, left := f.state(); len(left) != 1 || seen[1] != "t2" {
		t.Fatalf("a POST accepted to run on ended its turn: %v", left)
	}
	status = http.StatusOK
	do(`[{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"s"}},{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"s"}}]`)
	taken, left := f.state()
	slices.Sort(left)
	if !slices.Equal(taken, []string{"t1", "t2", "t3", "t4"}) || !slices.Equal(left, []string{"t1", "t3", "t4"}) {
		t.Fatalf("a batch: taken %v, left %v", taken, left)
	}
}

// TestStdioEndsEveryTurn: past 1024 requests in flight, each answer still
// ends its request's turn (before, the reader stopped recording turns
// there and left them to handlers, which a call mcp-go refuses never
// reaches); EndTurns ends the turns of requests never answered.
func TestStdioEndsEveryTurn(t *testing.T) {
	const n = 1100
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}` + "\n")
	for i := 1; i <= n+1; i++ {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"s"}}`+"\n", i)
	}
	f := &fakeTurns{}
	w := NewLockedWriter(io.Discard)
	if _, err := io.ReadAll(Reader(t.Context(), Guard{Turns: f}, strings.NewReader(in.String()), w)); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"error":{"code":-32602,"message":"tool disabled"}}`+"\n", i)
	}
	taken, left := f.state()
	if len(taken) != n+1 || len(left) != n {
		t.Fatalf("%d turns taken, %d left after %d answers; want %d and %d", len(taken), len(left), n, n+1, n)
	}
	w.EndTurns()
	if _, left := f.state(); len(left) != n+1 || left[n] != taken[n] {
		t.Fatalf("after EndTurns %d turns left, want all %d", len(left), n+1)
	}
}

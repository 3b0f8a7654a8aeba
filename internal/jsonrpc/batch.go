package jsonrpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
)

// JSON-RPC batches: protocol 2025-03-26 requires a server to take them
// (an array of requests and notifications is answered with an array of
// the responses; notifications get none), 2024-11-05 follows JSON-RPC 2.0,
// which has them, and 2025-06-18 removed them. mcp-go reads one object a
// message, so the transports split a batch into its messages, run each
// as if it came alone, and gather the answers.

// BatchesAllowed says whether protocol version v takes batches.
func BatchesAllowed(v string) bool {
	return v == mcp.ProtocolVersion20241105 || v == mcp.ProtocolVersion20250326
}

// batchRefusal answers a batch in a version without batches.
func batchRefusal(version string) []byte {
	if version == "" {
		version = "(none negotiated yet: initialize first)"
	}
	return response(nil, &Error{Code: InvalidRequest, Message: fmt.Sprintf(
		"JSON-RPC batches are not allowed in MCP protocol version %s (they were removed in 2025-06-18; 2025-03-26 has them): send each message on its own", version)})
}

// splitBatch returns the messages of a batch, or the single error that
// answers an empty or broken one.
func splitBatch(msg []byte) ([]json.RawMessage, []byte) {
	var elems []json.RawMessage
	if err := json.Unmarshal(msg, &elems); err != nil {
		return nil, response(nil, &Error{Code: ParseError, Message: "the batch is not valid JSON: " + err.Error()})
	}
	if len(elems) == 0 {
		return nil, response(nil, &Error{Code: InvalidRequest, Message: "an empty batch is not a JSON-RPC request"})
	}
	return elems, nil
}

// inBatch checks one message of a batch: initialize may not be one (MCP
// 2025-03-26), and nor may another batch.
func (g Guard) inBatch(ctx context.Context, elem []byte) (resp []byte, code int) {
	elem = bytes.TrimSpace(elem)
	if len(elem) > 0 && elem[0] == '[' {
		return refusal(nil, &Error{Code: InvalidRequest, Message: "a batch cannot hold another batch"})
	}
	if m, ok := Parse(elem); ok && m.Method == string(mcp.MethodInitialize) {
		return refusal(m.ID, &Error{Code: InvalidRequest, Message: "initialize must not be part of a JSON-RPC batch; send it on its own"})
	}
	return g.inspect(ctx, elem)
}

// versionOf reads the version an initialize request asks for; mcp-go
// agrees to it when it knows it, and answers with its latest otherwise.
func versionOf(line []byte) (string, bool) {
	var m struct {
		Method string `json:"method"`
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method != string(mcp.MethodInitialize) {
		return "", false
	}
	if mcp.IsValidProtocolVersion(m.Params.ProtocolVersion) {
		return m.Params.ProtocolVersion, true
	}
	return mcp.LATEST_PROTOCOL_VERSION, true
}

// stdioBatch is one batch being answered over stdio: its requests reach
// mcp-go with ids of our own, and the writer gathers their answers under
// the client's ids until every one is in.
type stdioBatch struct {
	mu      sync.Mutex
	ids     map[string]json.RawMessage // our id -> the client's
	skip    map[string]bool            // our ids the client cancelled
	answers []json.RawMessage
}

// batches holds the stdio batches in flight.
type batches struct {
	mu   sync.Mutex
	n    atomic.Int64
	byID map[string]*stdioBatch
	// ours maps the key of a client's id to our id, for the requests in
	// flight, so that a cancellation reaches them.
	ours map[string]string
	// version is the negotiated protocol version.
	version string
}

// start registers a batch: it returns the lines to pass to mcp-go and the
// batch, or nil when no answer is awaited (only notifications, or every
// request refused: then done holds the whole answer, if any).
func (b *batches) start(refused [][]byte, pass []json.RawMessage) (lines []byte, done []byte) {
	sb := &stdioBatch{ids: map[string]json.RawMessage{}, skip: map[string]bool{}}
	ours := map[string]string{}
	for _, r := range refused {
		sb.answers = append(sb.answers, r)
	}
	n := b.n.Add(1)
	for i, elem := range pass {
		var m map[string]json.RawMessage
		if json.Unmarshal(elem, &m) != nil {
			continue
		}
		if id, ok := m["id"]; ok {
			ourID := "bmcp-batch-" + strconv.FormatInt(n, 10) + "-" + strconv.Itoa(i)
			sb.ids[IDKey(ourID)] = id
			var client any
			_ = json.Unmarshal(id, &client)
			ours[IDKey(client)] = ourID
			m["id"], _ = json.Marshal(ourID)
			elem, _ = json.Marshal(m)
		}
		lines = append(append(lines, elem...), '\n')
	}
	if len(sb.ids) == 0 {
		if len(sb.answers) > 0 {
			done, _ = json.Marshal(sb.answers)
		}
		return lines, done
	}
	b.mu.Lock()
	if b.byID == nil {
		b.byID = map[string]*stdioBatch{}
	}
	if b.ours == nil {
		b.ours = map[string]string{}
	}
	for k := range sb.ids {
		b.byID[k] = sb
	}
	for k, v := range ours {
		b.ours[k] = v
	}
	b.mu.Unlock()
	return lines, nil
}

func (b *batches) pending() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.byID) > 0
}

// answer takes the answer to one of our ids: it reports whether it was
// one, and returns the batch's whole answer once the last is in.
func (b *batches) answer(id any, msg []byte) (bool, []byte) {
	key := IDKey(id)
	b.mu.Lock()
	sb := b.byID[key]
	delete(b.byID, key)
	if sb != nil {
		var client any
		_ = json.Unmarshal(sb.ids[key], &client)
		if b.ours[IDKey(client)] == id {
			delete(b.ours, IDKey(client))
		}
	}
	b.mu.Unlock()
	if sb == nil {
		return false, nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return true, nil
	}
	sb.mu.Lock()
	defer sb.mu.Unlock()
	m["id"] = sb.ids[key]
	delete(sb.ids, key)
	if !sb.skip[key] {
		one, _ := json.Marshal(m)
		sb.answers = append(sb.answers, one)
	}
	if len(sb.ids) > 0 {
		return true, nil
	}
	if len(sb.answers) == 0 {
		return true, nil
	}
	all, _ := json.Marshal(sb.answers)
	return true, all
}

// cancel finds the request of a batch in flight that the client knows by
// the id of key: it returns our id for it, for mcp-go, and marks it so
// that its answer is left out of the batch's.
func (b *batches) cancel(key string) (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ourID, ok := b.ours[key]
	if !ok {
		return "", false
	}
	if sb := b.byID[IDKey(ourID)]; sb != nil {
		sb.mu.Lock()
		sb.skip[IDKey(ourID)] = true
		sb.mu.Unlock()
	}
	return ourID, true
}

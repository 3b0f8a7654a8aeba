package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// readUntil returns the messages the server writes until it has answered
// every one of ids.
func (r *rawStdio) readUntil(ids ...float64) []map[string]any {
	r.t.Helper()
	var ms []map[string]any
	left := map[any]bool{}
	for _, id := range ids {
		left[id] = true
	}
	for len(left) > 0 {
		m := r.read()
		ms = append(ms, m)
		if m["method"] == nil {
			delete(left, m["id"])
		}
	}
	return ms
}

// TestCancelAndProgressOverStdio (issue #16, items 3 and 4). Before: a
// call with _meta.progressToken got no notifications/progress, and a
// cancelled call was still answered (BROWSER_ERROR "context canceled").
// After: a long call reports progress as it starts and every second, none
// after its answer, and a cancelled call stops and is never answered.
func TestCancelAndProgressOverStdio(t *testing.T) {
	r := startRaw(t)
	r.send(`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"wait_for_selector","arguments":{"selector":"#never","timeout":60000},"_meta":{"progressToken":"p10"}}}`)
	var last float64 = -1
	for last < 1 {
		m := r.read()
		p, _ := m["params"].(map[string]any)
		if m["method"] != "notifications/progress" || p["progressToken"] != "p10" || p["message"] == "" || p["progress"].(float64) <= last {
			t.Fatalf("want a rising progress of p10, got %v", m)
		}
		last = p["progress"].(float64)
	}
	r.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10,"reason":"test"}}`)
	// The session runs one call at a time: this one answers once the
	// cancelled call has let go of it.
	r.send(`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"wait_for","arguments":{"time":1.5},"_meta":{"progressToken":"p11"}}}`)
	r.send(`{"jsonrpc":"2.0","id":12,"method":"ping"}`)
	got := map[string]int{}
	for _, m := range r.readUntil(11, 12) {
		p, _ := m["params"].(map[string]any)
		switch {
		case m["id"] == 10.0:
			t.Errorf("the cancelled call was answered: %v", m)
		case m["id"] == 11.0:
			if res, _ := m["result"].(map[string]any); res == nil || res["isError"] == true {
				t.Errorf("wait_for after the cancel: %v", m)
			}
			got["answered"]++
		case m["method"] == "notifications/progress" && p["progressToken"] == "p11":
			if got["answered"] > 0 {
				t.Errorf("progress after the answer: %v", m)
			}
			got["p11"]++
		}
	}
	if got["p11"] < 2 {
		t.Errorf("a 1.5 s wait reported %d progress notifications, want a first and one a second", got["p11"])
	}
}

// readArray returns the next message, which must be an array.
func (r *rawStdio) readArray() []map[string]any {
	r.t.Helper()
	select {
	case l, ok := <-r.lines:
		if !ok {
			r.t.Fatal("the server closed stdout")
		}
		var ms []map[string]any
		if err := json.Unmarshal([]byte(l), &ms); err != nil {
			r.t.Fatalf("want an array, got %q: %v", l, err)
		}
		return ms
	case <-time.After(time.Minute):
		r.t.Fatal("no answer within a minute")
	}
	return nil
}

// batchAnswers checks the array that answers testBatch: one response per
// request, under the client's ids, none for the notification, and
// initialize refused.
func batchAnswers(t *testing.T, ms []map[string]any) {
	t.Helper()
	byID := map[any]map[string]any{}
	for _, m := range ms {
		byID[m["id"]] = m
	}
	if len(ms) != 3 || byID[1.0]["result"] == nil || byID["two"]["result"] == nil {
		t.Fatalf("batch answers: %v", ms)
	}
	if r := byID["two"]["result"].(map[string]any); r["isError"] == true {
		t.Errorf("tools/call in a batch: %v", r)
	}
	if e, _ := byID[3.0]["error"].(map[string]any); e == nil || e["code"] != -32600.0 || !strings.Contains(fmt.Sprint(e["message"]), "initialize must not be part of a JSON-RPC batch") {
		t.Errorf("initialize in a batch: %v", byID[3.0])
	}
}

// testBatch holds two requests, a notification and an initialize.
const testBatch = `[{"jsonrpc":"2.0","id":1,"method":"ping"},` +
	`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"},` +
	`{"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"wait_for","arguments":{"time":0.1}}},` +
	`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}]`

// TestBatchesOverStdio (issue #16, item 2). Before: every batch was
// refused, though protocol 2025-03-26 requires them. After: at 2025-03-26
// a batch is answered with an array (notifications get no answer), and at
// 2025-06-18 it is refused with -32600 saying which versions have them.
func TestBatchesOverStdio(t *testing.T) {
	r := startRawAt(t, "2025-03-26")
	r.send(testBatch)
	batchAnswers(t, r.readArray())
	r.send(`[{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}]`)
	r.send(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	if m := r.read(); m["id"] != 9.0 {
		t.Errorf("a batch of notifications was answered: %v", m)
	}

	r = startRaw(t)
	r.send(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	m := r.read()
	if e, _ := m["error"].(map[string]any); e == nil || e["code"] != -32600.0 || !strings.Contains(fmt.Sprint(e["message"]), "not allowed in MCP protocol version 2025-06-18") {
		t.Errorf("a batch at 2025-06-18: %v", m)
	}
}

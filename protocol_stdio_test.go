package main

import (
	"testing"
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

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// TestHARAndGetRequestOverStdio drives the devtools group through the
// built binary with --caps devtools,network: get_request_log's id, a
// request by it with its body, a HAR of a fetch written under the
// session's directory, and the tools' refusals.
func TestHARAndGetRequestOverStdio(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	out := t.TempDir()
	s := startBinary(t, "--output-dir", out, "--caps", "devtools,network")
	id := s.ok("create_session", nil)["sessionId"].(string)
	s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/har.html"})
	start := s.ok("start_har", map[string]any{"sessionId": id})
	if body, isErr := s.call("start_har", map[string]any{"sessionId": id}); !isErr || body["errorCode"] != "RECORDING_ACTIVE" {
		t.Fatalf("a second start_har: %v", body)
	}
	s.ok("click", map[string]any{"sessionId": id, "selector": "#fetch"})
	s.ok("wait_for", map[string]any{"sessionId": id, "text": "json server"})

	reqs := s.ok("get_request_log", map[string]any{"sessionId": id, "filter": "/api/data"})["requests"].([]any)
	if len(reqs) != 1 {
		t.Fatalf("get_request_log: %v", reqs)
	}
	rid, _ := reqs[0].(map[string]any)["id"].(string)
	got := s.ok("get_request", map[string]any{"sessionId": id, "id": rid})
	if got["responseBody"].(map[string]any)["text"] != `{"source":"server","method":"GET"}` {
		t.Fatalf("get_request(%s): %v", rid, got)
	}
	if body, isErr := s.call("get_request", map[string]any{"sessionId": id, "id": "r424242"}); !isErr || body["errorCode"] != "INVALID_PARAMETERS" {
		t.Fatalf("an unknown id: %v", body)
	}

	stop := s.ok("stop_har", map[string]any{"sessionId": id})
	path, _ := stop["path"].(string)
	if path != start["path"] || !strings.HasPrefix(path, filepath.Join(out, id)+string(filepath.Separator)) {
		t.Fatalf("stop_har wrote %q (start_har said %v), not under %s", path, start["path"], filepath.Join(out, id))
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var h struct {
		Log struct {
			Version string `json:"version"`
			Entries []struct {
				ID string `json:"_id"`
			} `json:"entries"`
		} `json:"log"`
	}
	if err := json.Unmarshal(b, &h); err != nil || h.Log.Version != "1.2" || stop["bytes"] != float64(len(b)) {
		t.Fatalf("the HAR (%v): %.300s; stop_har: %v", err, b, stop)
	}
	var ids []string
	for _, e := range h.Log.Entries {
		ids = append(ids, e.ID)
	}
	if !strings.Contains(strings.Join(ids, " ")+" ", rid+" ") {
		t.Fatalf("the HAR's entries %v lack the request %s", ids, rid)
	}
	if body, isErr := s.call("stop_har", map[string]any{"sessionId": id}); !isErr || body["errorCode"] != "NO_RECORDING" {
		t.Fatalf("a second stop_har: %v", body)
	}
}

// TestGetRequestWithoutTheLogOverStdio: with --caps devtools alone,
// get_request_log is not listed, so get_request's refusal of an unknown id
// says how to get ids instead of naming a tool the client cannot call.
func TestGetRequestWithoutTheLogOverStdio(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := startBinary(t, "--output-dir", t.TempDir(), "--caps", "devtools,emulation")
	id := s.ok("create_session", nil)["sessionId"].(string)
	s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/har.html"})
	body, isErr := s.call("get_request", map[string]any{"sessionId": id, "id": "r424242"})
	if !isErr || body["errorCode"] != "INVALID_PARAMETERS" {
		t.Fatalf("an unknown id: %v", body)
	}
	if sug, _ := body["suggestion"].(string); !strings.Contains(sug, "--caps network") || !strings.Contains(sug, "_id") {
		t.Errorf("the suggestion %q names get_request_log, which is not listed, without saying how to get it or the HAR's ids", sug)
	}
}

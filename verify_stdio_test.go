package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// TestVerifyOverStdio drives the assertions through the built binary with
// --caps testing, as a client sees them after tools/list: one passes once
// the page shows what it asserts, one that never holds is ASSERTION_FAILED
// with what was expected and what the page showed, and a bad regex is
// INVALID_PARAMETERS naming it.
func TestVerifyOverStdio(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := startBinary(t, "--caps", "testing")
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := s.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, tl := range res.Tools {
		listed[tl.Name] = true
	}
	for _, n := range []string{"verify_element", "verify_text", "verify_list", "verify_value", "verify_url", "verify_title"} {
		if !listed[n] {
			t.Errorf("--caps testing does not list %s", n)
		}
	}

	id := s.ok("create_session", nil)["sessionId"].(string)
	s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/verify.html"})
	s.ok("evaluate", map[string]any{"sessionId": id, "script": "later()"})
	if out := s.ok("verify_text", map[string]any{"sessionId": id, "text": "Saved!"}); out["success"] != true {
		t.Errorf("verify_text Saved!: %v", out)
	}
	if out := s.ok("verify_element", map[string]any{"sessionId": id, "role": "button", "name": "Done"}); out["success"] != true {
		t.Errorf("verify_element button Done: %v", out)
	}

	start := time.Now()
	body, isErr := s.call("verify_title", map[string]any{"sessionId": id, "title": "Elsewhere", "timeout": 500})
	details, _ := body["details"].(map[string]any)
	if !isErr || body["errorCode"] != "ASSERTION_FAILED" || details["expected"] != "Elsewhere" || details["actual"] != "Verify: done" {
		t.Fatalf("verify_title Elsewhere: %v", body)
	}
	if msg, _ := body["message"].(string); !strings.Contains(msg, "Elsewhere") || !strings.Contains(msg, "Verify: done") {
		t.Errorf("the message does not show expected and actual: %q", msg)
	}
	t.Logf("ASSERTION_FAILED after %s: %s", time.Since(start).Round(time.Millisecond), body["message"])

	body, isErr = s.call("verify_url", map[string]any{"sessionId": id, "regex": "/(verify/i"})
	details, _ = body["details"].(map[string]any)
	if !isErr || body["errorCode"] != "INVALID_PARAMETERS" || details["field"] != "regex" {
		t.Fatalf("verify_url with a bad regex: %v", body)
	}
}

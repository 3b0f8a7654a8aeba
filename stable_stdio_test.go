package main

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// textBody calls a tool on the binary and returns the JSON of its text
// content block, which carries an error's errorCode and details (errors may
// carry no structuredContent), and isError.
func textBody(s *proc, name string, args map[string]any) (map[string]any, bool) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := s.c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		s.t.Fatalf("%s: %v", name, err)
	}
	var out map[string]any
	if len(res.Content) > 0 {
		if tc, ok := mcp.AsTextContent(res.Content[0]); ok {
			if err := json.Unmarshal([]byte(tc.Text), &out); err != nil {
				s.t.Fatalf("%s: text content is not JSON: %q", name, tc.Text)
			}
		}
	}
	return out, res.IsError
}

// TestClickMovingElement drives the built binary as an agent does: a drawer
// slides in, and its button is clicked by the ref of a snapshot taken while
// it slides. The click reaches the button, not the link it crosses; a
// button that never stops moving answers ELEMENT_NOT_CLICKABLE saying so,
// and nothing on the page is clicked.
func TestClickMovingElement(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := startBinary(t, "--headless")
	id := s.ok("create_session", nil)["sessionId"].(string)
	s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/drawer.html"})
	eval(s, id, "() => { openDrawer(); return true; }")
	snap, _ := s.ok("snapshot", map[string]any{"sessionId": id})["snapshot"].(string)
	s.ok("click", map[string]any{"sessionId": id, "ref": testenv.RefOf(t, snap, "button", "Checkout")})
	got, _ := eval(s, id, "() => window.got").(map[string]any)
	if got["checkout"] != 1.0 || got["link"] != 0.0 {
		t.Fatalf("after the click on the sliding button the page got %v, want one click on the button", got)
	}

	body, isErr := textBody(s, "click", map[string]any{"sessionId": id, "selector": "#restless", "timeout": 500})
	d, _ := body["details"].(map[string]any)
	if !isErr || body["errorCode"] != "ELEMENT_NOT_CLICKABLE" || d["reason"] != "not_stable" || d["element"] != "button#restless" {
		t.Fatalf("click on a button that never stops = %v (isError %v), want ELEMENT_NOT_CLICKABLE with reason not_stable", body, isErr)
	}
	if got, _ := eval(s, id, "() => window.got").(map[string]any); got["restless"] != 0.0 || got["link"] != 0.0 {
		t.Fatalf("the refused click reached the page: %v", got)
	}
}

package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// TestActionChangesOverStdio drives the built binary as a client does: an
// action's result carries what it changed, in data and in a second text
// block, and the page agrees; --action-result none answers as before, and
// a value the flag does not know exits 2 naming it.
func TestActionChangesOverStdio(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	call := func(s *proc, name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		res, err := s.c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		return res
	}

	s := startBinary(t)
	id := s.ok("create_session", nil)["sessionId"].(string)
	s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/changes.html"})
	call(s, "snapshot", map[string]any{"sessionId": id})
	res := call(s, "click", map[string]any{"sessionId": id, "selector": "#more"})
	if len(res.Content) != 2 {
		t.Fatalf("click answered %d content blocks: %+v", len(res.Content), res.Content)
	}
	lines := res.Content[1].(mcp.TextContent).Text
	if !strings.HasPrefix(lines, "Changes:\nin region \"Account\":\n  ~ - button \"More options\" [expanded] [ref=") ||
		!strings.Contains(lines, "(was [collapsed])\n  + - paragraph: Extra options here") {
		t.Fatalf("click's changes:\n%s", lines)
	}
	items := res.StructuredContent.(map[string]any)["changes"].(map[string]any)["items"].([]any)
	if len(items) != 2 || items[0].(map[string]any)["kind"] != "changed" || items[1].(map[string]any)["kind"] != "added" {
		t.Fatalf("click's changes as data: %v", items)
	}
	if got := s.ok("evaluate", map[string]any{"sessionId": id, "script": "document.getElementById('more').getAttribute('aria-expanded') + '|' + document.getElementById('panel').hidden"})["result"]; got != "true|false" {
		t.Fatalf("the page: %v", got)
	}

	quiet := startBinary(t, "--action-result", "none")
	id = quiet.ok("create_session", nil)["sessionId"].(string)
	quiet.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/changes.html"})
	res = call(quiet, "click", map[string]any{"sessionId": id, "selector": "#more"})
	if len(res.Content) != 1 || res.StructuredContent.(map[string]any)["changes"] != nil {
		t.Fatalf("--action-result none: %+v", res)
	}
	refused(t, []string{"--action-result", "some"}, "flag -action-result", "want changes, none, full")
}

// TestActionAfterNavigateIsNoNewPage: an agent that saw a page, opened it
// (or another) again with navigate and then clicked a button that does
// nothing was told "New page", as if its click had navigated. The click's
// answer says instead that there is no earlier view of this page, and the
// page agrees that the click loaded nothing.
func TestActionAfterNavigateIsNoNewPage(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := startBinary(t)
	id := s.ok("create_session", nil)["sessionId"].(string)
	s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/changes.html"})
	s.ok("snapshot", map[string]any{"sessionId": id})
	s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/changes.html"})
	s.ok("evaluate", map[string]any{"sessionId": id, "script": "window.sameDocument = 'yes'"})

	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := s.c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "click",
		Arguments: map[string]any{"sessionId": id, "selector": "#noop"}}})
	if err != nil || res.IsError || len(res.Content) != 2 {
		t.Fatalf("click: %v %+v", err, res)
	}
	ch := res.StructuredContent.(map[string]any)["changes"].(map[string]any)
	text := res.Content[1].(mcp.TextContent).Text
	if ch["fresh"] != "no_view" || !strings.HasPrefix(text, "No earlier view of this page") || !strings.Contains(text, `button "Do nothing" [ref=`) {
		t.Fatalf("click's changes: %v\n%s", ch, text)
	}
	if msg := res.StructuredContent.(map[string]any)["message"].(string); strings.Contains(msg, "navigated") {
		t.Fatalf("click's message: %s", msg)
	}
	if got := s.ok("evaluate", map[string]any{"sessionId": id, "script": "window.sameDocument"})["result"]; got != "yes" {
		t.Fatalf("the click replaced the document: %v", got)
	}

	// A click that does navigate still says so.
	s.ok("snapshot", map[string]any{"sessionId": id})
	link := s.ok("click", map[string]any{"sessionId": id, "selector": "a[href*=welcome]"})
	if link["changes"].(map[string]any)["fresh"] != "navigated" || link["url"] == nil {
		t.Fatalf("a link's click: %v", link)
	}
}

// TestActionChangesMovedOverStdio: a click that reversed a list answered
// "No change on the page"; its answer names the links that moved, as
// lines and as data, and the page agrees that their order changed.
func TestActionChangesMovedOverStdio(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	s := startBinary(t)
	id := s.ok("create_session", nil)["sessionId"].(string)
	s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/reorder.html"})
	s.ok("snapshot", map[string]any{"sessionId": id})
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	res, err := s.c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "click",
		Arguments: map[string]any{"sessionId": id, "selector": "#reverse"}}})
	if err != nil || res.IsError || len(res.Content) != 2 {
		t.Fatalf("click: %v %+v", err, res)
	}
	text := res.Content[1].(mcp.TextContent).Text
	if !strings.HasPrefix(text, "Changes:\nin list:\n  ↕ - link ") || strings.Count(text, " (moved)") != 2 {
		t.Fatalf("click's changes:\n%s", text)
	}
	items := res.StructuredContent.(map[string]any)["changes"].(map[string]any)["items"].([]any)
	for _, it := range items {
		if m := it.(map[string]any); m["kind"] != "moved" || m["ref"] == nil || m["old"] != m["new"] {
			t.Errorf("a moved item: %v", m)
		}
	}
	if got := s.ok("evaluate", map[string]any{"sessionId": id, "script": "[...document.querySelectorAll('#list a')].map((a) => a.textContent).join(' ')"})["result"]; got != "Gamma Beta Alpha" {
		t.Fatalf("the list: %v", got)
	}
}

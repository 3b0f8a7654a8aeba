package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// browserPages lists the URLs of the pages of the browser at endpoint.
func browserPages(t *testing.T, endpoint string) []string {
	t.Helper()
	resp, err := http.Get(endpoint + "/json/list")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tabs []tabInfo
	if err := json.NewDecoder(resp.Body).Decode(&tabs); err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, tb := range tabs {
		if tb.Type == "page" {
			urls = append(urls, tb.URL)
		}
	}
	return urls
}

// fail calls a tool that must fail and returns its error, read from the
// result's text block (the error JSON), where every error result has it.
func (s *proc) fail(name string, args map[string]any) map[string]any {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := s.c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		s.t.Fatalf("%s: %v", name, err)
	}
	if !res.IsError {
		s.t.Fatalf("%s succeeded: %v", name, res.StructuredContent)
	}
	var out map[string]any
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok && json.Unmarshal([]byte(tc.Text), &out) == nil {
			return out
		}
	}
	s.t.Fatalf("%s: no error JSON in the text of %v", name, res.Content)
	return nil
}

// TestFailedNewTabLeavesNoTab (issue #23): a tabs new whose URL does not
// load (a host the policy blocks, a port nobody listens on, a host that
// does not resolve, a file: URL) answers an error and leaves the tabs as
// they were, in the tool's list and in the browser itself: no blank page
// stays behind. The binary runs attached to a Chromium of the test's own,
// whose pages the test lists over DevTools.
func TestFailedNewTabLeavesNoTab(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	endpoint := testenv.PlainChromium(t)
	s := startBinary(t, "--cdp-endpoint", endpoint, "--blocked-domains", "localhost")
	id := s.ok("create_session", nil)["sessionId"].(string)
	s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
	s.ok("tabs", map[string]any{"sessionId": id, "action": "new", "url": site.URL + "/tabs.html"})
	s.ok("tabs", map[string]any{"sessionId": id, "action": "select", "index": 0})
	before := s.ok("tabs", map[string]any{"sessionId": id, "action": "list"})
	pages := browserPages(t, endpoint)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/"
	l.Close()
	for _, c := range []struct{ url, code string }{
		{strings.Replace(site.URL, "127.0.0.1", "localhost", 1) + "/welcome.html", "NAVIGATION_BLOCKED"},
		{closed, "NETWORK_ERROR"},
		{"http://nonexistent.invalid/", "NETWORK_ERROR"},
		{"file:///etc/hosts", "NAVIGATION_BLOCKED"},
	} {
		if out := s.fail("tabs", map[string]any{"sessionId": id, "action": "new", "url": c.url}); out["errorCode"] != c.code {
			t.Errorf("tabs new %s: %v, want %s", c.url, out, c.code)
		}
		if after := s.ok("tabs", map[string]any{"sessionId": id, "action": "list"}); fmt.Sprint(after["tabs"], after["current"]) != fmt.Sprint(before["tabs"], before["current"]) {
			t.Errorf("after tabs new %s failed, the tabs are %v (current %v), want %v (current %v)", c.url, after["tabs"], after["current"], before["tabs"], before["current"])
		}
		testenv.Eventually(t, "the browser's pages to be as they were", func() (bool, error) {
			got := browserPages(t, endpoint)
			return len(got) == len(pages), fmt.Errorf("after tabs new %s the browser has the pages %q, want %q", c.url, got, pages)
		})
	}
	// The current tab still acts.
	s.ok("type", map[string]any{"sessionId": id, "selector": "#user", "text": "still here"})
}

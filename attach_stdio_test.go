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

// attachPages are the test pages whose outlines must read the same on a
// browser we attached to as on one we launched: the form the actions
// below use, the page with every kind of element, the page of roles and
// names the script once computed otherwise than Chromium, and the two
// large pages (the Wikipedia-size one and the generated one).
var attachPages = []string{"/form.html", "/snapshot.html", "/roles.html", "/peerbench/large.html", "/peerbench/large-gen.html"}

// TestSnapshotOnAttachedBrowsers drives the built binary attached
// (--cdp-endpoint) to browsers started without our switches, so without
// --enable-blink-features=ComputedAccessibilityInfo: a plain Chromium
// over its DevTools host (http) and its browser websocket (ws), and a
// Grid browser over the Grid's se:cdp. On each, snapshot gives the outline
// the binary gives on the browser it launches itself, and its refs click
// and type; an unknown ref is refused with ELEMENT_NOT_FOUND.
func TestSnapshotOnAttachedBrowsers(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	own := startBinary(t)
	want := map[string]string{}
	for _, p := range attachPages {
		want[p] = outlineOf(t, own, site.URL+p)
	}
	own.c.Close()
	own.cmd.Wait()

	devtools := testenv.PlainChromium(t)
	check := func(t *testing.T, ep string) {
		s := startBinary(t, "--cdp-endpoint", ep)
		id := s.ok("create_session", nil)["sessionId"].(string)
		s.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/welcome.html"})
		if got := s.ok("evaluate", map[string]any{"sessionId": id, "script": `"computedRole" in Element.prototype`})["result"]; got != false {
			t.Fatalf("the attached browser's pages have Element.computedRole (%v): it was not started plain", got)
		}
		s.ok("close_session", map[string]any{"sessionId": id})
		for _, p := range attachPages {
			if got := outlineOf(t, s, site.URL+p); got != want[p] {
				t.Errorf("%s: the outline on the attached browser differs from the one on ours:\n%s", p, testenv.LineDiff(want[p], got))
			}
		}
		actByRef(t, s, site.URL)
	}
	t.Run("DevToolsHost", func(t *testing.T) { check(t, devtools) })
	t.Run("BrowserWebsocket", func(t *testing.T) { check(t, wsEndpoint(t, devtools)) })
	t.Run("GridSeCDP", func(t *testing.T) {
		g := testenv.StartGrid(t)
		check(t, webDriverSession(t, g)["se:cdp"].(string))
	})
}

// outlineOf is the snapshot of url in a new session, so that every
// outline numbers its refs from the start.
func outlineOf(t *testing.T, s *proc, url string) string {
	t.Helper()
	id := s.ok("create_session", nil)["sessionId"].(string)
	defer s.ok("close_session", map[string]any{"sessionId": id})
	s.ok("navigate", map[string]any{"sessionId": id, "url": url})
	out := s.ok("snapshot", map[string]any{"sessionId": id})
	text, _ := out["snapshot"].(string)
	if refs, _ := out["refs"].(float64); text == "" || refs == 0 {
		t.Fatalf("snapshot of %s: %v", url, out)
	}
	return text
}

// actByRef clicks and types through a snapshot's refs on the form page, and
// checks what the page did; an unknown ref is refused.
func actByRef(t *testing.T, s *proc, site string) {
	t.Helper()
	id := s.ok("create_session", nil)["sessionId"].(string)
	defer s.ok("close_session", map[string]any{"sessionId": id})
	s.ok("navigate", map[string]any{"sessionId": id, "url": site + "/form.html"})
	outline := s.ok("snapshot", map[string]any{"sessionId": id})["snapshot"].(string)
	title := func() any { return s.ok("get_page_metadata", map[string]any{"sessionId": id})["title"] }
	s.ok("click", map[string]any{"sessionId": id, "ref": testenv.RefOf(t, outline, "button", "Count")})
	if got := title(); got != "clicked 1" {
		t.Fatalf("after a click by ref the page's title is %v, want clicked 1", got)
	}
	s.ok("type", map[string]any{"sessionId": id, "ref": testenv.RefOf(t, outline, "textbox", "Username"), "text": "ada"})
	if got := title(); got != "user=ada" {
		t.Fatalf("after typing by ref the page's title is %v, want user=ada", got)
	}
	if got := s.ok("evaluate", map[string]any{"sessionId": id, "script": `document.getElementById("user").value`})["result"]; got != "ada" {
		t.Fatalf("the Username field holds %v after typing ada by ref", got)
	}
	if code := errorCode(t, s, "click", map[string]any{"sessionId": id, "ref": "e999999", "timeout": 1000}); code != "ELEMENT_NOT_FOUND" {
		t.Fatalf("click on an unknown ref: errorCode %q, want ELEMENT_NOT_FOUND", code)
	}
}

// errorCode calls a tool that must fail and returns the errorCode of the
// error JSON in its text block (where an error result carries it, with or
// without structuredContent).
func errorCode(t *testing.T, s *proc, name string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := s.c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !res.IsError {
		t.Fatalf("%s succeeded, want an error", name)
	}
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			var e struct {
				ErrorCode string `json:"errorCode"`
			}
			if json.Unmarshal([]byte(tc.Text), &e) == nil && e.ErrorCode != "" {
				return e.ErrorCode
			}
		}
	}
	t.Fatalf("%s: no error JSON in the text content: %+v", name, res.Content)
	return ""
}

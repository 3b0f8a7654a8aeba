package httpserve_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/internal/httpservetest"
	"github.com/seed4af8c199/browsermcp/tools"
)

func complete(t *testing.T, c *httpservetest.Client, ref any, arg, value string, ctx map[string]string) []string {
	t.Helper()
	res, err := c.Complete(context.Background(), mcp.CompleteRequest{Params: mcp.CompleteParams{
		Ref: ref, Argument: mcp.CompleteArgument{Name: arg, Value: value}, Context: mcp.CompleteContext{Arguments: ctx},
	}})
	if err != nil {
		t.Fatalf("complete %s: %v", arg, err)
	}
	return res.Completion.Values
}

// TestCompletions (issue #16, item 5). Before: completion/complete was not
// offered. After: resource-template variables complete to the caller's
// own session ids and names (never another key's), its page ids and the
// refs of the session's last snapshot; a prompt's url argument completes
// to the URLs the caller's sessions show.
func TestCompletions(t *testing.T) {
	s := startServer(t, tools.Options{})
	a, b := s.HTTPClient(t, keyA), s.HTTPClient(t, keyB)
	idA := a.OK("create_session", map[string]any{"name": "alpha"})["sessionId"].(string)
	idB := b.OK("create_session", map[string]any{"name": "beta"})["sessionId"].(string)
	url := site.URL + "/form.html"
	a.OK("navigate", map[string]any{"sessionId": idA, "url": url})
	outline := a.OK("snapshot", map[string]any{"sessionId": idA})["snapshot"].(string)

	tmpl := mcp.ResourceReference{Type: "ref/resource", URI: "browser:///element/{sessionId}/{pageId}/{ref}"}
	ids := complete(t, a, tmpl, "sessionId", "", nil)
	if !slices.Contains(ids, idA) || !slices.Contains(ids, "alpha") || slices.Contains(ids, idB) || slices.Contains(ids, "beta") {
		t.Errorf("sessionId for key A: %v (A: %s, B: %s)", ids, idA, idB)
	}
	if got := complete(t, a, tmpl, "sessionId", "al", nil); !slices.Equal(got, []string{"alpha"}) {
		t.Errorf("sessionId starting with al: %v", got)
	}
	if got := complete(t, b, tmpl, "sessionId", "", nil); slices.Contains(got, idA) || !slices.Contains(got, idB) {
		t.Errorf("sessionId for key B: %v", got)
	}
	if got := complete(t, a, tmpl, "pageId", "", map[string]string{"sessionId": idA}); !slices.Equal(got, []string{"0"}) {
		t.Errorf("pageId: %v", got)
	}
	refs := complete(t, a, tmpl, "ref", "", map[string]string{"sessionId": "alpha"})
	if len(refs) == 0 {
		t.Fatalf("no refs offered after a snapshot:\n%s", outline)
	}
	for _, r := range refs {
		if !strings.Contains(outline, "[ref="+r+"]") {
			t.Errorf("ref %s is not in the last snapshot", r)
		}
	}
	if got := complete(t, b, tmpl, "ref", "", map[string]string{"sessionId": idA}); len(got) != 0 {
		t.Errorf("key B got the refs of key A's session: %v", got)
	}

	urls := complete(t, a, mcp.PromptReference{Type: "ref/prompt", Name: "scrape_website"}, "url", "", nil)
	if !slices.Contains(urls, url) {
		t.Errorf("url of scrape_website: %v, want %s", urls, url)
	}
	if got := complete(t, b, mcp.PromptReference{Type: "ref/prompt", Name: "scrape_website"}, "url", "", nil); slices.Contains(got, url) {
		t.Errorf("key B got key A's URL: %v", got)
	}
}

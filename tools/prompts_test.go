package tools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/internal/httpservetest"
	"github.com/seed4af8c199/browsermcp/tools"
)

// Prompts are listed and filled in; authenticate's password placeholder
// works only for the API key it was made for.
func TestPrompts(t *testing.T) {
	s := startHTTP(t, tools.Options{})
	c := s.HTTPClient(t, httpservetest.KeyA)
	ctx := context.Background()
	list, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil || len(list.Prompts) != 5 {
		t.Fatalf("prompts = %v, %v", list, err)
	}
	get := func(name string, args map[string]string) (string, error) {
		res, err := c.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: name, Arguments: args}})
		if err != nil {
			return "", err
		}
		return res.Messages[0].Content.(mcp.TextContent).Text, nil
	}
	text, err := get("fill_form", map[string]string{"url": site.URL + "/form.html", "form_data": `{"#user": "ada"}`})
	if err != nil || !strings.Contains(text, `selector "button[type='submit']"`) || !strings.Contains(text, "#user: ada") {
		t.Fatalf("fill_form: %v\n%s", err, text)
	}
	for name, args := range map[string]map[string]string{
		"scrape_website":    {"url": "https://example.com"},
		"e2e_test":          {"start_url": "https://example.com"},
		"visual_regression": {"url": "https://example.com"},
	} {
		if _, err := get(name, args); err == nil || !strings.Contains(err.Error(), "INVALID_PARAMETERS") {
			t.Errorf("%s without a required argument: %v", name, err)
		}
	}
	if _, err := get("scrape_website", map[string]string{"url": "x", "selectors": "not json"}); err == nil {
		t.Error("scrape_website accepted selectors that are not JSON")
	}

	// authenticate hides the password behind a placeholder that type
	// resolves for this key only.
	const password = "s3cret-Passw0rd"
	text, err = get("authenticate", map[string]string{"url": site.URL + "/form.html", "username": "ada", "password": password,
		"username_selector": "#user", "password_selector": "#notes"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text, password) {
		t.Fatal("authenticate shows the password")
	}
	i := strings.Index(text, "{{secret:")
	handle := text[i : i+strings.Index(text[i:], "}}")+2]
	id := c.OK("create_session", nil)["sessionId"].(string)
	c.OK("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
	out := c.OK("type", map[string]any{"sessionId": id, "selector": "#notes", "text": handle})
	if b, _ := json.Marshal(out); strings.Contains(string(b), password) {
		t.Fatalf("type result shows the password: %s", b)
	}
	// The page has the password (its title echoes the field), but no
	// result shows it: every one says the placeholder where the exact
	// password was, so this also proves it was typed.
	if got := titleOf(t, c, id); got != `notes="`+handle+`"` {
		t.Fatalf("title = %q, want the typed password shown as its placeholder", got)
	}
	for tool, args := range map[string]map[string]any{
		"get_value": {"sessionId": id, "selector": "#notes"},
		"evaluate":  {"sessionId": id, "script": "document.querySelector('#notes').value + '|' + JSON.stringify({p: document.title})"},
		"snapshot":  {"sessionId": id},
	} {
		b, _ := json.Marshal(c.OK(tool, args))
		if strings.Contains(string(b), password) || !strings.Contains(string(b), handle) {
			t.Fatalf("%s shows the password, or not its placeholder: %s", tool, b)
		}
	}
	res, err := c.ReadResource(context.Background(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: tools.ResourceScheme + "page/" + id + "/0"}})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(res); strings.Contains(string(b), password) {
		t.Fatalf("the page resource shows the password: %s", b)
	}
	// Key B cannot use key A's placeholder.
	b := s.HTTPClient(t, httpservetest.KeyB)
	idB := b.OK("create_session", nil)["sessionId"].(string)
	b.Fail("INVALID_PARAMETERS", "type", map[string]any{"sessionId": idB, "selector": "#notes", "text": handle})
}

func titleOf(t *testing.T, c interface {
	CallTool(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error)
}, id string) string {
	t.Helper()
	res, err := c.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "list_sessions"}})
	if err != nil {
		t.Fatal(err)
	}
	var out tools.ListSessionsOut
	json.Unmarshal([]byte(res.Content[0].(mcp.TextContent).Text), &out)
	for _, s := range out.Sessions {
		if s.SessionID == id {
			return s.Title
		}
	}
	return ""
}

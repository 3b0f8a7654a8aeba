package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/tools"
)

func TestResources(t *testing.T) {
	s := startServer(t, tools.Options{})
	c := httpClient(t, s, keyA)
	ctx := context.Background()
	id := ok(t, c, "create_session", nil)["sessionId"].(string)
	ok(t, c, "navigate", map[string]any{"sessionId": id, "url": site.URL + "/welcome.html?user=ada"})

	tmpls, err := c.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil || len(tmpls.ResourceTemplates) != 5 {
		t.Fatalf("templates = %v, %v", tmpls, err)
	}
	list, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
	}
	if strings.Join(uris, " ") != "browser:///session/"+id+" browser:///page/"+id+"/0" {
		t.Fatalf("resources = %v", uris)
	}
	// Another key lists nothing.
	if l, _ := httpClient(t, s, keyB).ListResources(ctx, mcp.ListResourcesRequest{}); len(l.Resources) != 0 {
		t.Fatalf("key B lists %v", l.Resources)
	}

	read := func(uri string) (mcp.ResourceContents, error) {
		res, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri}})
		if err != nil {
			return nil, err
		}
		return res.Contents[0], nil
	}
	page, err := read("browser:///page/" + id + "/0")
	if err != nil {
		t.Fatal(err)
	}
	var pr tools.PageResource
	json.Unmarshal([]byte(page.(mcp.TextResourceContents).Text), &pr)
	if pr.Title != "Welcome" || !strings.Contains(pr.URL, "user=ada") {
		t.Fatalf("page = %+v", pr)
	}
	shot, err := read("browser:///screenshot/" + id + "/0/latest")
	if err != nil {
		t.Fatal(err)
	}
	blob := shot.(mcp.BlobResourceContents)
	png, _ := base64.StdEncoding.DecodeString(blob.Blob)
	if blob.MIMEType != "image/png" || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("screenshot: %s, %d bytes", blob.MIMEType, len(png))
	}
	netlog, err := read("browser:///network-log/" + id + "/0")
	if err != nil || !strings.Contains(netlog.(mcp.TextResourceContents).Text, `"blocked":[]`) ||
		!strings.Contains(netlog.(mcp.TextResourceContents).Text, `"url":"`+site.URL+`/welcome.html?user=ada"`) {
		t.Fatalf("network log = %v, %v", netlog, err)
	}
	for uri, code := range map[string]string{
		"browser:///element/" + id + "/0/e999":     "ELEMENT_NOT_FOUND",
		"browser:///page/" + id + "/7":             "INVALID_PARAMETERS",
		"browser:///session/no-such-session":       "SESSION_NOT_FOUND",
		"browser:///screenshot/nope/0/latest":      "SESSION_NOT_FOUND",
		"browser:///network-log/no-such-session/0": "SESSION_NOT_FOUND",
	} {
		if _, err := read(uri); err == nil || !strings.Contains(err.Error(), code) {
			t.Errorf("%s: err = %v, want %s", uri, err, code)
		}
	}
	// An element by the ref a snapshot gave.
	ok(t, c, "navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
	snap := ok(t, c, "snapshot", map[string]any{"sessionId": id})["snapshot"].(string)
	el, err := read("browser:///element/" + id + "/0/" + testenv.RefOf(t, snap, "button", "Sign in"))
	if err != nil || !strings.Contains(el.(mcp.TextResourceContents).Text, `"tag":"button"`) {
		t.Fatalf("element resource = %v, %v", el, err)
	}
	// Reading a resource never creates the default session.
	if n := len(sessionIDs(t, c)); n != 1 {
		t.Fatalf("%d sessions after reads, want 1", n)
	}
}

func TestPrompts(t *testing.T) {
	s := startServer(t, tools.Options{})
	c := httpClient(t, s, keyA)
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
	id := ok(t, c, "create_session", nil)["sessionId"].(string)
	ok(t, c, "navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
	out := ok(t, c, "type", map[string]any{"sessionId": id, "selector": "#notes", "text": handle})
	if b, _ := json.Marshal(out); strings.Contains(string(b), password) {
		t.Fatalf("type result shows the password: %s", b)
	}
	if got := titleOf(t, c, id); got != `notes="`+password+`"` {
		t.Fatalf("title = %q, want the password typed", got)
	}
	// Key B cannot use key A's placeholder.
	b := httpClient(t, s, keyB)
	idB := ok(t, b, "create_session", nil)["sessionId"].(string)
	failCode(t, b, "INVALID_PARAMETERS", "type", map[string]any{"sessionId": idB, "selector": "#notes", "text": handle})
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

package tools_test

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"slices"
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

// A secret typed from the authenticate prompt does not come back in the
// forms a page or script commonly puts it in: encoded, reversed, changed
// in case, or with a few characters cut off; ordinary text that shares a
// few characters with it stays as it is.
func TestSecretTransformsRedacted(t *testing.T) {
	s := startHTTP(t, tools.Options{})
	c := s.HTTPClient(t, httpservetest.KeyA)
	const password = `s3cret-Pa"ss&w0rd<`
	handle := secretHandle(t, c, password)
	id := c.OK("create_session", nil)["sessionId"].(string)
	c.OK("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
	c.OK("type", map[string]any{"sessionId": id, "selector": "#notes", "text": handle})

	// Each script's result, computed here in Go, must not be in the
	// evaluate result.
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	rev := func(s string) string { r := []rune(s); slices.Reverse(r); return string(r) }
	const v = "document.querySelector('#notes').value"
	for script, leak := range map[string]string{
		v:                                     password,
		"btoa(" + v + ")":                     b64(password),
		"btoa('ada:' + " + v + ")":            b64("ada:" + password),
		"'Basic ' + btoa('ada:' + " + v + ")": b64("ada:" + password)[8:],
		v + ".split('').reverse().join('')":   rev(password),
		v + ".slice(1)":                       password[1:],
		v + ".slice(0, -2)":                   password[:len(password)-2],
		v + ".slice(3, -3)":                   password[3 : len(password)-3],
		v + ".toUpperCase()":                  strings.ToUpper(password),
		"Array.from(" + v + ", c => c.charCodeAt(0).toString(16).padStart(2, '0')).join('')": hex.EncodeToString([]byte(password)),
		"Array.from(" + v + ", c => c.charCodeAt(0))":                                        "115,51,99,114,101,116",
		"({nested: {list: [" + v + "]}})":                                                    password,
	} {
		out := c.OK("evaluate", map[string]any{"sessionId": id, "script": script})
		b, _ := json.Marshal(out)
		got := string(b)
		if strings.Contains(got, leak) || !strings.Contains(got, "{{secret:") {
			t.Errorf("evaluate %s shows the secret (%q) or no placeholder: %s", script, leak, got)
		}
	}
	// encodeURIComponent's exact text, computed by the page, is redacted.
	enc := c.OK("evaluate", map[string]any{"sessionId": id, "script": "encodeURIComponent(" + v + ") === " + jsString(encodeURIComponentGo(password))})
	if b, _ := json.Marshal(enc); !strings.Contains(string(b), "true") {
		t.Fatalf("the page's encodeURIComponent differs from the one this test expects: %s", b)
	}
	if b, _ := json.Marshal(c.OK("evaluate", map[string]any{"sessionId": id, "script": "encodeURIComponent(" + v + ")"})); strings.Contains(string(b), encodeURIComponentGo(password)) {
		t.Errorf("encodeURIComponent shows the secret: %s", b)
	}
	// Text that shares only a few characters with the secret is not
	// touched: the field's label, and a short slice.
	for script, want := range map[string]string{
		"'Password: s3cret'":        "Password: s3cret",
		"document.title.length > 0": "true",
		v + ".length":               "18",
	} {
		b, _ := json.Marshal(c.OK("evaluate", map[string]any{"sessionId": id, "script": script}))
		if !strings.Contains(string(b), want) || strings.Contains(string(b), "{{secret:") {
			t.Errorf("evaluate %s = %s, want %q untouched", script, b, want)
		}
	}
	// The snapshot and get_value show the placeholder.
	for tool, args := range map[string]map[string]any{
		"get_value": {"sessionId": id, "selector": "#notes"},
		"snapshot":  {"sessionId": id},
	} {
		b, _ := json.Marshal(c.OK(tool, args))
		if strings.Contains(string(b), "w0rd") || !strings.Contains(string(b), handle) {
			t.Errorf("%s shows the secret, or not its placeholder: %s", tool, b)
		}
	}
}

// secretHandle is the placeholder the authenticate prompt gives c for
// password, to type into form.html's #notes.
func secretHandle(t *testing.T, c *httpservetest.Client, password string) string {
	t.Helper()
	res, err := c.GetPrompt(context.Background(), mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "authenticate", Arguments: map[string]string{
		"url": site.URL + "/form.html", "username": "ada", "password": password, "username_selector": "#user", "password_selector": "#notes"}}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Messages[0].Content.(mcp.TextContent).Text
	i := strings.Index(text, "{{secret:")
	if i < 0 {
		t.Fatalf("authenticate gave no placeholder: %s", text)
	}
	return text[i : i+strings.Index(text[i:], "}}")+2]
}

func jsString(s string) string { b, _ := json.Marshal(s); return string(b) }

// encodeURIComponentGo is JavaScript's encodeURIComponent, for ASCII.
func encodeURIComponentGo(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// A secret shown on the page is redacted from the outline snapshot
// {file:true} saves as from the outline it answers: the agent reads that
// file next.
func TestSecretRedactedInSnapshotFile(t *testing.T) {
	s := startHTTP(t, tools.Options{})
	c := s.HTTPClient(t, httpservetest.KeyA)
	const password = `s3cret-Pa"ss&w0rd<`
	handle := secretHandle(t, c, password)
	id := c.OK("create_session", nil)["sessionId"].(string)
	c.OK("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
	c.OK("type", map[string]any{"sessionId": id, "selector": "#notes", "text": handle})
	out := c.OK("snapshot", map[string]any{"sessionId": id, "file": true})
	b, err := os.ReadFile(out["path"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "w0rd") || !strings.Contains(string(b), handle) {
		t.Errorf("the saved outline shows the secret, or not its placeholder:\n%s", b)
	}
}

// verify_value takes a secret placeholder as the value it checks, as fill
// and type take one: the field holds the secret, and the answer shows only
// the placeholder.
func TestVerifyValueTakesASecret(t *testing.T) {
	s := startHTTP(t, tools.Options{Caps: []tools.Group{tools.Testing}})
	c := s.HTTPClient(t, httpservetest.KeyA)
	const password = `s3cret-Pa"ss&w0rd<`
	handle := secretHandle(t, c, password)
	id := c.OK("create_session", nil)["sessionId"].(string)
	c.OK("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
	c.OK("fill", map[string]any{"sessionId": id, "selector": "#notes", "value": handle})
	out := c.OK("verify_value", map[string]any{"sessionId": id, "selector": "#notes", "value": handle})
	if b, _ := json.Marshal(out); strings.Contains(string(b), "w0rd") {
		t.Errorf("verify_value shows the secret: %s", b)
	}
	// A wrong value fails, and its error shows no secret either.
	c.OK("fill", map[string]any{"sessionId": id, "selector": "#notes", "value": "plain"})
	res, isErr := c.Call("verify_value", map[string]any{"sessionId": id, "selector": "#notes", "value": handle, "timeout": 300})
	if b, _ := json.Marshal(res); !isErr || strings.Contains(string(b), "w0rd") || !strings.Contains(string(b), "ASSERTION_FAILED") {
		t.Errorf("verify_value of a wrong value = %s, want ASSERTION_FAILED without the secret", b)
	}
}

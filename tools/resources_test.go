package tools_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/internal/httpservetest"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/tools"
)

// startHTTP serves the tools over the HTTP transport, with two API keys, on
// the shared browser.
func startHTTP(t *testing.T, opts tools.Options) *httpservetest.Server {
	t.Helper()
	return httpservetest.Start(t, sharedBrowser(t), opts)
}

// Resources are listed and read per API key: another key sees none of them.
func TestResources(t *testing.T) {
	s := startHTTP(t, tools.Options{})
	c := s.HTTPClient(t, httpservetest.KeyA)
	ctx := context.Background()
	id := c.OK("create_session", nil)["sessionId"].(string)
	c.OK("navigate", map[string]any{"sessionId": id, "url": site.URL + "/welcome.html?user=ada"})

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
	if l, _ := s.HTTPClient(t, httpservetest.KeyB).ListResources(ctx, mcp.ListResourcesRequest{}); len(l.Resources) != 0 {
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
	c.OK("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
	snap := c.OK("snapshot", map[string]any{"sessionId": id})["snapshot"].(string)
	el, err := read("browser:///element/" + id + "/0/" + testenv.RefOf(t, snap, "button", "Sign in"))
	if err != nil || !strings.Contains(el.(mcp.TextResourceContents).Text, `"tag":"button"`) {
		t.Fatalf("element resource = %v, %v", el, err)
	}
	// Reading a resource never creates the default session.
	if n := len(c.SessionIDs()); n != 1 {
		t.Fatalf("%d sessions after reads, want 1", n)
	}
}

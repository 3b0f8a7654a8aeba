package tools_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
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
	if err != nil || len(tmpls.ResourceTemplates) != 14 { // 7, under browser:/// and playwright:///
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

// TestSeedResources (issue 15 item 8, seed 002 §3): the page resource
// gives its viewport and createdAt; the screenshots the screenshot tool
// took are listed per page and read by their timestamp, beside latest;
// elements are read by selector, beside by ref; and the seed's
// playwright:/// scheme reads the same resources as browser:///.
func TestSeedResources(t *testing.T) {
	s := startHTTP(t, tools.Options{})
	c := s.HTTPClient(t, httpservetest.KeyA)
	ctx := context.Background()
	id := c.OK("create_session", map[string]any{"viewport": map[string]any{"width": 640, "height": 480}})["sessionId"].(string)
	c.OK("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
	read := func(uri string) (mcp.ResourceContents, error) {
		res, err := c.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri}})
		if err != nil {
			return nil, err
		}
		return res.Contents[0], nil
	}
	readJSON := func(uri string, v any) {
		t.Helper()
		r, err := read(uri)
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		if err := json.Unmarshal([]byte(r.(mcp.TextResourceContents).Text), v); err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
	}

	var sess tools.SessionResource
	readJSON("browser:///session/"+id, &sess)
	for _, scheme := range []string{"browser:///", "playwright:///"} {
		var page tools.PageResource
		readJSON(scheme+"page/"+id+"/0", &page)
		if page.Viewport == nil || *page.Viewport != (tools.PageViewport{Width: 640, Height: 480}) || page.CreatedAt != sess.CreatedAt || page.Title != "Sign in" {
			t.Errorf("%s page = %+v (viewport %v), want 640x480 and createdAt %d", scheme, page, page.Viewport, sess.CreatedAt)
		}
	}

	// No screenshot yet; then two, one of the full page.
	var shots tools.ShotsResource
	readJSON("browser:///screenshot/"+id+"/0", &shots)
	if len(shots.Screenshots) != 0 {
		t.Fatalf("screenshots before any: %+v", shots)
	}
	c.OK("screenshot", map[string]any{"sessionId": id})
	c.OK("screenshot", map[string]any{"sessionId": id, "fullPage": true, "type": "jpeg"})
	readJSON("playwright:///screenshot/"+id+"/0", &shots)
	if len(shots.Screenshots) != 2 || shots.Screenshots[0].FullPage || !shots.Screenshots[1].FullPage {
		t.Fatalf("screenshots = %+v", shots)
	}
	for _, sh := range shots.Screenshots {
		if !strings.HasPrefix(sh.URI, "playwright:///screenshot/"+id+"/0/") || sh.Width != 640 || sh.CapturedAt == 0 {
			t.Errorf("screenshot %+v", sh)
		}
		r, err := read(sh.URI)
		if err != nil {
			t.Fatalf("%s: %v", sh.URI, err)
		}
		blob := r.(mcp.BlobResourceContents)
		img, _ := base64.StdEncoding.DecodeString(blob.Blob)
		if blob.MIMEType != sh.MimeType || len(img) != sh.Bytes {
			t.Errorf("%s: %s, %d bytes; listed %+v", sh.URI, blob.MIMEType, len(img), sh)
		}
	}
	if _, err := read("browser:///screenshot/" + id + "/0/2001-01-01T00:00:00.000Z"); err == nil || !strings.Contains(err.Error(), "INVALID_PARAMETERS") {
		t.Errorf("a screenshot never taken: %v", err)
	}

	// Elements by selector, CSS or XPath, percent-encoded in the URI.
	for sel, want := range map[string]string{"#user": "input", "//button[@id='go']": "button"} {
		var els tools.ElementsResource
		readJSON("browser:///elements/"+id+"/0/"+url.PathEscape(sel), &els)
		if els.Selector != sel || els.Total != 1 || len(els.Elements) != 1 || els.Elements[0].Tag != want {
			t.Errorf("elements %s = %+v", sel, els)
		}
	}
	var inputs tools.ElementsResource
	readJSON("browser:///elements/"+id+"/0/input", &inputs)
	if inputs.Total < 2 || len(inputs.Elements) != inputs.Total {
		t.Errorf("elements input = %+v", inputs)
	}
	if _, err := read("browser:///elements/" + id + "/0/" + url.PathEscape("##")); err == nil || !strings.Contains(err.Error(), "INVALID_SELECTOR") {
		t.Errorf("a bad selector: %v", err)
	}
	// Another key's session is not found under either scheme.
	b := s.HTTPClient(t, httpservetest.KeyB)
	for _, uri := range []string{"browser:///elements/" + id + "/0/input", "playwright:///screenshot/" + id + "/0"} {
		if _, err := b.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri}}); err == nil || !strings.Contains(err.Error(), "SESSION_NOT_FOUND") {
			t.Errorf("key B reads %s: %v", uri, err)
		}
	}
}

// TestResourceErrorCodes: a resources/read whose URI holds a wrong
// parameter (a selector that does not parse, a pageId that is not 0, a
// screenshot never taken) answers -32602, invalid params, and what the URI
// names and is not there (a session, an element by ref) -32002, resource
// not found; each message starts with the error code the tools give, over
// every transport, Streamable HTTP, SSE and WebSocket alike. mcp-go would
// answer each with -32603, an internal error.
func TestResourceErrorCodes(t *testing.T) {
	for _, tr := range []string{"http", "sse", "ws"} {
		t.Run(tr, func(t *testing.T) {
			var c *httpservetest.Client
			switch tr {
			case "http":
				c = startHTTP(t, tools.Options{}).HTTPClient(t, httpservetest.KeyA)
			case "sse":
				c = startHTTP(t, tools.Options{}).SSEClient(t, httpservetest.KeyA)
			case "ws":
				c = httpservetest.StartWS(t, sharedBrowser(t), tools.Options{}).WSClient(t, httpservetest.KeyA)
			}
			id := c.OK("create_session", nil)["sessionId"].(string)
			c.OK("navigate", map[string]any{"sessionId": id, "url": site.URL + "/form.html"})
			for _, tc := range []struct {
				uri  string
				want error
				code string
			}{
				{"browser:///elements/" + id + "/0/" + url.PathEscape("##"), mcp.ErrInvalidParams, "INVALID_SELECTOR"},
				{"playwright:///elements/" + id + "/0/" + url.PathEscape("div[["), mcp.ErrInvalidParams, "INVALID_SELECTOR"},
				{"browser:///elements/" + id + "/0/" + url.PathEscape("//div[@"), mcp.ErrInvalidParams, "INVALID_SELECTOR"},
				{"browser:///page/" + id + "/7", mcp.ErrInvalidParams, "INVALID_PARAMETERS"},
				{"browser:///elements/" + id + "/x/input", mcp.ErrInvalidParams, "INVALID_PARAMETERS"},
				{"browser:///screenshot/" + id + "/0/2001-01-01T00:00:00.000Z", mcp.ErrInvalidParams, "INVALID_PARAMETERS"},
				{"browser:///element/" + id + "/0/e999", mcp.ErrResourceNotFound, "ELEMENT_NOT_FOUND"},
				{"browser:///element/" + id + "/0/nonsense", mcp.ErrInvalidParams, "INVALID_PARAMETERS"},
				{"browser:///session/no-such-session", mcp.ErrResourceNotFound, "SESSION_NOT_FOUND"},
			} {
				_, err := c.ReadResource(context.Background(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: tc.uri}})
				if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.code) {
					t.Errorf("%s: err = %v, want %v with %s", tc.uri, err, tc.want, tc.code)
				}
			}
			// The session is fine after every refusal.
			var els tools.ElementsResource
			res, err := c.ReadResource(context.Background(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "browser:///elements/" + id + "/0/input"}})
			if err != nil || json.Unmarshal([]byte(res.Contents[0].(mcp.TextResourceContents).Text), &els) != nil || els.Total < 2 {
				t.Fatalf("elements input = %+v, %v", els, err)
			}
		})
	}
}

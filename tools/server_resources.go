package tools

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/jsonrpc"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
)

// Resources (seed 002 §3) expose a session's state under browser:///. Every
// read runs as the caller's owner, so another API key's sessions answer
// SESSION_NOT_FOUND exactly as the tools do. A failed read is a JSON-RPC
// error whose message starts with the error code ("SESSION_NOT_FOUND: ...").
//
// pageId is "0", the session's current page, until sessions hold several
// pages.

// ResourceScheme prefixes every resource URI.
const ResourceScheme = "browser:///"

// SeedScheme is the design's own scheme (seed 002 §3.1), an alias of
// ResourceScheme: every template is served under both.
const SeedScheme = "playwright:///"

// cutScheme returns uri without either scheme, and whether it had one.
func cutScheme(uri string) (string, bool) {
	if rest, ok := strings.CutPrefix(uri, ResourceScheme); ok {
		return rest, true
	}
	return strings.CutPrefix(uri, SeedScheme)
}

// resource is one resource template and its reader.
type resource struct {
	uri, name, desc, mime string
	read                  func(ctx context.Context, d *Deps, v resourceVars) (any, error)
}

type resourceVars struct {
	uri, session, page, ref, stamp, selector string
}

func resources() []resource {
	return []resource{
		{"session/{sessionId}", "session", "A session: its page URL, title and expiry.", "application/json", readSession},
		{"page/{sessionId}/{pageId}", "page", "A page of a session (pageId 0 is the current page): URL, title, viewport, createdAt.", "application/json", readPage},
		{"screenshot/{sessionId}/{pageId}", "screenshots", "The page's screenshots the screenshot tool took (the last 10), each with its URI and capturedAt.", "application/json", readShots},
		{"screenshot/{sessionId}/{pageId}/{+timestamp}", "screenshot", "A screenshot: latest is a PNG of the viewport taken when read; a timestamp from the list is that screenshot.", "image/png", readScreenshot},
		{"network-log/{sessionId}/{pageId}", "network-log", "The session's recent requests (the get_request_log record, newest 200) and those the security policy blocked.", "application/json", readNetworkLog},
		{"element/{sessionId}/{pageId}/{ref}", "element", "An element by snapshot ref: tag, text, attributes, visibility, box.", "application/json", readElement},
		{"elements/{sessionId}/{pageId}/{+selector}", "elements", "The elements a selector (CSS or XPath, percent-encoded) matches, the first 50: tag, text, attributes, visibility, box.", "application/json", readElements},
	}
}

func addResources(s *server.MCPServer, hooks *server.Hooks, d *Deps) {
	for _, scheme := range []string{ResourceScheme, SeedScheme} {
		for _, r := range resources() {
			addResource(s, d, scheme, r)
		}
	}
	// resources/list shows the caller's own sessions and their pages.
	hooks.AddAfterListResources(func(ctx context.Context, _ any, _ *mcp.ListResourcesRequest, res *mcp.ListResourcesResult) {
		for _, i := range d.Sessions.List(ctx) {
			res.Resources = append(res.Resources,
				mcp.NewResource(ResourceScheme+"session/"+i.ID, "session "+i.ID, mcp.WithMIMEType("application/json"), mcp.WithResourceDescription("Session "+i.Name)),
				mcp.NewResource(ResourceScheme+"page/"+i.ID+"/0", i.Title, mcp.WithMIMEType("application/json"), mcp.WithResourceDescription(i.URL)),
			)
		}
	})
}

// addResource serves one template under scheme.
func addResource(s *server.MCPServer, d *Deps, scheme string, r resource) {
	name, desc := r.name, r.desc
	if scheme != ResourceScheme {
		name, desc = r.name+" ("+scheme+")", "Alias of "+ResourceScheme+r.uri+"."
	}
	tmpl := mcp.NewResourceTemplate(scheme+r.uri, name, mcp.WithTemplateDescription(desc), mcp.WithTemplateMIMEType(r.mime))
	s.AddResourceTemplate(tmpl, func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		v := resourceVars{uri: req.Params.URI, session: arg(req, "sessionId"), page: arg(req, "pageId"), ref: arg(req, "ref"),
			stamp: arg(req, "timestamp"), selector: arg(req, "selector")}
		if v.session == "" {
			return nil, invalid("sessionId", "the resource URI names no session")
		}
		if v.page != "" && v.page != "0" {
			return nil, invalid("pageId", "pageId %q does not exist; sessions have one page, 0", v.page)
		}
		out, err := r.read(ctx, d, v)
		if err != nil {
			return nil, engine.AsError(err).Clipped()
		}
		if png, ok := out.([]byte); ok {
			return []mcp.ResourceContents{mcp.BlobResourceContents{URI: v.uri, MIMEType: r.mime, Blob: base64.StdEncoding.EncodeToString(png)}}, nil
		}
		if sh, ok := out.(*shot); ok {
			return []mcp.ResourceContents{mcp.BlobResourceContents{URI: v.uri, MIMEType: sh.mime, Blob: base64.StdEncoding.EncodeToString(sh.img)}}, nil
		}
		b, err := json.Marshal(out)
		if err != nil {
			return nil, err
		}
		text := string(b)
		if red := d.secrets.redactor(engine.OwnerOf(ctx)); red != nil {
			text = redactJSON(red, text)
		}
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: v.uri, MIMEType: r.mime, Text: text}}, nil
	})
}

// arg reads a template variable, which mcp-go passes as []string.
func arg(req mcp.ReadResourceRequest, name string) string {
	switch v := req.Params.Arguments[name].(type) {
	case string:
		return v
	case []string:
		return strings.Join(v, "/")
	}
	return ""
}

// SessionResource is the JSON of browser:///session/{sessionId}.
type SessionResource struct {
	SessionID string `json:"sessionId"`
	Name      string `json:"name,omitempty"`
	URL       string `json:"url"`
	Title     string `json:"title"`
	CreatedAt int64  `json:"createdAt"`
	ExpiresAt int64  `json:"expiresAt"`
}

// findSession looks the session up among the caller's own, without waiting
// for a call running on it and without extending its expiry.
func findSession(ctx context.Context, d *Deps, ref string) (engine.SessionInfo, error) {
	for _, i := range d.Sessions.List(ctx) {
		if i.ID == ref || (i.Name != "" && i.Name == ref) {
			return i, nil
		}
	}
	e := engine.Errorf(engine.SessionNotFound, "no session with id %q", ref)
	e.SessionID = ref
	return engine.SessionInfo{}, e
}

func readSession(ctx context.Context, d *Deps, v resourceVars) (any, error) {
	i, err := findSession(ctx, d, v.session)
	if err != nil {
		return nil, err
	}
	return SessionResource{SessionID: i.ID, Name: i.Name, URL: i.URL, Title: i.Title, CreatedAt: i.CreatedAt.UnixMilli(), ExpiresAt: i.ExpiresAt.UnixMilli()}, nil
}

// PageResource is the JSON of browser:///page/{sessionId}/{pageId}.
type PageResource struct {
	SessionID string `json:"sessionId"`
	PageID    string `json:"pageId"`
	URL       string `json:"url"`
	Title     string `json:"title"`
	// Viewport is the page's layout viewport in CSS pixels, as the page
	// reads it (innerWidth, innerHeight); absent when the page cannot
	// answer (a dialog blocks it).
	Viewport *PageViewport `json:"viewport,omitempty"`
	// CreatedAt is when the session, and with it its page, was created
	// (Unix ms).
	CreatedAt int64 `json:"createdAt"`
}

func readPage(ctx context.Context, d *Deps, v resourceVars) (any, error) {
	i, err := findSession(ctx, d, v.session)
	if err != nil {
		return nil, err
	}
	out := PageResource{SessionID: i.ID, PageID: "0", URL: i.URL, Title: i.Title, CreatedAt: i.CreatedAt.UnixMilli()}
	_, err = d.Sessions.Run(ctx, i.ID, func(ctx context.Context, s engine.Session) error {
		vp, err := evalInto[struct{ Width, Height int }](ctx, s, engine.EvalRequest{Expression: "({Width: innerWidth, Height: innerHeight})"})
		if err == nil {
			out.Viewport = &PageViewport{Width: vp.Width, Height: vp.Height}
		}
		return nil
	})
	return out, err
}

// PageViewport is a page's viewport in CSS pixels.
type PageViewport struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// ShotsResource is the JSON of browser:///screenshot/{sessionId}/{pageId}.
type ShotsResource struct {
	SessionID   string     `json:"sessionId"`
	PageID      string     `json:"pageId"`
	Screenshots []ShotInfo `json:"screenshots"`
}

// ShotInfo describes one kept screenshot (seed 002 §3.4).
type ShotInfo struct {
	URI        string `json:"uri"`
	MimeType   string `json:"mimeType"`
	Width      int    `json:"width"`
	Height     int    `json:"height"`
	FullPage   bool   `json:"fullPage"`
	CapturedAt int64  `json:"capturedAt"` // Unix ms
	Bytes      int    `json:"bytes"`
}

func readShots(ctx context.Context, d *Deps, v resourceVars) (any, error) {
	i, err := findSession(ctx, d, v.session)
	if err != nil {
		return nil, err
	}
	scheme := ResourceScheme
	if strings.HasPrefix(v.uri, SeedScheme) {
		scheme = SeedScheme
	}
	out := ShotsResource{SessionID: i.ID, PageID: "0", Screenshots: []ShotInfo{}}
	for _, s := range d.shots.list(i.ID) {
		out.Screenshots = append(out.Screenshots, ShotInfo{URI: scheme + "screenshot/" + i.ID + "/0/" + s.stamp, MimeType: s.mime,
			Width: s.width, Height: s.height, FullPage: s.fullPage, CapturedAt: s.at.UnixMilli(), Bytes: len(s.img)})
	}
	return out, nil
}

func readScreenshot(ctx context.Context, d *Deps, v resourceVars) (any, error) {
	i, err := findSession(ctx, d, v.session)
	if err != nil {
		return nil, err // never create the default session from a read
	}
	if v.stamp != "latest" {
		if s := d.shots.find(i.ID, v.stamp); s != nil {
			return s, nil
		}
		return nil, engine.Errorf(engine.InvalidParameters, "session %s has no screenshot of %q; the screenshot list names those it has", i.ID, engine.Clip(v.stamp, 64)).
			With("field", "timestamp")
	}
	var png []byte
	_, err = d.Sessions.Run(ctx, v.session, func(ctx context.Context, s engine.Session) error {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		var err error
		png, err = s.Screenshot(ctx, engine.ScreenshotRequest{Format: "png", MaxBytes: d.MaxScreenshotBytes})
		return err
	})
	if err != nil {
		return nil, err
	}
	if d.MaxScreenshotBytes > 0 && len(png) > d.MaxScreenshotBytes {
		return nil, engine.Errorf(engine.ResourceExhausted, "the screenshot is %d bytes, over the server's maxScreenshotSize of %d", len(png), d.MaxScreenshotBytes).With("reason", "size_cap").
			Suggest("Use a smaller viewport, or raise security.maxScreenshotSize.")
	}
	return png, nil
}

// NetworkLogResource is the JSON of browser:///network-log/{sessionId}/{pageId}.
type NetworkLogResource struct {
	SessionID string                  `json:"sessionId"`
	PageID    string                  `json:"pageId"`
	Requests  []engine.RequestEntry   `json:"requests"`
	Dropped   int                     `json:"dropped,omitempty"` // older requests not shown
	Blocked   []engine.BlockedRequest `json:"blocked"`
}

func readNetworkLog(ctx context.Context, d *Deps, v resourceVars) (any, error) {
	if _, err := findSession(ctx, d, v.session); err != nil {
		return nil, err
	}
	out := NetworkLogResource{PageID: "0", Blocked: []engine.BlockedRequest{}}
	info, err := d.Sessions.Run(ctx, v.session, func(ctx context.Context, s engine.Session) error {
		l, err := s.RequestLog(ctx, engine.RequestLogQuery{Limit: 200})
		if err != nil {
			return err
		}
		out.Requests, out.Dropped = l.Requests, l.Dropped+max(l.Total-len(l.Requests), 0)
		out.Blocked = append(out.Blocked, s.BlockedRequests()...)
		return nil
	})
	out.SessionID = info.ID
	return out, err
}

// ElementsResource is the JSON of browser:///elements/{sessionId}/{pageId}/{selector}.
type ElementsResource struct {
	SessionID string        `json:"sessionId"`
	PageID    string        `json:"pageId"`
	Selector  string        `json:"selector"`
	Elements  []ElementInfo `json:"elements"`
	Total     int           `json:"total"` // matches before the first 50
}

func readElements(ctx context.Context, d *Deps, v resourceVars) (any, error) {
	i, err := findSession(ctx, d, v.session)
	if err != nil {
		return nil, err
	}
	sel := v.selector
	if u, err := url.PathUnescape(sel); err == nil {
		sel = u
	}
	out := ElementsResource{SessionID: i.ID, PageID: "0", Selector: sel}
	_, err = d.Sessions.Run(ctx, i.ID, func(ctx context.Context, s engine.Session) error {
		found, err := evalInto[FindElementsOut](ctx, s, engine.EvalRequest{Target: &engine.Target{Selector: sel}, All: true, Args: []any{50}, Function: describeAllJS})
		out.Elements, out.Total = found.Elements, found.Total
		return err
	})
	if out.Elements == nil {
		out.Elements = []ElementInfo{}
	}
	return out, err
}

func readElement(ctx context.Context, d *Deps, v resourceVars) (any, error) {
	if _, err := findSession(ctx, d, v.session); err != nil {
		return nil, err
	}
	// A context-prefixed ref must be one of this session's (ctxrefs.go);
	// its ':' comes percent-encoded, as {ref} expands it (RFC 6570).
	in := struct {
		Ref string `json:"ref"`
	}{v.ref}
	if u, err := url.PathUnescape(v.ref); err == nil {
		in.Ref = u
	}
	sc, err := scopeRefs(ctx, d.Sessions, v.session, &in)
	if err != nil {
		return nil, err
	}
	var out ElementInfo
	_, err = d.Sessions.Run(ctx, v.session, func(ctx context.Context, s engine.Session) error {
		var err error
		out, err = evalInto[ElementInfo](ctx, s, engine.EvalRequest{Target: &engine.Target{Ref: in.Ref}, Function: describeJS})
		return err
	})
	return out, sc.restore(err)
}

// ResourceCheck refuses, before mcp-go runs it, a resources/read of a
// session the caller cannot see, with the JSON-RPC code of a missing
// resource (-32002): mcp-go answers every error of a resource handler with
// -32603, an internal error, which it is not.
func ResourceCheck(m *sessions.Manager) jsonrpc.Check {
	return func(ctx context.Context, method string, params json.RawMessage) *jsonrpc.Error {
		if method != string(mcp.MethodResourcesRead) {
			return nil
		}
		var p struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(params, &p) != nil {
			return nil
		}
		rest, ok := cutScheme(p.URI)
		if !ok {
			return nil
		}
		parts := strings.Split(rest, "/")
		if len(parts) < 2 || parts[1] == "" || !slices.ContainsFunc(resources(), func(r resource) bool {
			return strings.HasPrefix(r.uri, parts[0]+"/")
		}) {
			return nil
		}
		if m.Owns(ctx, parts[1]) {
			return unencodedSelector(p.URI, parts)
		}
		return &jsonrpc.Error{Code: jsonrpc.ResourceNotFound,
			Message: fmt.Sprintf("%s: resource not found: no session %q", engine.SessionNotFound, engine.Clip(parts[1], 64)),
			Data:    map[string]any{"uri": engine.Clip(p.URI, 256), "errorCode": engine.SessionNotFound}}
	}
}

// elementsTemplates are the elements template under each scheme, as mcp-go
// matches a URI against it.
var elementsTemplates = sync.OnceValue(func() map[string]*mcp.URITemplate {
	ts := map[string]*mcp.URITemplate{}
	for _, r := range resources() {
		if r.name == "elements" {
			for _, scheme := range []string{ResourceScheme, SeedScheme} {
				ts[scheme] = mcp.NewResourceTemplate(scheme+r.uri, r.name).URITemplate
			}
		}
	}
	return ts
})

// unencodedSelector refuses an elements URI whose selector the template
// cannot match, because it holds characters a URI must percent-encode (a
// space, '>', '|', '\', a '%' that starts no escape): mcp-go would answer
// -32002, no handler for the URI, as if there were no such resource. It
// is a selector the URI does not carry as the template asks,
// INVALID_SELECTOR, as a selector that does not parse is.
func unencodedSelector(uri string, parts []string) *jsonrpc.Error {
	if parts[0] != "elements" || len(parts) < 4 || strings.Join(parts[3:], "") == "" {
		return nil
	}
	scheme := strings.TrimSuffix(uri, strings.Join(parts, "/"))
	t := elementsTemplates()[scheme]
	if t == nil || t.Regexp().MatchString(uri) {
		return nil
	}
	sel := strings.Join(parts[3:], "/")
	return &jsonrpc.Error{Code: jsonrpc.InvalidParams,
		Message: fmt.Sprintf("%s: the selector %q is not percent-encoded in the URI: encode it (encodeURIComponent, url.PathEscape) as the template's {+selector} asks",
			engine.InvalidSelector, engine.Clip(sel, 256)),
		Data: map[string]any{"uri": engine.Clip(uri, 256), "errorCode": engine.InvalidSelector, "field": "selector"}}
}

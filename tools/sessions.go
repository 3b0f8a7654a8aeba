package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// CreateSessionIn is the input of create_session.
type CreateSessionIn struct {
	Name             string            `json:"name,omitempty" jsonschema:"Unique; usable as sessionId" size:"64"`
	UserAgent        string            `json:"userAgent,omitempty"`
	Viewport         *ViewportArg      `json:"viewport,omitempty"`
	Locale           string            `json:"locale,omitempty" jsonschema:"e.g. de-DE"`
	TimezoneID       string            `json:"timezoneId,omitempty" jsonschema:"e.g. Europe/Berlin"`
	ExtraHTTPHeaders map[string]string `json:"extraHTTPHeaders,omitempty"`
	ProxyStateArgs
}

// ProxyStateArgs are the session options create_session and
// browser_context_create share. Each takes two shapes, so its schema names
// no type and validate checks it.
type ProxyStateArgs struct {
	Proxy        any `json:"proxy,omitempty" jsonschema:"URL, or {server,username?,password?,bypass?}"`
	StorageState any `json:"storageState,omitempty" jsonschema:"save_state result or its file path"`
}

// ViewportArg is a page size.
type ViewportArg struct {
	Width  int `json:"width" range:"1,10000"`
	Height int `json:"height" range:"1,10000"`
}

// maxProxyField bounds each string of a proxy argument; free-form
// arguments are not bounded by their tags (limits.go).
const maxProxyField = 4096

// proxyArg is the proxy argument in its object shape; a string is its
// server alone.
type proxyArg struct {
	Server   string `json:"server"`
	Username string `json:"username,omitempty"`
	Password string `json:"password,omitempty"`
	Bypass   string `json:"bypass,omitempty"`
}

// proxy decodes the proxy argument, refusing unknown fields as bind
// refuses unknown arguments.
func (a ProxyStateArgs) proxy() (proxyArg, error) {
	var p proxyArg
	switch v := a.Proxy.(type) {
	case nil:
		return p, nil
	case string:
		p.Server = v
	case map[string]any:
		dec := json.NewDecoder(bytes.NewReader(mustJSON(v)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			return p, invalid("proxy", "proxy must be a URL or {server, username?, password?, bypass?} (strings): %v", err)
		}
		if p.Server == "" {
			return p, invalid("proxy", "proxy.server is required, e.g. http://host:3128 or socks5://host:1080")
		}
	default:
		return p, invalid("proxy", "proxy must be a URL string or an object {server, username?, password?, bypass?}")
	}
	for _, f := range []string{p.Server, p.Username, p.Password, p.Bypass} {
		if len(f) > maxProxyField {
			return p, invalid("proxy", "each proxy field may hold at most %d bytes", maxProxyField)
		}
	}
	return p, nil
}

func (a ProxyStateArgs) validate() error {
	p, err := a.proxy()
	if err != nil {
		return err
	}
	if err := (engine.SessionOptions{Proxy: p.Server, ProxyUsername: p.Username, ProxyPassword: p.Password}).Validate(); err != nil {
		return err
	}
	switch v := a.StorageState.(type) {
	case nil:
	case string:
		if len(v) > maxProxyField {
			return invalid("storageState", "a storageState path may hold at most %d bytes", maxProxyField)
		}
	case map[string]any:
		if _, err := parseState(mustJSON(v)); err != nil {
			return err
		}
	default:
		return invalid("storageState", "storageState must be a save_state result (an object) or the path of its JSON file")
	}
	return nil
}

// apply sets the proxy and the storage state on o. A storage state given
// as a path is read under the rules of every file argument (files.go).
func (a ProxyStateArgs) apply(ctx context.Context, d *Deps, o *engine.SessionOptions) error {
	p, err := a.proxy()
	if err != nil {
		return err
	}
	o.Proxy, o.ProxyUsername, o.ProxyPassword, o.ProxyBypass = p.Server, p.Username, p.Password, p.Bypass
	switch v := a.StorageState.(type) {
	case map[string]any:
		o.StorageState, err = parseState(mustJSON(v))
	case string:
		path, rerr := d.files.resolve(ctx, "storageState", v, false)
		if rerr != nil {
			return rerr
		}
		b, rerr := os.ReadFile(path)
		if rerr != nil {
			return engine.Wrap(engine.InvalidParameters, rerr, "cannot read "+path+": "+rerr.Error()).With("field", "storageState")
		}
		o.StorageState, err = parseState(b)
	}
	return err
}

func (in CreateSessionIn) validate() error {
	if err := checkContextName(in.Name); err != nil {
		return err
	}
	if err := in.ProxyStateArgs.validate(); err != nil {
		return err
	}
	if v := in.Viewport; v != nil && (v.Width <= 0 || v.Height <= 0 || v.Width > 10000 || v.Height > 10000) {
		return invalid("viewport", "viewport must be between 1x1 and 10000x10000, got %dx%d", v.Width, v.Height)
	}
	return nil
}

func (in CreateSessionIn) options(ctx context.Context, d *Deps) (engine.SessionOptions, error) {
	o := engine.SessionOptions{UserAgent: in.UserAgent, Locale: in.Locale, TimezoneID: in.TimezoneID,
		ExtraHTTPHeaders: in.ExtraHTTPHeaders}
	if in.Viewport != nil {
		o.Viewport = engine.Viewport{Width: in.Viewport.Width, Height: in.Viewport.Height}
	}
	return o, in.apply(ctx, d, &o)
}

// CreateSessionOut is the result of create_session.
type CreateSessionOut struct {
	SessionID string `json:"sessionId" jsonschema:"Pass this to every page tool"`
	ExpiresAt int64  `json:"expiresAt" jsonschema:"Unix ms; each call on the session extends it"`
	Message   string `json:"message"`
}

func createSession(d *Deps) Tool {
	return serverTool(d, "create_session",
		"Open an isolated browser session; returns sessionId.",
		local,
		func(ctx context.Context, in CreateSessionIn) (CreateSessionOut, error) {
			opts, err := in.options(ctx, d)
			if err != nil {
				return CreateSessionOut{}, err
			}
			info, err := d.Sessions.Create(ctx, in.Name, opts)
			if err != nil {
				return CreateSessionOut{}, err
			}
			return CreateSessionOut{
				SessionID: info.ID,
				ExpiresAt: info.ExpiresAt.UnixMilli(),
				Message:   fmt.Sprintf("Session created; it expires %s after its last call.", info.ExpiresAt.Sub(info.CreatedAt).Round(time.Second)),
			}, nil
		})
}

// CloseSessionIn is the input of close_session.
type CloseSessionIn struct {
	SessionID string `json:"sessionId" jsonschema:"Session id or name"`
}

// SuccessOut is the result of tools that only succeed or fail.
type SuccessOut struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
}

func closeSession(d *Deps) Tool {
	return serverTool(d, "close_session", "Close a session.",
		hints{destructive: true, idempotent: false},
		func(ctx context.Context, in CloseSessionIn) (SuccessOut, error) {
			if in.SessionID == "" {
				return SuccessOut{}, invalid("sessionId", "sessionId must not be empty")
			}
			info, err := d.Sessions.Close(ctx, in.SessionID)
			if err != nil {
				return SuccessOut{}, err
			}
			return SuccessOut{Success: true, Message: "Session " + info.ID + " closed."}, nil
		})
}

// ListSessionsIn is the input of list_sessions.
type ListSessionsIn struct{}

// SessionItem describes one open session.
type SessionItem struct {
	SessionID string `json:"sessionId"`
	Name      string `json:"name,omitempty"`
	CreatedAt int64  `json:"createdAt" jsonschema:"Unix ms"`
	ExpiresAt int64  `json:"expiresAt" jsonschema:"Unix ms"`
	URL       string `json:"url"`
	Title     string `json:"title"`
}

// ListSessionsOut is the result of list_sessions.
type ListSessionsOut struct {
	Sessions []SessionItem `json:"sessions"`
}

func listSessions(d *Deps) Tool {
	return serverTool(d, "list_sessions", "List your sessions.", readOnly,
		func(ctx context.Context, in ListSessionsIn) (ListSessionsOut, error) {
			out := ListSessionsOut{Sessions: []SessionItem{}}
			for _, i := range d.Sessions.List(ctx) {
				out.Sessions = append(out.Sessions, SessionItem{
					SessionID: i.ID, Name: i.Name, CreatedAt: i.CreatedAt.UnixMilli(), ExpiresAt: i.ExpiresAt.UnixMilli(),
					URL: i.URL, Title: i.Title,
				})
			}
			return out, nil
		})
}

package tools

import (
	"context"
	"fmt"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// CreateSessionIn is the input of create_session.
type CreateSessionIn struct {
	Name             string            `json:"name,omitempty" jsonschema:"Unique; usable as sessionId"`
	UserAgent        string            `json:"userAgent,omitempty"`
	Viewport         *ViewportArg      `json:"viewport,omitempty"`
	Locale           string            `json:"locale,omitempty" jsonschema:"e.g. de-DE"`
	TimezoneID       string            `json:"timezoneId,omitempty" jsonschema:"e.g. Europe/Berlin"`
	ExtraHTTPHeaders map[string]string `json:"extraHTTPHeaders,omitempty"`
	Proxy            string            `json:"proxy,omitempty" jsonschema:"e.g. socks5://host:1080"`
	StorageState     map[string]any    `json:"storageState,omitempty" jsonschema:"A save_state result"`
}

// ViewportArg is a page size.
type ViewportArg struct {
	Width  int `json:"width" range:"1,10000"`
	Height int `json:"height" range:"1,10000"`
}

func (in CreateSessionIn) validate() error {
	if in.StorageState != nil {
		if _, err := parseState(mustJSON(in.StorageState)); err != nil {
			return err
		}
	}
	if v := in.Viewport; v != nil && (v.Width <= 0 || v.Height <= 0 || v.Width > 10000 || v.Height > 10000) {
		return invalid("viewport", "viewport must be between 1x1 and 10000x10000, got %dx%d", v.Width, v.Height)
	}
	return nil
}

func (in CreateSessionIn) options() engine.SessionOptions {
	o := engine.SessionOptions{UserAgent: in.UserAgent, Locale: in.Locale, TimezoneID: in.TimezoneID,
		ExtraHTTPHeaders: in.ExtraHTTPHeaders, Proxy: in.Proxy}
	if in.StorageState != nil {
		o.StorageState, _ = parseState(mustJSON(in.StorageState))
	}
	if in.Viewport != nil {
		o.Viewport = engine.Viewport{Width: in.Viewport.Width, Height: in.Viewport.Height}
	}
	return o
}

// CreateSessionOut is the result of create_session.
type CreateSessionOut struct {
	SessionID string `json:"sessionId" jsonschema:"Pass this to every page tool"`
	ExpiresAt int64  `json:"expiresAt" jsonschema:"Unix ms; each call on the session extends it"`
	Message   string `json:"message"`
}

func createSession(d *Deps) Tool {
	return serverTool("create_session",
		"Open an isolated browser session; returns sessionId.",
		local,
		func(ctx context.Context, in CreateSessionIn) (CreateSessionOut, error) {
			info, err := d.Sessions.Create(ctx, in.Name, in.options())
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
	return serverTool("close_session", "Close a session.",
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
	return serverTool("list_sessions", "List your sessions.", readOnly,
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

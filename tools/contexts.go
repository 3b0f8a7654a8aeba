package tools

import (
	"context"
	"fmt"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Named contexts (the seed's browser_context_* tools). A context is a
// session with a name; each client has an active one, which every session
// tool uses when the call gives no sessionId: one per API key over HTTP, one
// for stdio. It starts as "default", created on first use; closing the
// active context makes "default" active again. The Manager keeps the active
// context (sessions.Manager.Active), so the owner scoping of sessions holds
// for contexts too: another key's contexts are not found.

// ContextNameIn is the input of the context tools that take only a name.
type ContextNameIn struct {
	Name string `json:"name"`
}

// ContextCreateIn is the input of browser_context_create.
type ContextCreateIn struct {
	Name string `json:"name" jsonschema:"Unique; usable as sessionId" size:"64"`
	ProxyStateArgs
}

func (in ContextCreateIn) validate() error {
	if err := checkContextName(in.Name); err != nil {
		return err
	}
	return in.ProxyStateArgs.validate()
}

// ContextOut describes the context a call made active.
type ContextOut struct {
	Name      string `json:"name"`
	SessionID string `json:"sessionId"`
	URL       string `json:"url"`
	Pages     int    `json:"pages"`
	Message   string `json:"message"`
}

func contextOut(i engine.SessionInfo, msg string) ContextOut {
	return ContextOut{Name: contextName(i), SessionID: i.ID, URL: i.URL, Pages: i.Pages, Message: msg}
}

// contextName is a session's name, or its id when it has none.
func contextName(i engine.SessionInfo) string {
	if i.Name != "" {
		return i.Name
	}
	return i.ID
}

// noContext rewords a lookup's SESSION_NOT_FOUND for a context name; the
// code stays, as for any session. Another key's context is not found
// either: its names are not the caller's to learn.
func noContext(err error, name string) error {
	if e := engine.AsError(err); e.Code == engine.SessionNotFound {
		e.Message = fmt.Sprintf("you have no context named %q", name)
		return e.Suggest("browser_context_list shows your contexts; browser_context_create makes one.")
	}
	return err
}

func contextCreate(d *Deps) Tool {
	return serverTool(d, "browser_context_create", "Create an isolated named context and make it active.", local,
		func(ctx context.Context, in ContextCreateIn) (ContextOut, error) {
			if in.Name == "" {
				return ContextOut{}, invalid("name", "name must not be empty")
			}
			var o engine.SessionOptions
			if err := in.apply(ctx, d, &o); err != nil {
				return ContextOut{}, err
			}
			info, err := d.Sessions.Create(ctx, in.Name, o)
			if err != nil {
				return ContextOut{}, err
			}
			if info, err = d.Sessions.Switch(ctx, info.ID); err != nil {
				return ContextOut{}, err
			}
			return contextOut(info, fmt.Sprintf("Context %q created and active: calls without sessionId use it.", in.Name)), nil
		})
}

func contextSwitch(d *Deps) Tool {
	return serverTool(d, "browser_context_switch", "Make a context active for calls without sessionId.", local,
		func(ctx context.Context, in ContextNameIn) (ContextOut, error) {
			if in.Name == "" {
				return ContextOut{}, invalid("name", "name must not be empty")
			}
			info, err := d.Sessions.Switch(ctx, in.Name)
			if err != nil {
				return ContextOut{}, noContext(err, in.Name)
			}
			return contextOut(info, fmt.Sprintf("Context %q is active.", contextName(info))), nil
		})
}

// ContextItem describes one context in browser_context_list.
type ContextItem struct {
	Name      string `json:"name"`
	SessionID string `json:"sessionId"`
	Pages     int    `json:"pages"`
	URL       string `json:"url"`
	Proxy     string `json:"proxy,omitempty"`
	Active    bool   `json:"active,omitempty"`
}

// ContextListOut is the result of browser_context_list.
type ContextListOut struct {
	// Active names the active context even before "default" exists.
	Active   string        `json:"active"`
	Contexts []ContextItem `json:"contexts"`
}

func contextList(d *Deps) Tool {
	return serverTool(d, "browser_context_list", "List your contexts; the active one is marked.", readOnly,
		func(ctx context.Context, _ ListSessionsIn) (ContextListOut, error) {
			out := ContextListOut{Active: d.Sessions.Active(ctx), Contexts: []ContextItem{}}
			for _, i := range d.Sessions.List(ctx) {
				out.Contexts = append(out.Contexts, ContextItem{
					Name: contextName(i), SessionID: i.ID, Pages: i.Pages, URL: i.URL, Proxy: i.Proxy, Active: i.Active,
				})
			}
			return out, nil
		})
}

// ContextCloseOut is the result of browser_context_close.
type ContextCloseOut struct {
	Success bool   `json:"success"`
	Active  string `json:"active" jsonschema:"The active context now"`
	Message string `json:"message"`
}

func contextClose(d *Deps) Tool {
	return serverTool(d, "browser_context_close", "Close a context and its pages.",
		hints{destructive: true},
		func(ctx context.Context, in ContextNameIn) (ContextCloseOut, error) {
			if in.Name == "" {
				return ContextCloseOut{}, invalid("name", "name must not be empty")
			}
			info, err := d.Sessions.Close(ctx, in.Name)
			if err != nil {
				return ContextCloseOut{}, noContext(err, in.Name)
			}
			active := d.Sessions.Active(ctx)
			return ContextCloseOut{Success: true, Active: active,
				Message: fmt.Sprintf("Context %q closed; %q is active.", contextName(info), active)}, nil
		})
}

package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"github.com/seed4af8c199/browsermcp/engine"
)

// State is the opt-in capability group of cookie and login-state tools.
const State Group = "state"

// GetCookiesIn is the input of get_cookies.
type GetCookiesIn struct {
	SessionArg
	URLs []string `json:"urls,omitempty" jsonschema:"Only cookies sent to these URLs" size:"65536"`
}

// CookiesOut is the result of get_cookies.
type CookiesOut struct {
	Cookies []engine.Cookie `json:"cookies"`
	SessionMeta
}

func inGroup(g Group, t Tool) Tool {
	t.Group = g
	return t
}

func getCookies(d *Deps) Tool {
	return inGroup(State, sessionTool(d, "get_cookies", "List the session's cookies.", readOnly,
		func(ctx context.Context, s engine.Session, in GetCookiesIn) (CookiesOut, error) {
			c, err := s.Cookies(ctx, in.URLs)
			return CookiesOut{Cookies: c}, err
		}))
}

// SetCookiesIn is the input of set_cookies.
type SetCookiesIn struct {
	SessionArg
	Cookies []engine.Cookie `json:"cookies" jsonschema:"Each needs name, value and url or domain"`
}

func (in SetCookiesIn) validate() error {
	if len(in.Cookies) == 0 {
		return invalid("cookies", "cookies must not be empty")
	}
	return nil
}

func setCookies(d *Deps) Tool {
	return inGroup(State, sessionTool(d, "set_cookies", "Add or replace cookies in the session.", pageAction,
		func(ctx context.Context, s engine.Session, in SetCookiesIn) (SuccessOut, error) {
			err := s.SetCookies(ctx, in.Cookies)
			return SuccessOut{Success: err == nil, Message: fmt.Sprintf("Set %d cookies.", len(in.Cookies))}, err
		}))
}

// SaveStateIn is the input of save_state.
type SaveStateIn struct {
	SessionArg
	Path string `json:"path,omitempty" jsonschema:"Also write it to this JSON file in the output directory" size:"4096"`
}

// SavedStateOut is the result of save_state.
type SavedStateOut struct {
	State map[string]any `json:"state" jsonschema:"Pass to restore_state or create_session.storageState"`
	Path  string         `json:"path,omitempty"`
	SessionMeta
}

func saveState(d *Deps) Tool {
	// Not read-only: with a path it writes (or overwrites) a file.
	return inGroup(State, sessionTool(d, "save_state", "Save cookies and localStorage (a login) as JSON.", savesFile,
		func(ctx context.Context, s engine.Session, in SaveStateIn) (SavedStateOut, error) {
			path := ""
			if in.Path != "" {
				p, err := d.files.resolve(ctx, "path", in.Path, true)
				if err != nil {
					return SavedStateOut{}, err
				}
				path = p
			}
			st, err := s.SaveState(ctx)
			if err != nil {
				return SavedStateOut{}, err
			}
			if path != "" {
				b, _ := json.MarshalIndent(st, "", "  ")
				if err := os.WriteFile(path, b, 0o600); err != nil {
					return SavedStateOut{}, engine.FileError(engine.InvalidParameters, err, "cannot write "+path).With("field", "path")
				}
			}
			var m map[string]any
			json.Unmarshal(mustJSON(st), &m)
			return SavedStateOut{State: m, Path: path}, nil
		}))
}

// RestoreStateIn is the input of restore_state.
type RestoreStateIn struct {
	SessionArg
	State map[string]any `json:"state,omitempty" jsonschema:"A save_state result"`
	Path  string         `json:"path,omitempty" jsonschema:"Or read it from this file in the output directory" size:"4096"`
}

func (in RestoreStateIn) validate() error {
	if (in.State == nil) == (in.Path == "") {
		return invalid("state", "give exactly one of state or path")
	}
	return nil
}

// parseState decodes a saved state given as a tool argument or file.
func parseState(b []byte) (*engine.StorageState, error) {
	st := &engine.StorageState{}
	if err := json.Unmarshal(b, st); err != nil {
		return nil, engine.Wrap(engine.InvalidParameters, err, "not a saved state: "+err.Error()).With("field", "storageState")
	}
	return st, nil
}

func restoreState(d *Deps) Tool {
	return inGroup(State, sessionTool(d, "restore_state", "Restore saved cookies and localStorage into the session.", pageAction,
		func(ctx context.Context, s engine.Session, in RestoreStateIn) (SuccessOut, error) {
			raw := []byte(mustJSON(in.State))
			if in.Path != "" {
				path, err := d.files.resolve(ctx, "path", in.Path, false)
				if err != nil {
					return SuccessOut{}, err
				}
				b, err := os.ReadFile(path)
				if err != nil {
					return SuccessOut{}, engine.Wrap(engine.InvalidParameters, err, "cannot read "+path+": "+err.Error()).With("field", "path")
				}
				raw = b
			}
			st, err := parseState(raw)
			if err != nil {
				return SuccessOut{}, err
			}
			if err := engine.RestoreState(ctx, s, *st); err != nil {
				return SuccessOut{}, err
			}
			return SuccessOut{Success: true, Message: fmt.Sprintf("Restored %d cookies and %d origins' localStorage.", len(st.Cookies), len(st.Origins))}, nil
		}))
}

// clears is the hints of a tool that deletes what the session holds: its
// cookies or a storage area's items. Doing it again changes nothing more.
var clears = hints{destructive: true, idempotent: true, openWorld: true}

// StorageIn is the input of local_storage and session_storage.
type StorageIn struct {
	SessionArg
	Action string  `json:"action" jsonschema:"enum=get,enum=set,enum=remove,enum=clear"`
	Key    string  `json:"key,omitempty" jsonschema:"The item; get without it lists every item" size:"65536"`
	Value  *string `json:"value,omitempty" jsonschema:"For set" size:"1048576"`
	Origin string  `json:"origin,omitempty" jsonschema:"http(s) origin. Default: the page's" size:"65536"`
}

func (in StorageIn) request(session bool) engine.StorageRequest {
	r := engine.StorageRequest{Session: session, Action: in.Action, Key: in.Key, Origin: in.Origin}
	if in.Value != nil {
		r.Value = *in.Value
	}
	return r
}

func (in StorageIn) validate() error {
	r := in.request(false)
	if err := r.Validate(); err != nil {
		return err
	}
	// An empty string is a value: only its absence is refused.
	switch {
	case in.Action == "set" && in.Value == nil:
		return invalid("value", "set needs a value (a string; \"\" stores an empty one)")
	case in.Action != "set" && in.Value != nil:
		return invalid("value", "only set takes a value")
	}
	return nil
}

// StorageOut is the result of local_storage and session_storage.
type StorageOut struct {
	Origin  string             `json:"origin" jsonschema:"Whose storage it was"`
	Items   []engine.NameValue `json:"items,omitempty" jsonschema:"get without key: every item, by name"`
	Found   bool               `json:"found" jsonschema:"With a key: whether the item was there before the call"`
	Value   *string            `json:"value,omitempty" jsonschema:"get: the item's value; set: as the page reads it back"`
	Count   int                `json:"count" jsonschema:"Items left; for clear, items removed"`
	Message string             `json:"message"`
	SessionMeta
}

func localStorage(d *Deps) Tool {
	return storageTool(d, "local_storage", "Get, set, remove or clear an origin's localStorage items.", false)
}

func sessionStorage(d *Deps) Tool {
	return storageTool(d, "session_storage", "Get, set, remove or clear an origin's sessionStorage items in the current tab.", true)
}

func storageTool(d *Deps, name, desc string, session bool) Tool {
	return inGroup(State, sessionTool(d, name, desc, clears,
		func(ctx context.Context, s engine.Session, in StorageIn) (StorageOut, error) {
			req := in.request(session)
			r, err := s.Storage(ctx, req)
			if err != nil {
				return StorageOut{}, err
			}
			return StorageOut{Origin: r.Origin, Items: r.Items, Found: r.Found, Value: r.Value, Count: r.Count,
				Message: storageMessage(req, r)}, nil
		}))
}

// storageMessage says in a line what a storage call found or did.
func storageMessage(req engine.StorageRequest, r engine.StorageResult) string {
	area := req.Area() + " of " + r.Origin
	switch {
	case req.Action == "get" && req.Key == "":
		return fmt.Sprintf("%d items in %s.", len(r.Items), area)
	case req.Action == "get" && !r.Found:
		return fmt.Sprintf("No item %q in %s.", req.Key, area)
	case req.Action == "get":
		return fmt.Sprintf("Found %q in %s.", req.Key, area)
	case req.Action == "set" && r.Found:
		return fmt.Sprintf("Replaced %q in %s.", req.Key, area)
	case req.Action == "set":
		return fmt.Sprintf("Added %q to %s.", req.Key, area)
	case req.Action == "remove" && r.Found:
		return fmt.Sprintf("Removed %q from %s.", req.Key, area)
	case req.Action == "remove":
		return fmt.Sprintf("No item %q in %s; nothing removed.", req.Key, area)
	default:
		return fmt.Sprintf("Cleared %s: %d items removed.", area, r.Count)
	}
}

// DeleteCookiesIn is the input of delete_cookies.
type DeleteCookiesIn struct {
	SessionArg
	Name   string `json:"name,omitempty" jsonschema:"Only cookies of this name" size:"4096"`
	Domain string `json:"domain,omitempty" jsonschema:"Only cookies of this domain (leading dot optional)" size:"4096"`
	Path   string `json:"path,omitempty" jsonschema:"Only cookies of this path" size:"4096"`
	All    bool   `json:"all,omitempty" jsonschema:"Every cookie of the session"`
}

func (in DeleteCookiesIn) filter() engine.CookieFilter {
	return engine.CookieFilter{Name: in.Name, Domain: in.Domain, Path: in.Path, All: in.All}
}

func (in DeleteCookiesIn) validate() error { return in.filter().Validate() }

// DeletedCookiesOut is the result of delete_cookies.
type DeletedCookiesOut struct {
	Deleted int      `json:"deleted"`
	Names   []string `json:"names" jsonschema:"One per deleted cookie"`
	Message string   `json:"message"`
	SessionMeta
}

func deleteCookies(d *Deps) Tool {
	return inGroup(State, sessionTool(d, "delete_cookies", "Delete the session's cookies by name, domain and path, or all.", clears,
		func(ctx context.Context, s engine.Session, in DeleteCookiesIn) (DeletedCookiesOut, error) {
			gone, err := s.DeleteCookies(ctx, in.filter())
			if err != nil {
				return DeletedCookiesOut{}, err
			}
			names := make([]string, 0, len(gone))
			for _, c := range gone {
				names = append(names, c.Name)
			}
			slices.Sort(names)
			msg := fmt.Sprintf("Deleted %d cookies.", len(gone))
			if len(gone) == 0 {
				msg = "No cookie matched; nothing deleted."
			}
			return DeletedCookiesOut{Deleted: len(gone), Names: names, Message: msg}, nil
		}))
}

package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

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

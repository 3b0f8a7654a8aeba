package tools

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
)

// hints are the four MCP annotation hints. Every tool declares all four:
// nothing is left to mcp-go, which would call an unset hint destructive and
// open-world. On the wire a tool carries only the hints that tell a client
// something (see annotations).
type hints struct{ readOnly, destructive, idempotent, openWorld bool }

var (
	// readOnly tools only observe the page. They are open-world all the
	// same: what they return comes from whatever site the page shows, and a
	// client should treat it as untrusted.
	readOnly = hints{readOnly: true, idempotent: true, openWorld: true}
	// pageAction tools act on the page, and through it on the web.
	pageAction = hints{openWorld: true}
	// local tools change server state only.
	local = hints{}
	// savesFile tools observe the page and may write a file on the server,
	// overwriting one of the same name (save_state with a path).
	savesFile = hints{destructive: true, idempotent: true, openWorld: true}
)

// annotations encodes h as the MCP annotations a client reads, leaving out
// what the MCP specification makes implicit: a hint equal to its default
// (readOnlyHint false, destructiveHint true, idempotentHint false,
// openWorldHint true), and destructiveHint and idempotentHint on read-only
// tools, which the specification calls meaningful only when readOnlyHint is
// false. A client applying the specification's defaults reads exactly h;
// tools/list pays about 20 o200k tokens less per tool (decision record
// docs/decisions/2026-11-22-annotations-without-defaults.md).
func annotations(h hints) mcp.ToolAnnotation {
	var a mcp.ToolAnnotation
	if h.readOnly {
		a.ReadOnlyHint = new(true)
	} else {
		if !h.destructive {
			a.DestructiveHint = new(false)
		}
		if h.idempotent {
			a.IdempotentHint = new(true)
		}
	}
	if !h.openWorld {
		a.OpenWorldHint = new(false)
	}
	return a
}

// declared reports whether a is what annotations makes of some hints: a
// tool built without define carries mcp-go's defaults, which are not.
func declared(a mcp.ToolAnnotation) bool {
	isTrue := func(p *bool) bool { return p != nil && *p }
	h := hints{
		readOnly:    isTrue(a.ReadOnlyHint),
		destructive: a.DestructiveHint == nil || *a.DestructiveHint,
		idempotent:  isTrue(a.IdempotentHint),
		openWorld:   a.OpenWorldHint == nil || *a.OpenWorldHint,
	}
	if h.readOnly {
		h.destructive, h.idempotent = false, true
	}
	return reflect.DeepEqual(a, annotations(h))
}

func define[In, Out any](name, desc string, h hints) mcp.Tool {
	t := mcp.NewTool(name,
		mcp.WithDescription(desc),
		mcp.WithInputSchema[In](),
		mcp.WithOutputSchema[Out](),
		mcp.WithToolAnnotation(annotations(h)),
	)
	t.RawInputSchema = leanSchema(t.RawInputSchema, false)
	t.RawOutputSchema = leanSchema(mustJSON(t.OutputSchema), true)
	t.OutputSchema = mcp.ToolOutputSchema{}
	return t
}

// leanSchema trims what agents pay for on every tools/list and never use:
// boolean additionalProperties (false is not enforced: bind ignores unknown
// arguments; true is the default) and items:true everywhere, and in output
// schemas the
// descriptions, required lists and the envelope every successful result
// carries (success:true, sessionId, expiresAt; README documents it). The
// schemas stay open, so the envelope still validates.
func leanSchema(raw json.RawMessage, output bool) json.RawMessage {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return raw
	}
	// depth counts object levels: top-level parameters are at depth 1 and
	// keep their descriptions in input schemas; nested fields never do.
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		switch v := v.(type) {
		case map[string]any:
			if _, ok := v["additionalProperties"].(bool); ok {
				delete(v, "additionalProperties")
			}
			if it, ok := v["items"].(bool); ok && it {
				delete(v, "items")
			}
			if output || depth > 1 {
				delete(v, "description")
			}
			if output {
				delete(v, "required")
				// Results are self-describing JSON: the names of the
				// top-level fields tell the agent what comes back; their
				// types it reads in the result (decision record
				// docs/decisions/2026-11-24-output-schemas-name-fields.md).
				if depth >= 1 {
					clear(v)
				}
			}
			// A nullable slice or pointer is just its type to an agent.
			if ts, ok := v["type"].([]any); ok && len(ts) == 2 && ts[0] == "null" {
				v["type"] = ts[1]
			}
			for k, c := range v {
				// A properties map names fields, not keywords: a field
				// called "description" or "items" is a schema to walk.
				if props, ok := c.(map[string]any); ok && k == "properties" {
					for _, p := range props {
						walk(p, depth+1)
					}
					continue
				}
				walk(c, depth)
			}
		case []any:
			for _, c := range v {
				walk(c, depth)
			}
		}
	}
	walk(m, 0)
	if props, ok := m["properties"].(map[string]any); ok && output {
		delete(props, "sessionId")
		delete(props, "expiresAt")
		delete(props, "success")
	}
	return mustJSON(m)
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// argShape is what bind checks a call's arguments against, read once from
// the tool's input schema: the arguments it must have, and every one it
// takes with its JSON type.
type argShape struct {
	required []string
	types    map[string]string // argument -> its schema type ("" when it has none)
	bounds   []bound           // the range or size of each argument (limits.go)
}

// shapeOf reads a tool's input schema, and the bounds of its arguments
// from In's tags.
func shapeOf[In any](t mcp.Tool) argShape {
	var s struct {
		Required   []string `json:"required"`
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(t.RawInputSchema, &s)
	sh := argShape{required: s.Required, types: map[string]string{}, bounds: boundsOf(reflect.TypeFor[In]())}
	for name, p := range s.Properties {
		typ, _ := p.Type.(string)
		sh.types[name] = typ
	}
	return sh
}

// names lists the arguments the tool takes, sorted.
func (sh argShape) names() []string {
	return slices.Sorted(maps.Keys(sh.types))
}

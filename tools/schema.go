package tools

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
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
		mcp.WithToolAnnotation(annotations(h)),
	)
	t.RawInputSchema = leanInput(t.RawInputSchema)
	t.RawOutputSchema = outputSchema[Out]()
	return t
}

// The result types whose JSON no Go type describes: values that come from
// the page as they are. Each is a named type so that outputSchema can give
// it its true schema (resultTypes).
type (
	// JSONValue is any JSON value, such as what a page script returned.
	JSONValue any
	// FieldValue is a form field's value: a string, the selected values
	// of a multi-select, or null when the element has no value.
	FieldValue any
	// TableRow is one row of a table: its cell texts keyed by header when
	// the table has headers, else the cell texts in order.
	TableRow any
)

// resultTypes are the schemas of the result types that hold page values.
var resultTypes = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[JSONValue]():  {Types: []string{"null", "boolean", "number", "string", "array", "object"}},
	reflect.TypeFor[FieldValue](): {Types: []string{"null", "string", "array"}, Items: &jsonschema.Schema{Type: "string"}},
	reflect.TypeFor[TableRow](): {Types: []string{"object", "array"}, Items: &jsonschema.Schema{Type: "string"},
		AdditionalProperties: &jsonschema.Schema{Type: "string"}},
	// An action's changes are an object whose fields README's "What an
	// action answers" describes: spelled out, they would cost every
	// action's schema in tools/list more than all its arguments.
	reflect.TypeFor[ChangesOut](): {Type: "object"},
}

// outputSchema is the JSON Schema of a tool's result Out, generated from
// the Go type: every field with its type, null only where the field can
// be null, and required where it is always there (no omitempty). It is
// made compact for tools/list (compactOutput). A type it cannot describe
// panics at startup, as a bad tool definition should.
func outputSchema[Out any]() json.RawMessage {
	s, err := jsonschema.For[Out](&jsonschema.ForOptions{TypeSchemas: resultTypes})
	if err != nil {
		panic(fmt.Sprintf("output schema of %v: %v", reflect.TypeFor[Out](), err))
	}
	var m map[string]any
	if err := json.Unmarshal(mustJSON(s), &m); err != nil {
		panic(err)
	}
	_, withMeta := reflect.TypeFor[Out]().FieldByName("SessionMeta")
	compactOutput(m, withMeta)
	m["type"] = "object"
	return mustJSON(m)
}

// compactOutput trims an output schema to what tells a client the shape
// of the result, keeping it true (decision record
// docs/decisions/2026-11-25-output-schemas-typed.md): no descriptions (the
// tool's and README's say what a result means); no boolean
// additionalProperties, so the schemas stay open (true is the default); no
// items:true; no envelope (README documents it: success, always true where
// a result has it, and the SessionMeta of session tools); and null in a
// type only where the field can be null: a field with omitempty is left
// out, never null, when it is empty.
func compactOutput(m map[string]any, withMeta bool) {
	envelope := []string{"success"}
	if withMeta {
		envelope = append(envelope, "sessionId", "expiresAt", "notices")
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for _, k := range envelope {
			delete(props, k)
		}
		if req, ok := m["required"].([]any); ok {
			m["required"] = slices.DeleteFunc(req, func(k any) bool { return slices.Contains(envelope, k.(string)) })
		}
	}
	var walk func(v map[string]any)
	walk = func(v map[string]any) {
		delete(v, "description")
		if _, ok := v["additionalProperties"].(bool); ok {
			delete(v, "additionalProperties")
		}
		if b, ok := v["items"].(bool); ok && b {
			delete(v, "items")
		}
		if req, ok := v["required"].([]any); ok && len(req) == 0 {
			delete(v, "required")
		}
		required, _ := v["required"].([]any)
		if props, ok := v["properties"].(map[string]any); ok {
			for name, p := range props {
				p, ok := p.(map[string]any)
				if !ok {
					continue
				}
				if ts, ok := p["type"].([]any); ok && len(ts) == 2 && ts[0] == "null" && !slices.Contains(required, any(name)) {
					p["type"] = ts[1]
				}
				walk(p)
			}
		}
		for _, k := range []string{"items", "additionalProperties"} {
			if c, ok := v[k].(map[string]any); ok {
				walk(c)
			}
		}
	}
	walk(m)
}

// leanInput trims what agents pay for on every tools/list and never use:
// boolean additionalProperties (false is not enforced: bind ignores unknown
// arguments; true is the default), items:true everywhere, the descriptions
// of nested fields, and null in the type of a nullable slice or pointer,
// which is just its type to an agent (an argument left out is the same).
func leanInput(raw json.RawMessage) json.RawMessage {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return raw
	}
	// depth counts object levels: top-level parameters are at depth 1 and
	// keep their descriptions; nested fields never do.
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
			if depth > 1 {
				delete(v, "description")
			}
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

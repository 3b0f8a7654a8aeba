package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/editdist"
)

// validator is implemented by inputs with rules beyond their schema.
type validator interface{ validate() error }

// aliaser is implemented by inputs that also take another tool vocabulary's
// names for their arguments (the user's seed documents name some
// differently). aliases maps each alias to the argument it stands for; a
// value given under an alias is moved to that argument, and wrapped in an
// array when the argument is one. Aliases are not in the schema, which
// stays small for tools/list.
type aliaser interface{ aliases() map[string]string }

// argFixer is implemented by inputs whose aliases need more than a rename
// (a nested object spread into arguments, a unit to convert). It runs
// after the renames, before the unknown-argument check.
type argFixer interface {
	fixArgs(args map[string]any) error
}

// bind decodes and validates the arguments into In. An argument the tool
// does not take is refused, named, with the ones it takes (and the nearest
// when it looks like a typo): nothing an agent sends is silently dropped.
// Every failure is an INVALID_PARAMETERS error naming the field.
func bind[In any](req mcp.CallToolRequest, shape argShape) (In, error) {
	var in In
	args, _ := req.Params.Arguments.(map[string]any)
	if req.Params.Arguments != nil && args == nil {
		return in, engine.Errorf(engine.InvalidParameters, "arguments must be a JSON object")
	}
	args, err := canonicalArgs(any(in), args, shape)
	if err != nil {
		return in, err
	}
	if err := checkBounds(shape.bounds, args); err != nil {
		return in, err
	}
	for _, f := range shape.required {
		if v, ok := args[f]; !ok || v == nil {
			return in, engine.Errorf(engine.InvalidParameters, "missing required parameter %q", f).With("field", f)
		}
	}
	raw, _ := json.Marshal(args)
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&in); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return in, engine.Errorf(engine.InvalidParameters, "parameter %q must be %s, not %s", te.Field, jsonKind(te.Type.Kind().String()), te.Value).
				With("field", te.Field)
		}
		return in, engine.Wrap(engine.InvalidParameters, err, "invalid arguments: "+err.Error())
	}
	if v, ok := any(in).(validator); ok {
		if err := v.validate(); err != nil {
			return in, err
		}
	}
	return in, nil
}

// canonicalArgs renames the aliases in args (into a copy) and refuses an
// argument the tool does not take.
func canonicalArgs(in any, args map[string]any, shape argShape) (map[string]any, error) {
	if len(args) == 0 {
		return args, nil
	}
	var alias map[string]string
	if a, ok := in.(aliaser); ok {
		alias = a.aliases()
	}
	out := make(map[string]any, len(args))
	for k, v := range args {
		canon, isAlias := alias[k]
		if !isAlias {
			out[k] = v
			continue
		}
		if _, both := args[canon]; both {
			return nil, invalid(canon, "give %s or its alias %s, not both", canon, k)
		}
		if _, isArray := v.([]any); shape.types[canon] == "array" && !isArray && v != nil {
			v = []any{v}
		}
		out[canon] = v
	}
	if f, ok := in.(argFixer); ok {
		if err := f.fixArgs(out); err != nil {
			return nil, err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(out)) {
		if _, ok := shape.types[k]; !ok {
			return nil, unknownArg(k, shape.names())
		}
	}
	return out, nil
}

// unknownArg is the error for an argument a tool does not take: it names
// it, suggests the nearest argument when one is close, and lists them all.
func unknownArg(name string, valid []string) error {
	msg := fmt.Sprintf("unknown parameter %q", clip(name))
	e := engine.Errorf(engine.InvalidParameters, "%s", msg).With("field", clip(name)).With("validParameters", valid)
	if near := editdist.Nearest(name, valid); near != "" {
		e.Message += fmt.Sprintf("; did you mean %q?", near)
		e.With("didYouMean", near)
	}
	if len(valid) == 0 {
		e.Message += "; this tool takes no parameters"
	} else {
		e.Message += "; valid parameters: " + strings.Join(valid, ", ")
	}
	return e.Suggest("Remove the parameter or use one this tool takes.")
}

// number reads a JSON number however the transport decoded it.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// clip shortens what an error quotes of an agent's input.
func clip(s string) string { return engine.Clip(s, maxQuotedInput) }

// maxQuotedInput is the most bytes of an agent's input an error quotes.
const maxQuotedInput = 64

func jsonKind(goKind string) string {
	switch {
	case strings.HasPrefix(goKind, "int"), strings.HasPrefix(goKind, "uint"), strings.HasPrefix(goKind, "float"):
		return "a number"
	case goKind == "bool":
		return "a boolean"
	case goKind == "string":
		return "a string"
	case goKind == "slice":
		return "an array"
	}
	return "an object"
}

// invalid is a shorthand for an INVALID_PARAMETERS error on one field.
func invalid(field, format string, args ...any) error {
	return engine.Errorf(engine.InvalidParameters, format, args...).With("field", field)
}

// oneOf checks that v is one of allowed (empty allowed when optional).
func oneOf(field, v string, allowed ...string) error {
	if v == "" || slices.Contains(allowed, v) {
		return nil
	}
	return invalid(field, "%s must be one of %s, not %q", field, strings.Join(allowed, ", "), v)
}

// limitOr is a limit argument, or def when none was given (0).
func limitOr(n, def int) int {
	if n == 0 {
		return def
	}
	return n
}

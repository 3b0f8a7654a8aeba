package tools

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
)

// validator is implemented by inputs with rules beyond their schema.
type validator interface{ validate() error }

// bind decodes and validates the arguments into In. Every failure is an
// INVALID_PARAMETERS error naming the field.
func bind[In any](req mcp.CallToolRequest, required []string) (In, error) {
	var in In
	args, _ := req.Params.Arguments.(map[string]any)
	if req.Params.Arguments != nil && args == nil {
		return in, engine.Errorf(engine.InvalidParameters, "arguments must be a JSON object")
	}
	for _, f := range required {
		if v, ok := args[f]; !ok || v == nil {
			return in, engine.Errorf(engine.InvalidParameters, "missing required parameter %q", f).With("field", f)
		}
	}
	raw, _ := json.Marshal(args)
	dec := json.NewDecoder(strings.NewReader(string(raw)))
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

// nonNegative checks a numeric parameter.
func nonNegative(field string, v int) error {
	if v < 0 {
		return invalid(field, "%s must not be negative, got %d", field, v)
	}
	return nil
}

package tools

import (
	"context"
	"regexp"
	"strings"

	"github.com/seed4af8c199/browsermcp/engine"
)

// EvaluateIn is the input of evaluate.
type EvaluateIn struct {
	SessionArg
	Script string `json:"script" jsonschema:"JS expression, or function called with args" size:"1048576"`
	Args   []any  `json:"args,omitempty"`
}

// arrowParam is the single parameter of an arrow function without
// parentheses ("el => ...").
var arrowParam = regexp.MustCompile(`^[A-Za-z_$][\w$]*\s*=>`)

// isFunctionSource tells a script that is a function ("(a, b) => a + b",
// "async el => ...", "function (x) {...}", or one in parentheses) from an
// expression, including one that calls a function it defines
// ("(() => 1)()", "(async () => 42)()"), which is run as it stands.
func isFunctionSource(src string) bool {
	s := strings.TrimSpace(src)
	if rest, ok := strings.CutPrefix(s, "async"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n' || rest[0] == '(') {
		s = strings.TrimSpace(rest)
	}
	switch {
	case strings.HasPrefix(s, "function") && (len(s) == 8 || !isIdentChar(s[8])):
		return true
	case arrowParam.MatchString(s):
		return true
	case strings.HasPrefix(s, "("):
		end := closingParen(s)
		if end < 0 {
			return false
		}
		rest := strings.TrimSpace(s[end+1:])
		if strings.HasPrefix(rest, "=>") {
			return true // (params) => ...
		}
		if rest == "" {
			return isFunctionSource(s[1:end]) // a function in parentheses
		}
	}
	return false
}

func isIdentChar(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// closingParen returns the index of the parenthesis that closes s[0],
// skipping strings, template literals and comments; -1 when none does.
func closingParen(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i
			}
		case '"', '\'', '`':
			for i++; i < len(s) && s[i] != c; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '/':
			if i+1 < len(s) && s[i+1] == '/' {
				for i < len(s) && s[i] != '\n' {
					i++
				}
			} else if i+1 < len(s) && s[i+1] == '*' {
				if j := strings.Index(s[i+2:], "*/"); j >= 0 {
					i += j + 3
				} else {
					return -1
				}
			}
		}
	}
	return -1
}

func (in EvaluateIn) validate() error {
	if in.Script == "" {
		return invalid("script", "script must not be empty")
	}
	if len(in.Args) > 0 && !isFunctionSource(in.Script) {
		return invalid("args", "args need a function script, e.g. (a, b) => a + b")
	}
	return nil
}

// EvaluateOut is the result of evaluate.
type EvaluateOut struct {
	Result JSONValue `json:"result" jsonschema:"The JSON value the script returned"`
	SessionMeta
}

func evaluate(d *Deps) Tool {
	return sessionTool(d, "evaluate", "Run JavaScript in the page; returns JSON.", pageAction,
		func(ctx context.Context, s engine.Session, in EvaluateIn) (EvaluateOut, error) {
			req := engine.EvalRequest{Expression: in.Script}
			if isFunctionSource(in.Script) {
				req = engine.EvalRequest{Function: in.Script, Args: in.Args}
			}
			v, err := evalInto[any](ctx, s, req)
			return EvaluateOut{Result: v}, err
		})
}

package tools

import (
	"context"
	_ "embed"

	"github.com/seed4af8c199/browsermcp/engine"
)

// describeJS describes an element for find_element(s) and the element
// resources.
//
//go:embed js/describe.js
var describeJS string

// describeAllTmplJS makes of a function describing one element one that
// describes the first limit of several matches and counts them all.
//
//go:embed js/describe_all.js
var describeAllTmplJS string

// describeAllJS is what find_elements runs.
var describeAllJS = applyJS(describeAllTmplJS, describeJS)

// ElementInfo describes one element.
type ElementInfo struct {
	Tag        string             `json:"tag"`
	Text       string             `json:"text" jsonschema:"First 200 characters"`
	Attributes map[string]string  `json:"attributes"`
	Visible    bool               `json:"visible"`
	Enabled    bool               `json:"enabled"`
	Box        map[string]float64 `json:"box" jsonschema:"x, y, width, height in page CSS pixels"`
}

// FindElementOut is the result of find_element.
type FindElementOut struct {
	ElementInfo
	SessionMeta
}

func findElement(d *Deps) Tool {
	return sessionTool(d, "find_element", "Describe the first match.", readOnly,
		func(ctx context.Context, s engine.Session, in ElementIn) (FindElementOut, error) {
			i, err := evalInto[ElementInfo](ctx, s, in.req(s, describeJS))
			return FindElementOut{ElementInfo: i}, err
		})
}

// FindElementsIn is the input of find_elements.
type FindElementsIn struct {
	SessionArg
	TargetArg
	Limit int `json:"limit,omitempty" jsonschema:"Default 20" range:"0,1000"`
}

func (in FindElementsIn) validate() error {
	return in.TargetArg.validate()
}

// FindElementsOut is the result of find_elements.
type FindElementsOut struct {
	Elements []ElementInfo `json:"elements"`
	Total    int           `json:"total" jsonschema:"Matches before the limit"`
	SessionMeta
}

func findElements(d *Deps) Tool {
	return sessionTool(d, "find_elements", "Describe every match.", readOnly,
		func(ctx context.Context, s engine.Session, in FindElementsIn) (FindElementsOut, error) {
			limit := limitOr(in.Limit, 20)
			tg := in.target()
			out, err := evalInto[FindElementsOut](ctx, s, engine.EvalRequest{Target: &tg, All: true, Args: []any{limit}, Function: describeAllJS})
			if out.Elements == nil {
				out.Elements = []ElementInfo{}
			}
			return out, err
		})
}

//go:embed js/count.js
var countJS string

// ExistsOut is the result of element_exists.
type ExistsOut struct {
	Exists bool `json:"exists"`
	Count  int  `json:"count"`
	SessionMeta
}

func elementExists(d *Deps) Tool {
	return sessionTool(d, "element_exists", "Does anything match? No wait.", readOnly,
		func(ctx context.Context, s engine.Session, in struct {
			SessionArg
			TargetArg
		}) (ExistsOut, error) {
			tg := in.target()
			n, err := evalInto[int](ctx, s, engine.EvalRequest{Target: &tg, All: true, Function: countJS})
			return ExistsOut{Exists: n > 0, Count: n}, err
		})
}

// StateOut is the result of is_visible and is_enabled.
type StateOut struct {
	Value  bool `json:"value"`
	Exists bool `json:"exists"`
	SessionMeta
}

// firstMatchJS makes of a test on one element a function that reports
// whether anything matched and, if so, what the test says of the first
// match.
//
//go:embed js/first_match.js
var firstMatchJS string

func stateTool(d *Deps, name, desc, test string) Tool {
	fn := applyJS(firstMatchJS, test)
	return sessionTool(d, name, desc, readOnly,
		func(ctx context.Context, s engine.Session, in struct {
			SessionArg
			TargetArg
		}) (StateOut, error) {
			tg := in.target()
			r, err := evalInto[[]bool](ctx, s, engine.EvalRequest{Target: &tg, All: true, Function: fn})
			if err != nil {
				return StateOut{}, err
			}
			return StateOut{Exists: r[0], Value: r[1]}, nil
		})
}

var (
	//go:embed js/is_visible.js
	isVisibleJS string
	//go:embed js/is_enabled.js
	isEnabledJS string
)

func isVisible(d *Deps) Tool {
	return stateTool(d, "is_visible", "Is the first match visible? No wait.", isVisibleJS)
}

func isEnabled(d *Deps) Tool {
	return stateTool(d, "is_enabled", "Is the first match enabled? No wait.", isEnabledJS)
}

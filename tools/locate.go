package tools

import (
	"context"
	_ "embed"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/codegen"
)

// locatorJS builds an element's Playwright locator in the page, in one
// round trip: the order of strategies and the Playwright semantics each
// is checked with are described at its top.
//
//go:embed js/locator.js
var locatorJS string

// pageLocator is what locatorJS answers.
type pageLocator struct {
	Error  string        `json:"error"`
	Frames []pageLocator `json:"frames"`
	Kind   string        `json:"kind"`
	Role   string        `json:"role"`
	Name   string        `json:"name"`
	Value  string        `json:"value"`
	Exact  bool          `json:"exact"`
	Nth    int           `json:"nth"`
	Count  int           `json:"count"`
}

func (p pageLocator) locator() codegen.Locator {
	l := codegen.Locator{Kind: p.Kind, Role: p.Role, Name: p.Name, Value: p.Value, Exact: p.Exact, Nth: p.Nth,
		First: p.Nth == 0 && p.Count > 1}
	for _, f := range p.Frames {
		l.Frames = append(l.Frames, codegen.Locator{Kind: codegen.ByCSS, Value: f.Value})
	}
	return l
}

// locate returns the Playwright locator of the element t names: the one
// seam generate_locator, the code line of every action (--codegen) and the
// recorded session (export_test) share. It must be called before an
// action, while the element is still there; it waits for the element as
// long as an action would (the session's action timeout), with one
// Evaluate.
//
// The locator matches exactly this element in its document (and its
// frames' chain leads to that document): when not even a CSS path is
// unique (in shadow roots), it picks the element among its matches with
// .nth(i), or .first() for the first.
func locate(ctx context.Context, s engine.Session, t engine.Target) (codegen.Locator, error) {
	l, _, err := locateIn(ctx, s, t, engine.TimeoutsOf(s).Action)
	return l, err
}

// locateIn is locate that waits up to wait for the element, and also
// returns how many elements the locator, without its .nth(), matches in
// the element's document.
func locateIn(ctx context.Context, s engine.Session, t engine.Target, wait time.Duration) (codegen.Locator, int, error) {
	p, err := evalInto[pageLocator](ctx, s, engine.EvalRequest{Target: &t, Function: locatorJS,
		Args: []any{engine.TestIDAttribute()}, Timeout: wait})
	if err != nil {
		return codegen.Locator{}, 0, err
	}
	switch p.Error {
	case "":
	case "cross_origin":
		// From inside a cross-origin frame, the page cannot reach the
		// iframe element that holds it (frameElement is null), so no
		// frameLocator chain can be built.
		return codegen.Locator{}, 0, engine.Errorf(engine.Unsupported,
			"the element is in a cross-origin frame: its frameLocator chain cannot be built from inside the frame").
			With("reason", "cross_origin_frame").
			Suggest("Give a selector in the frame's parent page for the iframe, and locate the element within it by hand.")
	default:
		return codegen.Locator{}, 0, engine.Errorf(engine.BrowserError, "locator: %s", p.Error)
	}
	if p.Kind == "" {
		return codegen.Locator{}, 0, engine.Errorf(engine.BrowserError, "locator: the page gave no locator")
	}
	return p.locator(), p.Count, nil
}

// GenerateLocatorOut is the result of generate_locator.
type GenerateLocatorOut struct {
	Locator string `json:"locator" jsonschema:"TypeScript, for @playwright/test"`
	Python  string `json:"python" jsonschema:"Python, for pytest-playwright"`
	Kind    string `json:"kind" jsonschema:"role, label, placeholder, testid, text or css"`
	Role    string `json:"role,omitempty"`
	Name    string `json:"name,omitempty"`
	Value   string `json:"value,omitempty"`
	Exact   bool   `json:"exact,omitempty"`
	Nth     int    `json:"nth,omitempty"`
	// Frames are the CSS selectors of the iframes above the element,
	// outermost first.
	Frames []string `json:"frames,omitempty"`
	Unique bool     `json:"unique" jsonschema:"It (with its .nth or .first) matches this element only, checked in the page"`
	SessionMeta
}

func generateLocator(d *Deps) Tool {
	return inGroup(Testing, sessionTool(d, "generate_locator",
		"The most robust Playwright locator of an element (role, label, placeholder, test id, text, CSS path), checked to match it alone.", readOnly,
		func(ctx context.Context, s engine.Session, in ElementIn) (GenerateLocatorOut, error) {
			l, n, err := locateIn(ctx, s, in.target(), in.timeout(s))
			if err != nil {
				return GenerateLocatorOut{}, err
			}
			out := GenerateLocatorOut{Locator: l.TypeScript(), Python: l.Python(), Kind: l.Kind, Role: l.Role, Name: l.Name,
				Value: l.Value, Exact: l.Exact, Nth: l.Nth, Unique: n == 1 || l.Nth > 0 || l.First}
			for _, f := range l.Frames {
				out.Frames = append(out.Frames, f.Value)
			}
			return out, nil
		}))
}

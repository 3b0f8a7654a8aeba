package enginetest

import (
	"encoding/json"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
)

func evaluate(t *testing.T, s engine.Session, req engine.EvalRequest) string {
	t.Helper()
	v, err := s.Evaluate(ctx(t), req)
	if err != nil {
		t.Fatalf("Evaluate(%q%q): %v", req.Function, req.Expression, err)
	}
	var x any
	if err := json.Unmarshal(v, &x); err != nil {
		t.Fatalf("Evaluate returned invalid JSON %q: %v", v, err)
	}
	b, _ := json.Marshal(x)
	return string(b)
}

func (h *harness) testEvaluate(t *testing.T) {
	t.Run("Function", func(t *testing.T) {
		s := h.open(t, "/catalog.html")
		for _, c := range []struct {
			req  engine.EvalRequest
			want string
		}{
			{engine.EvalRequest{Function: "() => document.title"}, `"Catalog"`},
			{engine.EvalRequest{Function: "(a, b) => a + b", Args: []any{2, 5}}, `7`},
			{engine.EvalRequest{Function: "async () => ({n: document.querySelectorAll('.item').length})"}, `{"n":3}`},
			{engine.EvalRequest{Function: "() => undefined"}, `null`},
			{engine.EvalRequest{Target: &engine.Target{Selector: "#head"}, Function: "(el, p) => p + el.dataset.kind", Args: []any{"k:"}}, `"k:main"`},
			{engine.EvalRequest{Target: &engine.Target{Selector: "//p[@class='item']"}, All: true, Function: "els => els.map(e => e.textContent)"}, `["First","Second","Third"]`},
			{engine.EvalRequest{Target: &engine.Target{Selector: "#none"}, All: true, Function: "els => els.length"}, `0`},
		} {
			if got := evaluate(t, s, c.req); got != c.want {
				t.Errorf("Evaluate(%+v) = %s, want %s", c.req, got, c.want)
			}
		}
	})
	t.Run("Expression", func(t *testing.T) {
		s := h.open(t, "/catalog.html")
		for expr, want := range map[string]string{
			"document.title":                     `"Catalog"`,
			"1 + 2":                              `3`,
			"const a = 20; a * 2":                `40`,
			"await new Promise(r => r('async'))": `"async"`,
			"Promise.resolve([1, 'x'])":          `[1,"x"]`,
		} {
			if got := evaluate(t, s, engine.EvalRequest{Expression: expr}); got != want {
				t.Errorf("Evaluate(%q) = %s, want %s", expr, got, want)
			}
		}
	})
	t.Run("Errors", func(t *testing.T) {
		s := h.open(t, "/catalog.html")
		for _, c := range []struct {
			req    engine.EvalRequest
			reason string
		}{
			{engine.EvalRequest{Expression: "throw new Error('boom')"}, "exception"},
			{engine.EvalRequest{Expression: "this is not js"}, "exception"},
			{engine.EvalRequest{Expression: "document.body"}, "not_serializable"},
			{engine.EvalRequest{Expression: "1 / 0"}, "not_serializable"},
			{engine.EvalRequest{Function: "() => document.body"}, "not_serializable"},
			{engine.EvalRequest{Function: "() => { const o = {}; o.o = o; return o }"}, "not_serializable"},
			// Collections of nodes, and nodes inside a value, are not JSON
			// either (JSON.stringify would say {"0":{},...}).
			{engine.EvalRequest{Expression: "document.querySelectorAll('input')"}, "not_serializable"},
			{engine.EvalRequest{Function: "() => document.getElementsByTagName('input')"}, "not_serializable"},
			{engine.EvalRequest{Function: "() => ({first: [document.body]})"}, "not_serializable"},
			{engine.EvalRequest{Function: "() => { throw new TypeError('x') }"}, "exception"},
			{engine.EvalRequest{Function: "() => {"}, "syntax"},
		} {
			_, err := s.Evaluate(ctx(t), c.req)
			wantError(t, err, engine.ScriptError, map[string]any{"reason": c.reason})
		}
		_, err := s.Evaluate(ctx(t), engine.EvalRequest{Target: &engine.Target{Selector: "#none"}, Function: "el => 1", Timeout: short})
		wantError(t, err, engine.ElementNotFound, map[string]any{"selector": "#none"})
		_, err = s.Evaluate(ctx(t), engine.EvalRequest{Target: &engine.Target{Selector: "[[["}, Function: "el => 1"})
		wantError(t, err, engine.InvalidSelector, map[string]any{"field": "selector", "selector": "[[["})
	})
	t.Run("WaitsForTarget", func(t *testing.T) {
		s := h.open(t, "/catalog.html")
		click(t, s, engine.ClickRequest{Target: sel("#show")})
		got := evaluate(t, s, engine.EvalRequest{Target: &engine.Target{Selector: "#later"}, State: "visible", Timeout: patience,
			Function: "el => el.textContent"})
		if got != `"Later"` {
			t.Fatalf("state visible = %s", got)
		}
		click(t, s, engine.ClickRequest{Target: sel("#remove")})
		if got := evaluate(t, s, engine.EvalRequest{Target: &engine.Target{Selector: "#head"}, State: "detached", Timeout: patience,
			Function: "el => el"}); got != "null" {
			t.Fatalf("state detached = %s", got)
		}
		_, err := s.Evaluate(ctx(t), engine.EvalRequest{Target: &engine.Target{Selector: "#never"}, State: "attached", Timeout: short, Function: "el => 1"})
		wantError(t, err, engine.Timeout, map[string]any{"timeout": short.Milliseconds()})
	})
}

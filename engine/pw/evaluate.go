package pw

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/page"
)

// Evaluate runs a function on the page or on the target element(s) through
// engine/page's eval script, so that waits, results and failures match
// engine/cdp exactly.
func (s *session) Evaluate(ctx context.Context, req engine.EvalRequest) (json.RawMessage, error) {
	out, _, err := s.evalAction(ctx, req, engine.DefaultNavigationTimeout)
	return out, err
}

// evalAction is Evaluate that, for a request that settles (a form action's
// script), also answers what the script caused: the page it navigated to
// within navTimeout, or the dialog it opened meanwhile. It is engine/page's
// Act for this engine.
func (s *session) evalAction(ctx context.Context, req engine.EvalRequest, navTimeout time.Duration) (json.RawMessage, engine.ActionResult, error) {
	if !req.Settle {
		out, err := s.evaluate(ctx, req)
		return out, engine.ActionResult{}, err
	}
	if err := s.alive(); err != nil {
		return nil, engine.ActionResult{}, err
	}
	// The script acts like a user: what it sets off is the action's, as
	// for input events, and is waited for as an action's.
	m := s.st.mark()
	if err := s.beginSettle(ctx, req.Frame); err != nil {
		return nil, engine.ActionResult{}, s.classify(err, "evaluate a script")
	}
	out, err := s.evaluate(ctx, req)
	if d := s.st.dialogSince(m); d != nil && errors.Is(err, &engine.Error{Code: engine.DialogOpen}) {
		// An action's script that opened a dialog waits for it, as a
		// click's handler would: the dialog is what it caused.
		return nil, engine.ActionResult{Dialog: d}, nil
	}
	if err != nil {
		return nil, engine.ActionResult{}, err
	}
	// A dialog the page opens meanwhile ends the wait, and is reported.
	res, err := s.withDialogs(ctx, func(ctx context.Context) (engine.ActionResult, error) {
		return s.settle(ctx, m, navTimeout)
	})
	if err != nil {
		return nil, engine.ActionResult{}, err
	}
	return out, res, nil
}

// evaluate is Evaluate without settling.
func (s *session) evaluate(ctx context.Context, req engine.EvalRequest) (json.RawMessage, error) {
	if err := s.alive(); err != nil {
		return nil, err
	}
	if req.Expression != "" {
		return s.evaluateExpression(ctx, req.Expression)
	}
	a := map[string]any{"kind": "", "all": req.All, "timeout": req.Timeout.Milliseconds(), "args": req.Args, "state": req.State}
	if req.Args == nil {
		a["args"] = []any{}
	}
	var tg engine.Target
	f := s.page.MainFrame()
	script := "async (a) => (" + page.EvalScript() + ")(a, (" + req.Function + "))"
	if req.Target != nil {
		tg = *req.Target
		if tg.Ref != "" {
			// The function runs in the frame whose registry holds the ref.
			var err error
			if f, _, err = s.refFrame(tg.Ref); err != nil {
				return nil, err
			}
			a["kind"], a["ref"] = "el", tg.Ref
			// A ref that names no element any more is stale, whatever
			// state a wait asks for: engine/page's script would take the
			// missing element for detached (or wait it out for visible).
			script = "async (a) => { a.el = window.__bmcp && window.__bmcp.get(a.ref); if (!a.el) return { error: \"stale\" }; return (" + page.EvalScript() + ")(a, (" + req.Function + ")); }"
		} else {
			kind, expr := engine.ParseSelector(tg.Selector)
			a["kind"], a["sel"] = "css", expr
			if kind == engine.XPath {
				a["kind"] = "xpath"
			}
		}
	}
	arg, err := jsonArg(a)
	if err != nil {
		return nil, engine.Wrap(engine.InvalidParameters, err, "args must be JSON values: "+err.Error()).With("field", "args")
	}
	r, err := s.runEval(ctx, f, tg.Ref, script, arg, req.Timeout+engine.DefaultScriptTimeout)
	if err != nil {
		return nil, err
	}
	if tg.Ref != "" && r.Error == "stale" {
		return nil, page.StaleRef(tg.Ref, "the element was removed from the page, or the page navigated")
	}
	return page.EvalResult(r, tg, req.Timeout)
}

// replJS approximates the DevTools REPL mode, which engine/cdp uses and
// Playwright does not expose: a global (indirect) eval gives the completion
// value of statements, like REPL mode. Source with a top-level await does
// not compile there, so it is run next as the body of an async arrow
// function: first as one expression (so "await f()" returns its value),
// then as statements, whose value is only what they return. Two differences
// remain: statements that use await and end in an expression give null
// unless they return it, and a CSP without 'unsafe-eval' blocks it all.
const replJS = `(src) => {
  try {
    return (0, eval)(src);
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
    for (const w of ["(async () => (" + src + "\n))()", "(async () => {" + src + "\n})()"]) {
      try {
        return (0, eval)(w);
      } catch (e2) {
        if (!(e2 instanceof SyntaxError)) throw e2;
      }
    }
    throw e;
  }
}`

// evaluateExpression evaluates a user expression or statements and returns
// the value of the last expression (see replJS).
func (s *session) evaluateExpression(ctx context.Context, expr string) (json.RawMessage, error) {
	r, err := s.runEval(ctx, s.page.MainFrame(), "", "async (src) => ("+page.EvalScript()+")({kind: '', args: [src]}, "+replJS+")", expr, engine.DefaultScriptTimeout)
	if err != nil {
		return nil, err
	}
	return page.EvalResult(r, engine.Target{}, 0)
}

// runEval evaluates script (a function of one argument) with arg in frame f
// and decodes eval.js's answer. ref is the ref the script acts on, if any:
// its frame navigating away makes it stale.
func (s *session) runEval(ctx context.Context, f playwright.Frame, ref, script string, arg any, timeout time.Duration) (page.EvalOutcome, error) {
	var r page.EvalOutcome
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stop := context.AfterFunc(s.st.crash, cancel)
	defer stop()
	// A script that opens a dialog is held by it: the call ends with
	// DIALOG_OPEN at once instead of waiting out its timeout.
	var opened error
	_, _ = s.withDialogs(ctx, func(dctx context.Context) (engine.ActionResult, error) {
		r, opened = s.evalLoop(dctx, f, ref, script, arg)
		return engine.ActionResult{}, opened
	})
	if err := s.st.dialogErr(); err != nil && opened != nil {
		return r, err
	}
	if opened != nil && s.st.crash.Err() != nil {
		return r, s.classify(opened, "run a script in the page")
	}
	return r, opened
}

func (s *session) evalLoop(ctx context.Context, f playwright.Frame, ref, script string, arg any) (page.EvalOutcome, error) {
	var r page.EvalOutcome
	for {
		v, err := call(ctx, func() (any, error) { return f.Evaluate(script, arg) }, nil)
		if err != nil {
			if ref != "" && isContextGone(err) {
				return r, page.StaleRef(ref, "its page or frame navigated")
			}
			if isContextGone(err) && ctx.Err() == nil {
				// A navigation replaced the document while the script
				// ran; as in engine/cdp's selector waits, run it again in
				// the new one.
				continue
			}
			return r, s.scriptErr(err)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return r, engine.Wrap(engine.BrowserError, err, "unexpected evaluation result")
		}
		if err := json.Unmarshal(b, &r); err != nil {
			return r, engine.Wrap(engine.BrowserError, err, "unexpected evaluation result "+string(b))
		}
		return r, nil
	}
}

// scriptErr classifies a script that did not run: the browser, page or
// deadline failing keep their class; otherwise the script did not compile,
// which engine/cdp reports as SCRIPT_ERROR reason syntax.
func (s *session) scriptErr(err error) error {
	e := s.classify(err, "evaluate a script")
	if ee, ok := e.(*engine.Error); !ok || ee.Code != engine.BrowserError || errors.Is(err, context.Canceled) {
		return e
	}
	msg := firstLine(err)
	msg = strings.TrimPrefix(msg, "Error: ")
	return engine.Wrap(engine.ScriptError, err, msg).With("reason", "syntax")
}

// jsonArg passes v through JSON, so that Playwright's serialiser (which
// knows only float64, string, bool, nil, slices and maps) gets every value
// the caller gave.
func jsonArg(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	err = json.Unmarshal(b, &out)
	return out, err
}

package cdp

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/page"
)

// Evaluate runs a function on the page or on the target element(s).
func (s *session) Evaluate(ctx context.Context, req engine.EvalRequest) (json.RawMessage, error) {
	out, _, err := s.evalAction(ctx, req, engine.DefaultNavigationTimeout)
	return out, err
}

// evalAction is Evaluate that, for a request that settles (a form action's
// script), also answers what the script caused: the page it navigated to
// within navTimeout, or the dialog it opened meanwhile. It is engine/page's
// Act for this engine.
func (s *session) evalAction(ctx context.Context, req engine.EvalRequest, navTimeout time.Duration) (json.RawMessage, engine.ActionResult, error) {
	var out json.RawMessage
	var res engine.ActionResult
	err := s.run(ctx, "evaluate a script", func(ctx context.Context, t *chromedp.Target) error {
		// A script that opens a dialog is paused until it is handled.
		m := s.st.mark()
		if req.Settle {
			// The script acts like a user: what it sets off is the
			// action's, as for input events.
			if err := evalJSON(ctx, t, page.SettleBeginScript(req.Frame), nil); err != nil {
				return err
			}
		}
		var got json.RawMessage // written by the racing call; read only if it finished
		opened, err := s.raceDialog(ctx, m, func(ctx context.Context) error {
			var err error
			if req.Expression != "" {
				got, err = evalExpression(ctx, t, req.Expression)
			} else {
				got, err = s.evalOn(ctx, t, req)
			}
			return err
		})
		if opened && req.Settle {
			// An action's script that opened a dialog waits for it, as
			// a click's handler would: the dialog is what it caused.
			res = engine.ActionResult{Dialog: s.st.dialogSince(m)}
			return nil
		}
		if opened {
			d := s.st.dialogSince(m)
			return engine.Errorf(engine.DialogOpen, "the script opened a %s dialog and waits for it: %q", d.Type, d.Message).
				With("dialog", d).Suggest("Call handle_dialog; the script then continues, but its result is not returned.")
		}
		if err != nil {
			// f may still be running (the call was cancelled): got is
			// its, not ours to read.
			return err
		}
		out = got
		if req.Settle {
			// A dialog the page opens meanwhile ends the wait; the next
			// call reports it (DIALOG_OPEN).
			res, err = s.settle(ctx, t, m, navTimeout)
		}
		return err
	})
	return out, res, err
}

// evalOn is Evaluate on a tab the caller already holds.
func (s *session) evalOn(ctx context.Context, t *chromedp.Target, req engine.EvalRequest) (json.RawMessage, error) {
	a := map[string]any{"kind": "", "all": req.All, "timeout": req.Timeout.Milliseconds(), "args": req.Args, "state": req.State}
	if req.Args == nil {
		a["args"] = []any{}
	}
	var tg engine.Target
	if req.Target != nil {
		tg = *req.Target
		if tg.Ref != "" {
			return s.evalOnRef(ctx, t, req, a)
		}
		kind, expr := engine.ParseSelector(tg.Selector)
		a["kind"], a["sel"] = "css", expr
		if kind == engine.XPath {
			a["kind"] = "xpath"
		}
	}
	args, err := json.Marshal(a)
	if err != nil {
		return nil, engine.Wrap(engine.InvalidParameters, err, "args must be JSON values: "+err.Error()).With("field", "args")
	}
	ectx, cancel := context.WithTimeout(ctx, req.Timeout+engine.DefaultScriptTimeout)
	defer cancel()
	var r page.EvalOutcome
	if err := evalJSON(ectx, t, "("+page.EvalScript()+")("+string(args)+", ("+req.Function+"))", &r); err != nil {
		return nil, scriptErr(err)
	}
	return page.EvalResult(r, tg, req.Timeout)
}

// evalOnRef runs the function on the element a ref names, in the world
// (frame) where the ref was given out.
func (s *session) evalOnRef(ctx context.Context, t *chromedp.Target, req engine.EvalRequest, a map[string]any) (json.RawMessage, error) {
	defer s.releaseObjects(t)
	w, obj, err := s.refObject(ctx, t, req.Target.Ref)
	if err != nil {
		return nil, err
	}
	if w.t != t {
		defer s.releaseObjects(w.t)
	}
	// The function runs in the page's own world, with its globals: the
	// element moves there from browsermcp's world.
	if obj, err = mainWorldObject(ctx, w.t, obj); err != nil {
		if isGone(err) {
			return nil, page.StaleRef(req.Target.Ref, "its frame navigated or was removed")
		}
		return nil, err
	}
	a["kind"] = "el"
	args, err := json.Marshal(a)
	if err != nil {
		return nil, engine.Wrap(engine.InvalidParameters, err, "args must be JSON values: "+err.Error()).With("field", "args")
	}
	res, err := cdp.Call(ctx, w.t, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: "function(a, el) { a.el = el; return (" + page.EvalScript() + ")(a, (" + req.Function + ")); }",
		ObjectID:            obj,
		Arguments:           []*runtime.CallArgument{{Value: args}, {ObjectID: obj}},
		ReturnByValue:       new(true), AwaitPromise: new(true), UserGesture: new(true),
	})
	var r page.EvalOutcome
	if err := decodeResult(res.Result, res.ExceptionDetails, err, &r); err != nil {
		if isGone(err) {
			return nil, page.StaleRef(req.Target.Ref, "its frame navigated or was removed")
		}
		return nil, scriptErr(err)
	}
	if r.Error == "stale" {
		return nil, page.StaleRef(req.Target.Ref, "the element was removed from the page")
	}
	return page.EvalResult(r, *req.Target, req.Timeout)
}

// scriptErr classifies a script that did not even run (a syntax error).
// A page that went away or did not answer is no fault of the script: that
// error goes back as it is, for session.classify (BROWSER_CRASHED when the
// page or browser is gone, TIMEOUT).
func scriptErr(err error) error {
	if _, ok := err.(*engine.Error); ok {
		return err
	}
	if errors.Is(err, chromedp.ErrTargetDetached) || errors.Is(err, chromedp.ErrChannelClosed) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	return engine.Wrap(engine.ScriptError, err, err.Error()).With("reason", "syntax")
}

// evalExpression evaluates a user expression or statements (REPL
// semantics: the value of the last expression, top-level await allowed) and
// returns its JSON value.
func evalExpression(ctx context.Context, t *chromedp.Target, expr string) (json.RawMessage, error) {
	var out json.RawMessage
	err := func() error {
		res, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{
			Expression: expr, ReplMode: new(true), AwaitPromise: new(true), UserGesture: new(true),
		})
		if err != nil {
			return err
		}
		if ex := res.ExceptionDetails; ex != nil {
			msg := ex.Text
			if ex.Exception != nil && ex.Exception.Description != "" {
				msg = ex.Exception.Description
			}
			return engine.Errorf(engine.ScriptError, "the script threw: %s", msg).With("reason", "exception")
		}
		ro := res.Result
		if ro.ObjectID == "" {
			if ro.UnserializableValue != "" {
				return engine.Errorf(engine.ScriptError, "the script returned %s, which is not JSON", ro.UnserializableValue).
					With("reason", "not_serializable").With("type", string(ro.UnserializableValue))
			}
			if ro.Type == runtime.RemoteObjectTypeUndefined || len(ro.Value) == 0 {
				out = json.RawMessage("null")
				return nil
			}
			out = json.RawMessage(ro.Value)
			return nil
		}
		defer cdp.Call(ctx, t, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: ro.ObjectID})
		enc, err := cdp.Call(ctx, t, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
			FunctionDeclaration: "function(){return (" + page.EvalScript() + ")({kind:'',args:[]}, () => this)}",
			ObjectID:            ro.ObjectID, ReturnByValue: new(true), AwaitPromise: new(true),
		})
		if err != nil {
			return err
		}
		var r page.EvalOutcome
		if enc.Result != nil && len(enc.Result.Value) > 0 {
			if err := json.Unmarshal(enc.Result.Value, &r); err != nil {
				return err
			}
		}
		out, err = page.EvalResult(r, engine.Target{}, 0)
		return err
	}()
	return out, err
}

// mainWorldObject returns a handle, in the main world of its frame, to the
// node obj names in another world of t.
func mainWorldObject(ctx context.Context, t *chromedp.Target, obj runtime.RemoteObjectID) (runtime.RemoteObjectID, error) {
	desc, err := cdp.Call(ctx, t, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: obj})
	if err != nil {
		return "", err
	}
	node, err := cdp.Call(ctx, t, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: desc.Node.BackendNodeID, ObjectGroup: objectGroup})
	if err != nil {
		return "", err
	}
	return node.Object.ObjectID, nil
}

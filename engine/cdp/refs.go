package cdp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/page"
)

// Refs (see engine/page for their rules). Each world of a tab keeps its own
// registry of the refs given out in it; refSpace is what the tabs of a
// session share.

// objectGroup holds the remote objects a call creates; runs release it.
const objectGroup = "browsermcp"

// refSpace is what the tabs of a session share about refs: the counter the
// numbers of refs come from and the aliases of cross-origin frames. Only the
// goroutine running the session's call uses it.
type refSpace struct {
	next       int // the number the next new ref gets
	frameSeq   int // frame aliases given out
	frameAlias map[cdp.FrameID]string
	// requests numbers the session's requests for get_request (r1, r2,
	// ...), as next numbers its refs; every tab's request log takes from
	// it.
	requests atomic.Int64
}

func newRefSpace() *refSpace {
	return &refSpace{next: 1, frameAlias: map[cdp.FrameID]string{}}
}

// aliasFor returns the alias of frame id, giving it one on first sight.
func (r *refSpace) aliasFor(id cdp.FrameID) string {
	alias := r.frameAlias[id]
	if alias == "" {
		r.frameSeq++
		alias = "f" + strconv.Itoa(r.frameSeq)
		r.frameAlias[id] = alias
	}
	return alias
}

// gaveOut tells whether the session gave out ref number n with alias.
func (r *refSpace) gaveOut(alias string, n int) bool {
	if n >= r.next {
		return false
	}
	if alias == "" {
		return true
	}
	k, _ := strconv.Atoi(alias[1:])
	return k <= r.frameSeq
}

// refWorld returns the world of this tab whose registry holds ref.
func (s *session) refWorld(ctx context.Context, t *chromedp.Target, ref string) (*world, error) {
	alias, n, err := page.ParseRef(ref)
	if err != nil {
		return nil, err
	}
	if !s.refs.gaveOut(alias, n) {
		return nil, page.UnknownRef(ref)
	}
	w, err := s.worldFor(ctx, t, alias)
	if err != nil {
		if isGone(err) {
			return nil, page.StaleRef(ref, "its page navigated or closed")
		}
		return nil, err
	}
	if w == nil {
		return nil, page.StaleRef(ref, "its frame is in another tab, or in a tab that was closed")
	}
	return w, nil
}

// refObject finds the element a ref names: its world and a remote object
// for it in that world.
func (s *session) refObject(ctx context.Context, t *chromedp.Target, ref string) (*world, runtime.RemoteObjectID, error) {
	w, err := s.refWorld(ctx, t, ref)
	if err != nil {
		return nil, "", err
	}
	obj, err := s.evalObject(ctx, w, "window.__bmcp && window.__bmcp.get("+strconv.Quote(ref)+")")
	if err != nil {
		if isGone(err) {
			return nil, "", page.StaleRef(ref, "its frame navigated or was removed")
		}
		return nil, "", err
	}
	if obj == "" {
		return nil, "", page.StaleRef(ref, "the element was removed from the page, or the page navigated")
	}
	return w, obj, nil
}

// callOnRef calls fn with this = the element ref names and one JSON
// argument, in a single round trip (no remote object to fetch or release).
// fn answers {error: "stale"} for nothing else; a ref whose element is gone
// makes the call answer exactly that.
func (s *session) callOnRef(ctx context.Context, t *chromedp.Target, ref, fn string, arg any, out any) (*world, error) {
	w, err := s.refWorld(ctx, t, ref)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(arg)
	if err != nil {
		return nil, err
	}
	expr := "(() => { const el = window.__bmcp && window.__bmcp.get(" + strconv.Quote(ref) + "); " +
		"if (!el) return {error: \"stale\"}; return (" + fn + ").call(el, " + string(b) + "); })()"
	if err := s.evalIn(ctx, w, expr, out); err != nil {
		if isGone(err) {
			return nil, page.StaleRef(ref, "its frame navigated or was removed")
		}
		return nil, err
	}
	return w, nil
}

// evalObject evaluates expr in world w and returns the object it yields,
// or "" for null and undefined.
func (s *session) evalObject(ctx context.Context, w *world, expr string) (runtime.RemoteObjectID, error) {
	res, err := cdp.Call(ctx, w.t, runtime.Evaluate, runtime.EvaluateParams{
		Expression: expr, ContextID: w.ctxID, ObjectGroup: objectGroup,
	})
	if err != nil {
		return "", err
	}
	if res.ExceptionDetails != nil {
		return "", fmt.Errorf("page script failed: %s", exceptionText(res.ExceptionDetails))
	}
	if res.Result == nil {
		return "", nil
	}
	return res.Result.ObjectID, nil
}

// evalIn evaluates expr in world w and decodes its JSON value into out. The
// page's world (no alias) is made on first use (ctxID 0), and again in the
// new document when a navigation destroys it, as the page's own world would
// be; a frame's world that went is an error.
func (s *session) evalIn(ctx context.Context, w *world, expr string, out any) error {
	for {
		if w.alias == "" && w.ctxID == 0 {
			nw, err := pageWorld(ctx, w.t)
			if err != nil {
				return err // the tab closed or crashed
			}
			w.ctxID = nw.ctxID
		}
		res, err := cdp.Call(ctx, w.t, runtime.Evaluate, runtime.EvaluateParams{
			Expression: expr, ContextID: w.ctxID, ReturnByValue: new(true), AwaitPromise: new(true), UserGesture: new(true),
		})
		err = decodeResult(res.Result, res.ExceptionDetails, err, out)
		if w.alias != "" || err == nil || !isContextGone(cdpMessage(err)) || ctx.Err() != nil {
			return err
		}
		w.ctxID = 0
	}
}

// callOn calls the function fn with this = obj and one JSON argument.
func callOn(ctx context.Context, t *chromedp.Target, obj runtime.RemoteObjectID, fn string, arg any, out any) error {
	b, err := json.Marshal(arg)
	if err != nil {
		return err
	}
	res, err := cdp.Call(ctx, t, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: fn, ObjectID: obj, Arguments: []*runtime.CallArgument{{Value: b}},
		ReturnByValue: new(true), AwaitPromise: new(true), UserGesture: new(true),
	})
	return decodeResult(res.Result, res.ExceptionDetails, err, out)
}

func decodeResult(r *runtime.RemoteObject, ex *runtime.ExceptionDetails, err error, out any) error {
	if err != nil {
		return err
	}
	if ex != nil {
		return fmt.Errorf("page script failed: %s", exceptionText(ex))
	}
	if out == nil || r == nil || len(r.Value) == 0 {
		return nil
	}
	return json.Unmarshal(r.Value, out)
}

func exceptionText(ex *runtime.ExceptionDetails) string {
	if ex.Exception != nil && ex.Exception.Description != "" {
		return ex.Exception.Description
	}
	return ex.Text
}

// isGone tells whether err says the world's execution context or node went
// away (a navigation or a removed frame).
func isGone(err error) bool {
	if err == nil {
		return false
	}
	msg := cdpMessage(err)
	return isContextGone(msg) || strings.Contains(msg, "No frame") || strings.Contains(msg, "Frame with the given id") ||
		errors.Is(err, chromedp.ErrTargetDetached)
}

// releaseObjects frees the remote objects a call made on t, so that a
// long session does not pin elements of pages it left.
func (s *session) releaseObjects(t *chromedp.Target) {
	ctx, cancel := context.WithTimeout(s.tab, engine.CleanupTimeout)
	defer cancel()
	_, _ = cdp.Call(ctx, t, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: objectGroup})
}

// cdpMessage is the browser's message of a CDP error, or err's text.
func cdpMessage(err error) string {
	var ce *cdproto.Error
	if errors.As(err, &ce) {
		return ce.Message
	}
	return err.Error()
}

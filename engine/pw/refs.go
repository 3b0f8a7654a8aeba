package pw

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/page"
)

// Refs follow engine/page's rules (see its package doc) with the same in-page
// registry (window.__bmcp, kept by the snapshot script): "eN" names an
// element the page's main frame reaches (its own document and the
// same-origin frames inside it), "fKeN" an element inside a cross-origin
// frame, whose window keeps its own registry. Playwright evaluates in any
// frame, so the alias fK names a playwright.Frame for the whole session. N
// comes from one counter per session (shared by its tabs) that only grows,
// so a ref is never reused, and a ref below the counter that its registry
// no longer resolves is stale rather than unknown.

// refState is the ref counter and frame aliases of a session. Only the
// goroutine running the session's call uses it.
type refState struct {
	next   int // the number the next new ref gets
	seq    int // frame aliases given out
	frames map[string]playwright.Frame
	alias  map[playwright.Frame]string
}

func newRefState() *refState {
	return &refState{next: 1, frames: map[string]playwright.Frame{}, alias: map[playwright.Frame]string{}}
}

// aliasFor returns the alias of a cross-origin frame, giving it one on first
// sight.
func (r *refState) aliasFor(f playwright.Frame) string {
	a := r.alias[f]
	if a == "" {
		r.seq++
		a = "f" + strconv.Itoa(r.seq)
		r.alias[f] = a
		r.frames[a] = f
	}
	return a
}

// refFrame returns the frame whose registry holds ref, and its alias.
func (s *session) refFrame(ref string) (playwright.Frame, string, error) {
	alias, n, err := page.ParseRef(ref)
	if err != nil {
		return nil, "", err
	}
	r := s.sh.refs
	if n >= r.next {
		return nil, "", page.UnknownRef(ref)
	}
	if alias == "" {
		return s.page.MainFrame(), "", nil
	}
	f := r.frames[alias]
	switch {
	case f == nil:
		return nil, "", page.UnknownRef(ref)
	case f.IsDetached():
		return nil, "", page.StaleRef(ref, "its frame was removed")
	case f.Page() != s.page:
		return nil, "", page.StaleRef(ref, "its frame belongs to another tab")
	}
	return f, alias, nil
}

// refLookup is the in-page expression for the element a ref names.
const refLookup = "(window.__bmcp && window.__bmcp.get(x.ref))"

// resolveRefJS runs engine/page's element script on the element ref names
// (see resolveJS). It returns the element itself when it lives in its
// frame's own document, so that Playwright acts on it as on a selector's
// element; an element of a same-origin frame inside it (Playwright would
// place the click by the wrong frame) or of a cross-origin frame (whose
// owner iframes must be hit-tested on the way up, as engine/cdp does) gets
// the check's point instead, in its world's top window.
var resolveRefJS = `async (x) => {
  const el = ` + refLookup + `;
  if (!el) return { error: "stale" };
  const r = await (` + page.ElementScript() + `).call(el, x.a);
  if (r.error || x.frame || x.a.pointOnly || el.ownerDocument !== document || x.a.force && el.getClientRects().length === 0) return r;
  return el;
}`

// resolveRef is resolve for a target given by ref.
func (s *session) resolveRef(ctx context.Context, args map[string]any, tg engine.Target, timeout time.Duration) (playwright.ElementHandle, page.ElementCheck, error) {
	var r page.ElementCheck
	f, alias, err := s.refFrame(tg.Ref)
	if err != nil {
		return nil, r, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout+engine.CallGrace)
	defer cancel()
	x := map[string]any{"ref": tg.Ref, "a": args, "frame": alias != ""}
	h, err := call(ctx, func() (playwright.JSHandle, error) { return f.EvaluateHandle(resolveRefJS, x) },
		func(h playwright.JSHandle) { _ = h.Dispose() })
	if err != nil {
		if isContextGone(err) {
			return nil, r, page.StaleRef(tg.Ref, "its page or frame navigated")
		}
		return nil, r, s.classify(err, "find "+tg.String())
	}
	if el := h.AsElement(); el != nil {
		return el, r, nil
	}
	if r, err = s.checkResult(ctx, h, tg); err != nil {
		return nil, r, err
	}
	if r.Error == "stale" {
		return nil, r, page.StaleRef(tg.Ref, "the element was removed from the page, or the page navigated")
	}
	if err := page.ElementError(r, tg, timeout); err != nil {
		return nil, r, err
	}
	if args["op"] == "point" && alias != "" {
		force, _ := args["force"].(bool)
		if err := s.toPage(ctx, f, &r, force); err != nil {
			// No input follows: end the guard the check set.
			(&guardEnd{s: s, tg: tg}).drop(ctx, err)
			if e, ok := err.(*engine.Error); ok {
				e.With("ref", tg.Ref)
			}
			return nil, r, err
		}
	}
	return nil, r, nil
}

// checkResult decodes an element check a script returned, and disposes of
// its handle.
func (s *session) checkResult(ctx context.Context, h playwright.JSHandle, tg engine.Target) (page.ElementCheck, error) {
	var r page.ElementCheck
	v, err := call(ctx, h.JSONValue, nil)
	go func() { _ = h.Dispose() }()
	if err != nil {
		return r, s.classify(err, "find "+tg.String())
	}
	b, _ := json.Marshal(v)
	if err := json.Unmarshal(b, &r); err != nil {
		return r, engine.Wrap(engine.BrowserError, err, "unexpected element check result "+string(b))
	}
	return r, nil
}

// frameJS runs engine/page's element script with op "frame" on an iframe
// element: the point (x, y) in the iframe's content becomes a point in the
// iframe's document, after checking that the iframe is what the point hits.
var frameJS = `(el, a) => (` + page.ElementScript() + `).call(el, a)`

// toPage turns a point in frame f's viewport into a point in the page's,
// climbing through each owner iframe as engine/cdp does, so that a click
// reaches the frame and not what covers it. pt holds the point in f's
// viewport and becomes the point in the page's, with what receives a forced
// click there (see page.ElementCheck.Through).
func (s *session) toPage(ctx context.Context, f playwright.Frame, pt *page.ElementCheck, force bool) error {
	for ; f.ParentFrame() != nil; f = f.ParentFrame() {
		owner, err := call(ctx, f.FrameElement, func(h playwright.ElementHandle) { _ = h.Dispose() })
		if err != nil {
			return s.classify(err, "find the frame's iframe")
		}
		a := map[string]any{"op": "frame", "x": pt.X, "y": pt.Y, "force": force}
		v, err := call(ctx, func() (any, error) { return owner.Evaluate(frameJS, a) }, nil)
		release(owner)
		if err != nil {
			return s.classify(err, "find the frame's iframe")
		}
		b, _ := json.Marshal(v)
		var r page.ElementCheck
		if err := json.Unmarshal(b, &r); err != nil {
			return engine.Wrap(engine.BrowserError, err, "unexpected element check result "+string(b))
		}
		if err := page.ElementError(r, engine.Target{}, 0); err != nil {
			return err
		}
		pt.Through(r)
	}
	return nil
}

// refElement returns a handle to the element ref names with the answer of
// check (a function of the element) on it.
func (s *session) refElement(ctx context.Context, ref, check string) (playwright.ElementHandle, string, error) {
	f, _, err := s.refFrame(ref)
	if err != nil {
		return nil, "", err
	}
	h, err := call(ctx, func() (playwright.JSHandle, error) {
		return f.EvaluateHandle("(x) => "+refLookup+" || null", map[string]any{"ref": ref})
	}, func(h playwright.JSHandle) { _ = h.Dispose() })
	if err != nil {
		if isContextGone(err) {
			return nil, "", page.StaleRef(ref, "its page or frame navigated")
		}
		return nil, "", s.classify(err, "find ref "+ref)
	}
	el := h.AsElement()
	if el == nil {
		go func() { _ = h.Dispose() }()
		return nil, "", page.StaleRef(ref, "the element was removed from the page, or the page navigated")
	}
	v, err := call(ctx, func() (any, error) { return el.Evaluate(check) }, nil)
	if err != nil {
		release(el)
		return nil, "", s.classify(err, "check ref "+ref)
	}
	out, _ := v.(string)
	return el, out, nil
}

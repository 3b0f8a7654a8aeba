package pw

import (
	"context"
	"encoding/json"

	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/page"
)

// walkJS runs engine/page's snapshot script in a frame: from the element a
// ref names (x.ref), else from the document or the selector in x.a.
var walkJS = `(x) => {
  let self = null;
  if (x.ref) {
    self = ` + refLookup + `;
    if (!self) return { error: "stale" };
  }
  return (` + page.SnapshotScript() + `).call(self, x.a);
}`

// Snapshot walks the page's main frame with engine/page's snapshot script,
// then each cross-origin frame in that frame (Playwright evaluates in any
// frame), and splices the frames' outlines in where their iframes are, as
// engine/cdp does. On Chromium the script reads roles and names from the
// browser's accessibility engine; elsewhere it computes them itself (the
// script's fallback).
func (s *session) Snapshot(ctx context.Context, req engine.SnapshotRequest) (engine.SnapshotResult, error) {
	if err := s.alive(); err != nil {
		return engine.SnapshotResult{}, err
	}
	s.keepAX(ctx)
	refs := s.sh.refs
	// A snapshot reuses nothing an earlier walk kept (Fresh): what the
	// agent sees never depends on what the page recorded.
	args := page.ArgsFor(req, refs.next)
	args.Fresh = true
	s.freshWalk = true
	defer func() { s.freshWalk = false }()
	f := s.page.MainFrame()
	switch {
	case req.Target.Ref != "":
		var err error
		if f, args.Prefix, err = s.refFrame(req.Target.Ref); err != nil {
			return engine.SnapshotResult{}, err
		}
	case req.Target.Selector != "":
		kind, expr := engine.ParseSelector(req.Target.Selector)
		args.Sel, args.Kind = expr, "css"
		if kind == engine.XPath {
			args.Kind = "xpath"
		}
	}
	out, err := s.walk(ctx, f, args, req.Target.Ref)
	if err != nil {
		return engine.SnapshotResult{}, err
	}
	if out.Error == "stale" {
		return engine.SnapshotResult{}, page.StaleRef(req.Target.Ref, "the element was removed from the page, or the page navigated")
	}
	if err := page.SnapshotError(out, req.Target); err != nil {
		return engine.SnapshotResult{}, err
	}
	refs.next = max(refs.next, out.Next)
	text, err := s.splice(ctx, f, out, req, 0)
	if err != nil {
		return engine.SnapshotResult{}, err
	}
	if args.Track {
		s.views.Set(page.View{Doc: out.Doc, Gen: out.Gen, Frames: out.Frames, Cap: args.MaxText, Text: text})
	}
	info := s.Info(ctx)
	res := engine.SnapshotResult{URL: info.URL, Title: info.Title, FullChars: len(text)}
	res.Text, res.Truncated = page.TruncateOutline(text, req.MaxChars)
	res.Refs = page.CountRefs(res.Text)
	return res, nil
}

// walk runs the snapshot script in frame f. A walk of the page that a
// navigation interrupts runs again in the new document; one from a ref is
// then stale.
func (s *session) walk(ctx context.Context, f playwright.Frame, args page.SnapshotArgs, ref string) (page.SnapshotOutcome, error) {
	var out page.SnapshotOutcome
	a, err := jsonArg(args)
	if err != nil {
		return out, engine.Wrap(engine.BrowserError, err, "snapshot arguments")
	}
	x := map[string]any{"ref": ref, "a": a}
	ctx, cancel := s.untilCrash(ctx)
	defer cancel()
	for {
		v, err := call(ctx, func() (any, error) { return f.Evaluate(walkJS, x) }, nil)
		if err != nil {
			if isContextGone(err) && ctx.Err() == nil {
				if ref != "" {
					return out, page.StaleRef(ref, "its page or frame navigated")
				}
				if f == s.page.MainFrame() {
					continue
				}
			}
			return out, s.classify(err, "take a snapshot")
		}
		b, _ := json.Marshal(v)
		if err := json.Unmarshal(b, &out); err != nil {
			return out, engine.Wrap(engine.BrowserError, err, "unexpected snapshot result")
		}
		return out, nil
	}
}

// splice replaces each frame line of out, walked in f, by the outline of
// that frame's content.
func (s *session) splice(ctx context.Context, f playwright.Frame, out page.SnapshotOutcome, req engine.SnapshotRequest, depth int) (string, error) {
	return page.SpliceFrames(out, func(idx int) (string, error) { return s.frameText(ctx, f, idx, req, depth) })
}

// frameText walks the content of the idx-th cross-origin frame the walk of
// parent found. A frame that cannot be walked reads as a line saying why,
// so that one broken frame does not fail the page's snapshot.
func (s *session) frameText(ctx context.Context, parent playwright.Frame, idx int, req engine.SnapshotRequest, depth int) (string, error) {
	if depth >= page.MaxFrameDepth {
		return "- text: (frames nested too deep)", nil
	}
	h, err := call(ctx, func() (playwright.JSHandle, error) {
		return parent.EvaluateHandle("(i) => (window.__bmcp && window.__bmcp.frames[i]) || null", idx)
	}, func(h playwright.JSHandle) { _ = h.Dispose() })
	if err != nil {
		return "- text: (frame gone)", nil
	}
	owner := h.AsElement()
	if owner == nil {
		go func() { _ = h.Dispose() }()
		return "- text: (frame gone)", nil
	}
	defer release(owner)
	cf, err := call(ctx, owner.ContentFrame, nil)
	if err != nil || cf == nil {
		return "- text: (frame not loaded)", nil
	}
	refs := s.sh.refs
	args := page.ArgsFor(req, refs.next)
	args.Prefix, args.Fresh = refs.aliasFor(cf), s.freshWalk
	out, err := s.walk(ctx, cf, args, "")
	if err != nil {
		return "- text: " + page.Text("(frame not reachable: "+firstLine(err)+")"), nil
	}
	if err := page.SnapshotError(out, engine.Target{}); err != nil {
		return "", err
	}
	refs.next = max(refs.next, out.Next)
	return s.splice(ctx, cf, out, req, depth+1)
}

// keepAX makes Chromium keep the page's accessibility tree between the
// script's reads of computedRole and computedName, which otherwise build
// and throw it away on every read; see engine/cdp's keepAX. Best effort:
// without it the snapshot is only slower.
func (s *session) keepAX(ctx context.Context) {
	if s.e.cfg.Browser != Chromium {
		return
	}
	ctx, cancel := s.untilCrash(ctx)
	defer cancel()
	cs, err := s.sh.devtoolsFor(ctx, s.bctx, s.page)
	if err != nil {
		return
	}
	_ = do(ctx, func() error {
		_, err := cs.Send("Accessibility.getFullAXTree", map[string]any{"depth": 1})
		return err
	})
}

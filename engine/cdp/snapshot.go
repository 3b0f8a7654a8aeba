package cdp

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/page"
)

// Snapshot walks the page in browsermcp's world, then each cross-origin
// frame in its own world, and splices the frames' outlines in where their iframes
// are. Roles and names come from Chromium's accessibility engine when the
// browser exposes it to pages (we launch it so); a browser we attached to
// that was started without it gets them from the script's own computation.
// See engine/page's snapshot script for what is kept and how it is printed.
func (s *session) Snapshot(ctx context.Context, req engine.SnapshotRequest) (engine.SnapshotResult, error) {
	var res engine.SnapshotResult
	err := s.run(ctx, "take a snapshot", func(ctx context.Context, t *chromedp.Target) error {
		if err := s.dialogErr(); err != nil {
			return err
		}
		// A snapshot reuses nothing an earlier walk kept (Fresh): what the
		// agent sees never depends on what the page recorded.
		args := page.ArgsFor(req, s.refs.next)
		args.Fresh = true
		s.freshWalk = true
		defer func() { s.freshWalk = false }()
		w, err := s.preparePage(ctx, t)
		if err != nil {
			return err
		}
		var out page.SnapshotOutcome
		switch {
		case req.Target.Ref != "":
			defer s.releaseObjects(t)
			rw, obj, err := s.refObject(ctx, t, req.Target.Ref)
			if err != nil {
				return err
			}
			w = rw
			args.Prefix = w.alias
			if err := callOn(ctx, w.t, obj, page.SnapshotScript(), args, &out); err != nil {
				return err
			}
		case req.Target.Selector != "":
			kind, expr := engine.ParseSelector(req.Target.Selector)
			args.Sel, args.Kind = expr, "css"
			if kind == engine.XPath {
				args.Kind = "xpath"
			}
			if err := s.walk(ctx, w, args, &out); err != nil {
				return err
			}
		default:
			if err := s.walk(ctx, w, args, &out); err != nil {
				return err
			}
		}
		if err := page.SnapshotError(out, req.Target); err != nil {
			return err
		}
		s.refs.next = max(s.refs.next, out.Next)
		if out.Frames > 0 {
			// Splicing the frames in fetches remote objects for them.
			defer s.releaseObjects(t)
		}
		text, err := s.spliceFrames(ctx, w, out, req, 0)
		if err != nil {
			return err
		}
		if args.Track {
			s.views.Set(page.View{Doc: out.Doc, Gen: out.Gen, Frames: out.Frames, Cap: args.MaxText, Text: text})
		}
		// The walk of the top document read its URL and title (in
		// browsermcp's world of that document, which sees the same
		// location and title); a subtree of a frame asks the tab.
		url, title := out.URL, out.Title
		if w.alias != "" || out.URL == "" {
			info := s.Info(ctx)
			url, title = info.URL, info.Title
		}
		res = engine.SnapshotResult{URL: url, Title: title, FullChars: len(text)}
		res.Text, res.Truncated = page.TruncateOutline(text, req.MaxChars)
		res.Refs = page.CountRefs(res.Text)
		return nil
	})
	return res, err
}

// walk runs engine/page's snapshot script in world w. The script is
// compiled once per world: the first walk keeps the function on the
// world's window (browsermcp's isolated world, which the page cannot
// reach), and later walks call it with a short expression, so that V8 does
// not parse the whole script again on each snapshot.
//
// The page's world of a document the session has not walked yet goes
// straight to the walk that keeps the function, saving the round trip that
// would find it missing.
func (s *session) walk(ctx context.Context, w *world, args page.SnapshotArgs, out *page.SnapshotOutcome) error {
	a, _ := json.Marshal(args)
	doc := s.docKey()
	if w.alias != "" || s.snapDoc == doc {
		call := "(() => { const f = window.__bmcpSnapshot; return f ? f.call(null, " + string(a) + ") : {error: " + strconv.Quote(noScript) + "}; })()"
		if err := s.evalIn(ctx, w, call, out); err != nil || out.Error != noScript {
			return err
		}
		*out = page.SnapshotOutcome{}
	}
	err := s.evalIn(ctx, w, "(() => { const f = ("+page.SnapshotScript()+"); "+
		"Object.defineProperty(window, \"__bmcpSnapshot\", {value: f, configurable: true}); return f.call(null, "+string(a)+"); })()", out)
	if err == nil && w.alias == "" {
		s.snapDoc = doc
	}
	return err
}

// docKey names the tab's current top document: 1 + the commits seen. The
// event of a commit may still be on its way; what keys on it then only
// costs a round trip more (walk) or a slower walk (preparePage).
func (s *session) docKey() int {
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	return s.st.commits + 1
}

// noScript is the answer of a walk in a world that has not kept the
// snapshot function yet.
const noScript = "no_script"

// preparePage returns browsermcp's world in the tab's top document, and
// makes the renderer keep that document's accessibility tree (keepAX),
// once per document. The two calls go out together: neither waits for the
// other. A browser whose pages do not expose the accessibility engine
// gets no keepAX: the walk does not read that tree, and building and
// keeping it would only cost.
func (s *session) preparePage(ctx context.Context, t *chromedp.Target) (*world, error) {
	doc := s.docKey()
	if s.axDoc == doc {
		return pageWorld(ctx, t)
	}
	if s.b.ax.Load() == axUnknown {
		w, err := pageWorld(ctx, t)
		if err != nil {
			return nil, err
		}
		if err := s.probeAX(ctx, w); err != nil {
			return nil, err
		}
		if s.b.ax.Load() != axNative {
			s.axDoc = doc
			return w, nil
		}
	}
	if s.b.ax.Load() != axNative {
		s.axDoc = doc
		return pageWorld(ctx, t)
	}
	ax := make(chan error, 1)
	go func() { ax <- keepAX(ctx, t, "") }()
	w, err := pageWorld(ctx, t)
	if axErr := <-ax; err == nil {
		err = axErr
	}
	if err != nil {
		return nil, err
	}
	s.axDoc = doc
	return w, nil
}

// What the pages of a browser expose (browserProc.ax).
const (
	axUnknown int32 = iota
	axNative        // Element.computedRole: Chromium's accessibility engine
	axScript        // nothing: the snapshot script computes roles and names
)

// probeAX finds out, once per browser, whether its pages expose its
// accessibility engine (browserProc.ax), asking world w. Chromium does so
// only when started with --enable-blink-features=ComputedAccessibilityInfo,
// as we launch it; a browser the user started and we attached to
// (--cdp-endpoint) usually lacks it. The answer comes from browsermcp's
// world, where the page cannot fake it.
func (s *session) probeAX(ctx context.Context, w *world) error {
	if s.b.ax.Load() != axUnknown {
		return nil
	}
	var native bool
	if err := s.evalIn(ctx, w, `"computedRole" in Element.prototype`, &native); err != nil {
		return err
	}
	state := axScript
	if native {
		state = axNative
	}
	if s.b.ax.CompareAndSwap(axUnknown, state) && !native {
		s.b.log.Info("the browser does not expose its accessibility engine to pages (started without --enable-blink-features=ComputedAccessibilityInfo): snapshots compute roles and names in the page script")
	}
	return nil
}

// spliceFrames replaces each frame line of out by the outline of that
// frame's content, indented to the line.
func (s *session) spliceFrames(ctx context.Context, w *world, out page.SnapshotOutcome, req engine.SnapshotRequest, depth int) (string, error) {
	return page.SpliceFrames(out, func(idx int) (string, error) { return s.frameText(ctx, w, idx, req, depth) })
}

// frameText walks the content of the idx-th cross-origin frame the walk of
// world parent found. A frame that cannot be walked reads as a line saying
// why, so that one broken frame does not fail the page's snapshot.
func (s *session) frameText(ctx context.Context, parent *world, idx int, req engine.SnapshotRequest, depth int) (string, error) {
	if depth >= page.MaxFrameDepth {
		return "- text: (frames nested too deep)", nil
	}
	obj, err := s.evalObject(ctx, parent, fmt.Sprintf("window.__bmcp.frames[%d]", idx))
	if err != nil || obj == "" {
		return "- text: (frame gone)", nil
	}
	node, err := cdp.Call(ctx, parent.t, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: obj})
	if err != nil || node.Node == nil || node.Node.FrameID == "" {
		return "- text: (frame not loaded)", nil
	}
	w, err := s.frameWorld(ctx, parent, node.Node.FrameID)
	if err != nil {
		return "- text: " + page.Text("(frame not reachable: "+err.Error()+")"), nil
	}
	native := s.b.ax.Load() == axNative
	if w.t != parent.t {
		if native {
			_ = keepAX(ctx, w.t, "")
		}
		defer s.releaseObjects(w.t)
	} else if native {
		_ = keepAX(ctx, w.t, w.frameID)
	}
	args := page.ArgsFor(req, s.refs.next)
	args.Prefix, args.Fresh = w.alias, s.freshWalk
	var out page.SnapshotOutcome
	if err := s.walk(ctx, w, args, &out); err != nil {
		return "- text: " + page.Text("(frame not reachable: "+err.Error()+")"), nil
	}
	if out.Error != "" {
		return "", page.SnapshotError(out, engine.Target{})
	}
	s.refs.next = max(s.refs.next, out.Next)
	return s.spliceFrames(ctx, w, out, req, depth+1)
}

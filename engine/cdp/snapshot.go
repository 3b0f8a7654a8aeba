package cdp

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
)

//go:embed js/snapshot.js
var snapshotJS string

// walkArgs are the arguments of js/snapshot.js.
type walkArgs struct {
	Prefix          string `json:"prefix"`
	Next            int    `json:"next"`
	Depth           int    `json:"depth"`
	InteractiveOnly bool   `json:"interactiveOnly"`
	// Fallback computes roles and names in the script where the browser
	// does not expose its own (every browser but Chromium).
	Fallback bool   `json:"fallback,omitempty"`
	Kind     string `json:"kind,omitempty"`
	Sel      string `json:"sel,omitempty"`
}

// walkOut is what js/snapshot.js returns.
type walkOut struct {
	Text    string `json:"text"`
	Next    int    `json:"next"`
	Frames  int    `json:"frames"`
	Error   string `json:"error"`
	Message string `json:"message"`
}

// frameLine is a line that stands for a cross-origin frame's content.
var frameLine = regexp.MustCompile("^( *)\x01([0-9]+)$")

// refToken counts refs in the outline.
var refToken = regexp.MustCompile(`\[ref=[^\]\s]+\]`)

// Snapshot walks the page in browsermcp's world, then each cross-origin
// frame in its own world, and splices the frames' outlines in where their iframes
// are. Roles and names come from Chromium's accessibility engine; see
// js/snapshot.js for what is kept and how it is printed.
func (s *session) Snapshot(ctx context.Context, req engine.SnapshotRequest) (engine.SnapshotResult, error) {
	var res engine.SnapshotResult
	err := s.run(ctx, "take a snapshot", func(ctx context.Context, t *chromedp.Target) error {
		if err := s.dialogErr(); err != nil {
			return err
		}
		defer s.releaseObjects(t)
		if err := keepAX(ctx, t, ""); err != nil {
			return err
		}
		args := walkArgs{Next: s.refs.next, Depth: req.Depth, InteractiveOnly: req.InteractiveOnly}
		w := &world{t: t} // the page's, made by the walk (see evalIn)
		var out walkOut
		switch {
		case req.Target.Ref != "":
			rw, obj, err := s.refObject(ctx, t, req.Target.Ref)
			if err != nil {
				return err
			}
			w = rw
			args.Prefix = w.alias
			if err := callOn(ctx, w.t, obj, snapshotJS, args, &out); err != nil {
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
		if err := walkErr(out, req.Target); err != nil {
			return err
		}
		s.refs.next = max(s.refs.next, out.Next)
		text, err := s.spliceFrames(ctx, w, out, req, 0)
		if err != nil {
			return err
		}
		info := s.Info(ctx)
		res = engine.SnapshotResult{URL: info.URL, Title: info.Title, FullChars: len(text)}
		res.Text, res.Truncated = truncateOutline(text, req.MaxChars)
		res.Refs = len(refToken.FindAllStringIndex(res.Text, -1))
		return nil
	})
	return res, err
}

// walk runs js/snapshot.js in world w.
func (s *session) walk(ctx context.Context, w *world, args walkArgs, out *walkOut) error {
	a, _ := json.Marshal(args)
	return s.evalIn(ctx, w, "("+snapshotJS+").call(null, "+string(a)+")", out)
}

func walkErr(out walkOut, tg engine.Target) error {
	switch out.Error {
	case "":
		return nil
	case "no_computed_ax":
		return engine.Errorf(engine.Unsupported, "this browser does not expose its accessibility engine to pages (Element.computedRole); snapshots need Chromium started with --enable-blink-features=ComputedAccessibilityInfo").
			Suggest("Let browsermcp launch the browser, or start the browser you attach to with --enable-blink-features=ComputedAccessibilityInfo.")
	case "registry_taken":
		return engine.Errorf(engine.Unsupported, "the page defines window.__bmcp, where this engine keeps the refs of a snapshot in the page's own world: the page may be trying to steer refs").
			Suggest("Use the cdp engine (Chromium), which keeps refs in a world the page cannot reach.")
	case "not_found":
		return engine.Errorf(engine.ElementNotFound, "no element matches %s", tg).With("selector", tg.Selector)
	case "invalid_selector":
		return engine.Errorf(engine.InvalidParameters, "invalid selector %q: %s", tg.Selector, out.Message).
			With("field", "selector").With("reason", out.Message)
	}
	return engine.Errorf(engine.BrowserError, "snapshot failed: %s %s", out.Error, out.Message)
}

// maxFrameDepth bounds nesting of cross-origin frames, against pages that
// nest frames without end.
const maxFrameDepth = 8

// spliceFrames replaces each frame line of out by the outline of that
// frame's content, indented to the line.
func (s *session) spliceFrames(ctx context.Context, w *world, out walkOut, req engine.SnapshotRequest, depth int) (string, error) {
	return spliceFrames(out, func(idx int) (string, error) { return s.frameText(ctx, w, idx, req, depth) })
}

// spliceFrames replaces each frame line of out by what frame answers for
// that frame's index, indented to the line.
func spliceFrames(out walkOut, frame func(idx int) (string, error)) (string, error) {
	if out.Frames == 0 {
		return out.Text, nil
	}
	lines := strings.Split(out.Text, "\n")
	var b strings.Builder
	for i, line := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		m := frameLine.FindStringSubmatch(line)
		if m == nil {
			b.WriteString(line)
			continue
		}
		idx, _ := strconv.Atoi(m[2])
		text, err := frame(idx)
		if err != nil {
			return "", err
		}
		for j, l := range strings.Split(text, "\n") {
			if j > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(m[1])
			b.WriteString(l)
		}
	}
	return b.String(), nil
}

// frameText walks the content of the idx-th cross-origin frame the walk of
// world parent found. A frame that cannot be walked reads as a line saying
// why, so that one broken frame does not fail the page's snapshot.
func (s *session) frameText(ctx context.Context, parent *world, idx int, req engine.SnapshotRequest, depth int) (string, error) {
	if depth >= maxFrameDepth {
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
		return "- text: (frame not reachable: " + err.Error() + ")", nil
	}
	if w.t != parent.t {
		_ = keepAX(ctx, w.t, "")
		defer s.releaseObjects(w.t)
	} else {
		_ = keepAX(ctx, w.t, w.frameID)
	}
	args := walkArgs{Prefix: w.alias, Next: s.refs.next, Depth: req.Depth, InteractiveOnly: req.InteractiveOnly}
	var out walkOut
	if err := s.walk(ctx, w, args, &out); err != nil {
		return "- text: (frame not reachable: " + err.Error() + ")", nil
	}
	if out.Error != "" {
		return "", walkErr(out, engine.Target{})
	}
	s.refs.next = max(s.refs.next, out.Next)
	return s.spliceFrames(ctx, w, out, req, depth+1)
}

// truncateOutline cuts text at the last line boundary within max characters and
// says so, and how to ask for less.
func truncateOutline(text string, max int) (string, bool) {
	if max <= 0 || len(text) <= max {
		return text, false
	}
	cut := strings.LastIndexByte(text[:max], '\n')
	if cut < 0 {
		cut = max
	}
	return text[:cut] + fmt.Sprintf("\n[... truncated: showing %d of %d characters. Narrow it with selector or ref (a subtree), depth, or interactiveOnly:true, or raise maxChars.]", cut, len(text)), true
}

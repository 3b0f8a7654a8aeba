package cdp

import (
	"context"

	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/page"
)

// docViews is engine/page's Views, named here because session.go imports
// cdproto's page package.
type docViews = page.Views

// tracked reports whether a snapshot for req is a walk of the whole page,
// which becomes the agent's view of the document for Changes.
func tracked(req engine.SnapshotRequest) bool {
	return req.Target == (engine.Target{}) && req.Depth == 0 && !req.InteractiveOnly
}

// Changes compares the tab's page with the agent's last view of its
// document (engine/page's ChangesOf): a probe in browsermcp's world of the
// top document answers at once when the page recorded nothing since; else
// the page is walked as Snapshot walks it, frames and all.
func (s *session) Changes(ctx context.Context, req engine.ChangesRequest) (engine.ChangesResult, error) {
	var res engine.ChangesResult
	err := s.run(ctx, "read the page's changes", func(ctx context.Context, t *chromedp.Target) error {
		w, err := s.preparePage(ctx, t)
		if err != nil {
			return err
		}
		res, err = page.ChangesOf(ctx, &s.views, changeWalker{s, t, w}, req)
		return err
	})
	return res, err
}

// changeWalker walks one tab for ChangesOf.
type changeWalker struct {
	s *session
	t *chromedp.Target
	w *world
}

func (c changeWalker) Probe(ctx context.Context) (page.Probe, bool, error) {
	var p *page.Probe
	if err := c.s.evalIn(ctx, c.w, page.ProbeScript, &p); err != nil {
		return page.Probe{}, false, err
	}
	if p == nil {
		return page.Probe{}, false, nil
	}
	return *p, true, nil
}

func (c changeWalker) Walk(ctx context.Context, interactiveOnly, fresh bool) (page.Walked, error) {
	req := engine.SnapshotRequest{InteractiveOnly: interactiveOnly}
	args := page.SnapshotArgs{Next: c.s.refs.next, InteractiveOnly: interactiveOnly, Track: tracked(req), Fresh: fresh}
	c.s.freshWalk = fresh
	defer func() { c.s.freshWalk = false }()
	var out page.SnapshotOutcome
	if err := c.s.walk(ctx, c.w, args, &out); err != nil {
		return page.Walked{}, err
	}
	if err := page.SnapshotError(out, engine.Target{}); err != nil {
		return page.Walked{}, err
	}
	c.s.refs.next = max(c.s.refs.next, out.Next)
	if out.Frames > 0 {
		defer c.s.releaseObjects(c.t)
	}
	text, err := c.s.spliceFrames(ctx, c.w, out, req, 0)
	if err != nil {
		return page.Walked{}, err
	}
	return page.Walked{Text: text, Doc: out.Doc, Gen: out.Gen, Frames: out.Frames, URL: out.URL, Title: out.Title}, nil
}

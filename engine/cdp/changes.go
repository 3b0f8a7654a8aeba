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

// Changes compares the tab's page with the agent's last view of its
// document (engine/page's ChangesOf) in one walk in browsermcp's world of
// the top document, which answers at once when the page recorded nothing
// since that view, and else walks what changed; cross-origin frames are
// walked as Snapshot walks them.
func (s *session) Changes(ctx context.Context, req engine.ChangesRequest) (engine.ChangesResult, error) {
	var res engine.ChangesResult
	err := s.run(ctx, "read the page's changes", func(ctx context.Context, t *chromedp.Target) error {
		// The world of the document the last call walked serves again
		// while the tab shows that document, saving the round trip that
		// would ask for it: a world gone with its document is made anew
		// by evalIn.
		w := s.changesWorld
		if doc := s.docKey(); w == nil || w.t != t || s.changesDoc != doc {
			var err error
			if w, err = s.preparePage(ctx, t); err != nil {
				return err
			}
			s.changesWorld, s.changesDoc = w, doc
		}
		var err error
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

func (c changeWalker) Walk(ctx context.Context, a page.WalkArgs) (page.Walked, error) {
	args := a.Args(c.s.refs.next)
	c.s.freshWalk = a.Fresh
	defer func() { c.s.freshWalk = false }()
	var out page.SnapshotOutcome
	if err := c.s.walk(ctx, c.w, args, &out); err != nil {
		return page.Walked{}, err
	}
	if err := page.SnapshotError(out, engine.Target{}); err != nil {
		return page.Walked{}, err
	}
	c.s.refs.next = max(c.s.refs.next, out.Next)
	res := out.Walked()
	if out.Clean || out.Patch != nil {
		return res, nil
	}
	if out.Frames > 0 {
		defer c.s.releaseObjects(c.t)
	}
	text, err := c.s.spliceFrames(ctx, c.w, out, engine.SnapshotRequest{InteractiveOnly: a.InteractiveOnly}, 0)
	if err != nil {
		return page.Walked{}, err
	}
	res.Text = text
	return res, nil
}

package pw

import (
	"context"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/page"
)

// tracked reports whether a snapshot for req is a walk of the whole page,
// which becomes the agent's view of the document for Changes.
func tracked(req engine.SnapshotRequest) bool {
	return req.Target == (engine.Target{}) && req.Depth == 0 && !req.InteractiveOnly
}

// Changes compares the tab's page with the agent's last view of its
// document (engine/page's ChangesOf), as engine/cdp does, in one walk of
// the main frame that answers at once when the page recorded nothing since
// that view; cross-origin frames are walked as Snapshot walks them.
func (s *session) Changes(ctx context.Context, req engine.ChangesRequest) (engine.ChangesResult, error) {
	if err := s.alive(); err != nil {
		return engine.ChangesResult{}, err
	}
	return page.ChangesOf(ctx, &s.views, changeWalker{s}, req)
}

// changeWalker walks one tab for ChangesOf.
type changeWalker struct{ s *session }

func (c changeWalker) Walk(ctx context.Context, a page.WalkArgs) (page.Walked, error) {
	s := c.s
	s.keepAX(ctx)
	req := engine.SnapshotRequest{InteractiveOnly: a.InteractiveOnly}
	refs := s.sh.refs
	args := page.SnapshotArgs{Next: refs.next, InteractiveOnly: a.InteractiveOnly, MaxText: a.MaxText, Track: tracked(req), Fresh: a.Fresh, Doc: a.Doc, Base: a.Base}
	s.freshWalk = a.Fresh
	defer func() { s.freshWalk = false }()
	f := s.page.MainFrame()
	out, err := s.walk(ctx, f, args, "")
	if err != nil {
		return page.Walked{}, err
	}
	if err := page.SnapshotError(out, engine.Target{}); err != nil {
		return page.Walked{}, err
	}
	refs.next = max(refs.next, out.Next)
	res := page.Walked{Clean: out.Clean, Patch: out.Patch, Transient: out.Transient, Doc: out.Doc, Gen: out.Gen, Frames: out.Frames, URL: out.URL, Title: out.Title}
	if out.Clean || out.Patch != nil {
		return res, nil
	}
	text, err := s.splice(ctx, f, out, req, 0)
	if err != nil {
		return page.Walked{}, err
	}
	res.Text = text
	return res, nil
}

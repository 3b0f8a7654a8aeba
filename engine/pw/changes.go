package pw

import (
	"context"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/page"
)

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
	refs := s.sh.refs
	args := a.Args(refs.next)
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
	res := out.Walked()
	if out.Clean || out.Patch != nil {
		return res, nil
	}
	text, err := s.splice(ctx, f, out, engine.SnapshotRequest{InteractiveOnly: a.InteractiveOnly}, 0)
	if err != nil {
		return page.Walked{}, err
	}
	res.Text = text
	return res, nil
}

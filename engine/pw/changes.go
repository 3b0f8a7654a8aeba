package pw

import (
	"context"
	"encoding/json"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/page"
)

// tracked reports whether a snapshot for req is a walk of the whole page,
// which becomes the agent's view of the document for Changes.
func tracked(req engine.SnapshotRequest) bool {
	return req.Target == (engine.Target{}) && req.Depth == 0 && !req.InteractiveOnly
}

// Changes compares the tab's page with the agent's last view of its
// document (engine/page's ChangesOf), as engine/cdp does: a probe of the
// main frame answers at once when the page recorded nothing since; else
// the page is walked as Snapshot walks it, frames and all.
func (s *session) Changes(ctx context.Context, req engine.ChangesRequest) (engine.ChangesResult, error) {
	if err := s.alive(); err != nil {
		return engine.ChangesResult{}, err
	}
	return page.ChangesOf(ctx, &s.views, changeWalker{s}, req)
}

// changeWalker walks one tab for ChangesOf.
type changeWalker struct{ s *session }

func (c changeWalker) Probe(ctx context.Context) (page.Probe, bool, error) {
	v, err := call(ctx, func() (any, error) { return c.s.page.MainFrame().Evaluate(page.ProbeScript) }, nil)
	if err != nil {
		if isContextGone(err) && ctx.Err() == nil {
			return page.Probe{}, false, nil // a new document: nothing to compare
		}
		return page.Probe{}, false, c.s.classify(err, "read the page's changes")
	}
	if v == nil {
		return page.Probe{}, false, nil
	}
	var p page.Probe
	b, _ := json.Marshal(v)
	if err := json.Unmarshal(b, &p); err != nil {
		return page.Probe{}, false, engine.Wrap(engine.BrowserError, err, "unexpected change probe")
	}
	return p, true, nil
}

func (c changeWalker) Walk(ctx context.Context, interactiveOnly, fresh bool) (page.Walked, error) {
	s := c.s
	s.keepAX(ctx)
	req := engine.SnapshotRequest{InteractiveOnly: interactiveOnly}
	refs := s.sh.refs
	args := page.SnapshotArgs{Next: refs.next, InteractiveOnly: interactiveOnly, Track: tracked(req), Fresh: fresh}
	s.freshWalk = fresh
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
	text, err := s.splice(ctx, f, out, req, 0)
	if err != nil {
		return page.Walked{}, err
	}
	return page.Walked{Text: text, Doc: out.Doc, Gen: out.Gen, Frames: out.Frames, URL: out.URL, Title: out.Title}, nil
}

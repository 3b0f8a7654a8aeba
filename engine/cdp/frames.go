package cdp

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/page"
)

// Frames. Scripts run in browsermcp's isolated world of a document (see
// pageWorld). The page's world reaches the same-origin frames inside it
// directly, so their elements live in the page's registry and their points
// are translated in the page (engine/page's element script climbs
// frameElement). A frame whose document the page cannot touch (cross-origin) gets a world of its
// own: the isolated world of that frame, in the same renderer, or, for an
// out-of-process iframe (another site), in the iframe's own target, which
// the session attaches to on first use. Each such world has an alias, fK,
// that prefixes its refs and stays with the frame id for the session; the
// tab whose page holds the frame keeps the world.

// world is one JavaScript world that snapshots walk and refs live in.
type world struct {
	alias   string      // "" for the page
	frameID cdp.FrameID // "" for the page
	t       *chromedp.Target
	ctxID   runtime.ExecutionContextID // browsermcp's isolated world in the frame
	parent  *world
}

// frameTarget is an attached out-of-process iframe.
type frameTarget struct {
	t        *chromedp.Target
	cancel   context.CancelFunc
	detached <-chan struct{}
}

// isolatedWorldName names the worlds browsermcp creates in cross-origin
// frames; Chromium reuses a world of the same name in a frame.
const isolatedWorldName = "browsermcp"

// worldFor returns the world of a ref prefix in this tab, nil when the tab
// has none (the alias is another tab's, or unknown).
func (s *session) worldFor(ctx context.Context, t *chromedp.Target, alias string) (*world, error) {
	if alias == "" {
		return pageWorld(ctx, t)
	}
	return s.worlds[alias], nil
}

// pageWorld returns browsermcp's isolated world in the top document of t.
// Snapshots, refs and element checks run there, never in the page's own
// world, so that a page cannot reach the ref registry or change what the
// scripts see (its own Element.prototype, Map or WeakRef). Chromium gives
// back the same world, registry included, while the document lives.
func pageWorld(ctx context.Context, t *chromedp.Target) (*world, error) {
	id, err := isolatedWorld(ctx, t, cdp.FrameID(t.TargetID))
	if err != nil {
		return nil, err
	}
	return &world{t: t, ctxID: id}, nil
}

// isolatedWorld returns the execution context of browsermcp's world in the
// current document of frame id of t.
func isolatedWorld(ctx context.Context, t *chromedp.Target, id cdp.FrameID) (runtime.ExecutionContextID, error) {
	res, err := cdp.Call(ctx, t, cdppage.CreateIsolatedWorld, cdppage.CreateIsolatedWorldParams{FrameID: id, WorldName: isolatedWorldName})
	if err != nil {
		return 0, err
	}
	return res.ExecutionContextID, nil
}

// frameWorld returns the world for the content of frame id, whose owner
// element lives in parent. The world is made anew on each call: a frame
// that navigated has a new document, and maybe a new process.
func (s *session) frameWorld(ctx context.Context, parent *world, id cdp.FrameID) (*world, error) {
	alias := s.refs.aliasFor(id)
	w := &world{alias: alias, frameID: id, parent: parent}
	if s.st.isOOPIF(id) {
		ft, err := s.attachFrame(ctx, target.ID(id))
		if err != nil {
			return nil, err
		}
		w.t = ft
	} else {
		w.t = parent.t
	}
	ctxID, err := isolatedWorld(ctx, w.t, id)
	if err != nil {
		return nil, err
	}
	w.ctxID = ctxID
	s.worlds[alias] = w
	return w, nil
}

// attachFrame attaches to an out-of-process iframe's target, once.
func (s *session) attachFrame(ctx context.Context, id target.ID) (*chromedp.Target, error) {
	s.ftMu.Lock()
	ft := s.frameTargets[id]
	s.ftMu.Unlock()
	if ft != nil {
		select {
		case <-ft.detached:
			ft.cancel()
			s.ftMu.Lock()
			delete(s.frameTargets, id)
			s.ftMu.Unlock()
		default:
			return ft.t, nil
		}
	}
	fctx, cancel := chromedp.NewContext(s.tab, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel(),
		chromedp.WithListener(s.st.listener(id)))
	// The first Do binds the target's event loop to its context, so it runs
	// on fctx, never on the caller's context.
	done := make(chan error, 1)
	go func() { done <- chromedp.Do(fctx) }()
	select {
	case err := <-done:
		if err != nil {
			cancel()
			return nil, fmt.Errorf("attach to the frame %s: %w", id, err)
		}
	case <-ctx.Done():
		cancel()
		return nil, ctx.Err()
	}
	t := chromedp.FromContext(fctx).Target
	det, err := chromedp.Detached(fctx)
	if err != nil {
		cancel()
		return nil, err
	}
	s.ftMu.Lock()
	s.frameTargets[id] = &frameTarget{t: t, cancel: cancel, detached: det}
	s.ftMu.Unlock()
	return t, nil
}

// dialogTarget returns the target that must answer a dialog opened by src.
func (s *session) dialogTarget(src target.ID) *chromedp.Target {
	if src != "" {
		s.ftMu.Lock()
		defer s.ftMu.Unlock()
		if ft := s.frameTargets[src]; ft != nil {
			return ft.t
		}
		return nil
	}
	return chromedp.FromContext(s.tab).Target
}

// keepAX makes the renderer keep its accessibility tree for the document
// of frame (the target's main frame when empty). Element.computedRole and
// computedName build and throw away that tree on every call unless
// something holds it; a depth-1 Accessibility.getFullAXTree attaches
// DevTools to it until the document goes away, for about 2 ms.
func keepAX(ctx context.Context, t *chromedp.Target, frame cdp.FrameID) error {
	_, err := cdp.Call(ctx, t, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{Depth: new(int64(1)), FrameID: frame})
	return err
}

// toPage turns a point in world w's top window into a point in the page,
// climbing the owner iframes of each cross-origin frame and hit-testing
// them, so that a click there reaches the frame and not what covers it.
// r holds the point in w's top window and becomes the point in the page,
// with what receives a forced click there (see page.ElementCheck.Through).
func (s *session) toPage(ctx context.Context, w *world, r *page.ElementCheck, force bool) error {
	for ; w != nil && w.frameID != ""; w = w.parent {
		p := w.parent
		owner, err := cdp.Call(ctx, p.t, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: w.frameID})
		if err != nil {
			return err
		}
		node, err := cdp.Call(ctx, p.t, dom.ResolveNode, dom.ResolveNodeParams{
			BackendNodeID: owner.BackendNodeID, ExecutionContextID: p.ctxID, ObjectGroup: objectGroup,
		})
		if err != nil {
			return err
		}
		var c page.ElementCheck
		args := map[string]any{"op": "frame", "x": r.X, "y": r.Y, "force": force}
		if err := callOn(ctx, p.t, node.Object.ObjectID, page.ElementScript(), args, &c); err != nil {
			return err
		}
		if err := page.ElementError(c, engine.Target{}, 0); err != nil {
			return err
		}
		r.Through(c)
	}
	return nil
}

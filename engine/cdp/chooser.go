package cdp

import (
	"context"
	"errors"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
)

// A native file chooser. Every page of a session intercepts its file
// choosers (Page.setInterceptFileChooserDialog, in openTab): the browser
// shows none and reports Page.fileChooserOpened with the input's node
// instead. The chooser then waits, as a dialog does: the action that
// opened it reports it, every other page call answers FILE_CHOOSER_OPEN,
// and Upload without a target fills it (DOM.setFileInputFiles, which fires
// input and change) or cancels it. A new document in the tab drops it, as
// the browser drops a chooser whose page went away. A chooser that no
// <input type=file> opened (showOpenFilePicker) has no node to fill and
// is not kept.

// fileChooser is a chooser waiting for Upload.
type fileChooser struct {
	info engine.FileChooser
	node cdp.BackendNodeID
}

// interceptChoosers makes the page report its file choosers instead of
// opening them.
func interceptChoosers(ctx context.Context, t *chromedp.Target) error {
	_, err := cdp.Call(ctx, t, page.SetInterceptFileChooserDialog, page.SetInterceptFileChooserDialogParams{Enabled: true})
	return err
}

// chooserOpened records a chooser; it runs under s.mu.
func (s *pageState) chooserOpened(ev *page.EventFileChooserOpened) {
	if ev.BackendNodeID == 0 {
		return
	}
	s.chooser = &fileChooser{info: engine.FileChooser{Multiple: ev.Mode == page.FileChooserOpenedModeSelectMultiple}, node: ev.BackendNodeID}
	s.choosers++
}

// chooserSince returns the chooser an action opened after m, if it still
// waits.
func (s *pageState) chooserSince(m mark) *engine.FileChooser {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.choosers > m.choosers && s.chooser != nil {
		fc := s.chooser.info
		return &fc
	}
	return nil
}

// pendingChooser returns the chooser waiting now, or nil.
func (s *pageState) pendingChooser() *fileChooser {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.chooser
}

// dropChooser forgets the waiting chooser: the agent navigates away.
func (s *pageState) dropChooser() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.chooser = nil
}

// chooserErr fails with FILE_CHOOSER_OPEN while a chooser waits.
func (s *session) chooserErr() error {
	if fc := s.st.pendingChooser(); fc != nil {
		return engine.FileChooserPending(fc.info)
	}
	return nil
}

// answerChooser fills the waiting chooser with req.Files, or cancels it
// when there are none, then waits for what that started, as an action.
func (s *session) answerChooser(ctx context.Context, req engine.UploadRequest) (engine.ActionResult, error) {
	var res engine.ActionResult
	err := s.runAny(ctx, "answer the file chooser", func(ctx context.Context, t *chromedp.Target) error {
		if err := s.jsDialogErr(); err != nil {
			return err
		}
		fc := s.st.pendingChooser()
		if fc == nil {
			return engine.NoFileChooser()
		}
		if !fc.info.Multiple && len(req.Files) > 1 {
			return engine.Errorf(engine.InvalidParameters, "the file chooser takes one file, got %d", len(req.Files)).With("field", "files")
		}
		m := s.st.mark()
		var err error
		res, err = s.act(ctx, t, m, func(ctx context.Context) error {
			if len(req.Files) > 0 {
				_, err := cdp.Call(ctx, t, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: req.Files, BackendNodeID: fc.node})
				return err
			}
			// Cancelled: the input hears it as from a user who closed
			// the chooser.
			obj, err := cdp.Call(ctx, t, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: fc.node})
			if err != nil {
				return err
			}
			defer cdp.Call(ctx, t, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: obj.Object.ObjectID})
			return callOn(ctx, t, obj.Object.ObjectID, `function() { this.dispatchEvent(new Event("cancel", {bubbles: true})); }`, nil, nil)
		})
		if err != nil {
			var ce *cdproto.Error
			if errors.As(err, &ce) && s.st.pendingChooser() == fc {
				// The browser no longer knows the input (it was
				// collected, or its document went): nothing can fill it.
				s.st.dropChooser()
				return engine.Wrap(engine.ElementNotFound, err, "the file chooser's input is gone from the page: "+err.Error()).With("reason", "stale_ref")
			}
			return err
		}
		s.st.mu.Lock()
		if s.st.chooser == fc {
			s.st.chooser = nil
		}
		s.st.mu.Unlock()
		return nil
	})
	return res, err
}

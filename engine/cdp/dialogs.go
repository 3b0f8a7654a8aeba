package cdp

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
)

// A JavaScript dialog stops the page's event loop: Input.dispatchMouseEvent,
// Runtime.evaluate and Page.navigate do not answer until it closes. So every
// call that can open one runs through raceDialog, which returns as soon as
// a dialog opens, and every page call first checks that none is open.

// dialogErr fails with DIALOG_OPEN while a dialog waits for handle_dialog,
// and with FILE_CHOOSER_OPEN while a file chooser waits for Upload: both
// block the page's calls.
func (s *session) dialogErr() error {
	if err := s.jsDialogErr(); err != nil {
		return err
	}
	return s.chooserErr()
}

// jsDialogErr fails with DIALOG_OPEN while a dialog waits for
// handle_dialog.
func (s *session) jsDialogErr() error {
	d := s.st.openDialog()
	if d == nil {
		return nil
	}
	return engine.Errorf(engine.DialogOpen, "a %s dialog is open: %q", d.Type, d.Message).With("dialog", d)
}

// raceDialog runs f, which may block on a dialog it opens. It returns when f
// returns, or with opened=true as soon as a dialog opens after m. f keeps
// running on the session's context after a dialog opened, so that the
// blocked protocol call completes once the dialog is handled.
func (s *session) raceDialog(ctx context.Context, m mark, f func(ctx context.Context) error) (opened bool, err error) {
	fctx, cancel := context.WithCancel(s.tab)
	stop := context.AfterFunc(ctx, cancel)
	done := make(chan error, 1)
	go func() { done <- f(fctx) }()
	for {
		d, ch := s.st.dialogAfter(m)
		if d != nil {
			// Let f finish in the background: it ends when the dialog is
			// handled, or when the session closes.
			stop()
			go func() { <-done; cancel() }()
			return true, nil
		}
		select {
		case err := <-done:
			stop()
			cancel()
			return false, err
		case <-ch:
		case <-ctx.Done():
			stop()
			cancel()
			return false, ctx.Err()
		}
	}
}

// applyPolicy is the dialog hook for the accept and dismiss policies. It
// runs on the reader goroutine, so it hands the protocol call to another.
func (s *session) applyPolicy(policy engine.DialogPolicy) func(d *engine.Dialog) {
	if policy != engine.DialogsAccept && policy != engine.DialogsDismiss {
		return nil
	}
	accept := policy == engine.DialogsAccept
	return func(d *engine.Dialog) {
		d.Handled = "dismissed"
		if accept {
			d.Handled = "accepted"
		}
		src := s.st.dialogSrc // the hook runs under s.st.mu
		go func() {
			ctx, cancel := context.WithTimeout(s.tab, engine.BackgroundTimeout)
			defer cancel()
			t := s.dialogTarget(src)
			if t == nil {
				return
			}
			_, _ = cdp.Call(ctx, t, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: accept})
		}()
	}
}

// HandleDialog closes the open dialog and waits for what closing it
// started: a navigation (beforeunload, or a handler that navigates), or
// another dialog.
func (s *session) HandleDialog(ctx context.Context, req engine.DialogRequest) (engine.ActionResult, error) {
	var res engine.ActionResult
	err := s.runAny(ctx, "handle the dialog", func(ctx context.Context, t *chromedp.Target) error {
		d := s.st.openDialog()
		if d == nil {
			return engine.Errorf(engine.NoDialog, "no dialog is open")
		}
		s.st.mu.Lock()
		src := s.st.dialogSrc
		s.st.mu.Unlock()
		dt := s.dialogTarget(src)
		if dt == nil {
			dt = t
		}
		m := s.st.mark()
		p := page.HandleJavaScriptDialogParams{Accept: req.Accept}
		if req.PromptText != nil {
			p.PromptText = *req.PromptText
		}
		if _, err := cdp.Call(ctx, dt, page.HandleJavaScriptDialog, p); err != nil {
			return err
		}
		// The closed event arrives before the page runs on; wait for it so
		// that settle's round trip does not race the old dialog.
		wctx, cancel := context.WithTimeout(ctx, engine.CallGrace)
		_ = s.st.waitFor(wctx, func() bool { return s.st.dialog == nil || s.st.dialogs > m.dialogs })
		cancel()
		var err error
		res, err = s.settle(ctx, t, m, req.NavigationTimeout)
		return err
	})
	return res, err
}

// act runs a user-input action that may start a navigation, network
// requests or a dialog: it returns as soon as a dialog opens (reporting it),
// and otherwise waits for what the action started.
func (s *session) act(ctx context.Context, t *chromedp.Target, m mark, input func(ctx context.Context) error) (engine.ActionResult, error) {
	return s.actFor(ctx, t, m, engine.DefaultNavigationTimeout, input)
}

// actFor is act for an action whose request bounds the wait for a
// navigation it starts.
func (s *session) actFor(ctx context.Context, t *chromedp.Target, m mark, navTimeout time.Duration, input func(ctx context.Context) error) (engine.ActionResult, error) {
	opened, err := s.raceDialog(ctx, m, input)
	if err != nil {
		return engine.ActionResult{}, err
	}
	if opened {
		return engine.ActionResult{Dialog: s.st.dialogSince(m)}, nil
	}
	res, err := s.settle(ctx, t, m, navTimeout)
	if err == nil {
		res.FileChooser = s.st.chooserSince(m)
	}
	return res, err
}

package pw

import (
	"context"
	"errors"

	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine"
)

// A JavaScript dialog stops the page: Playwright holds every dialog for the
// page's dialog listener, and the action that opened it does not return
// until it is closed. So, as in engine/cdp, the actions that can open one
// run through withDialogs, which returns as soon as a dialog opens, and
// every page call first checks that none is open (alive). Sessions of this
// engine keep dialogs open for HandleDialog (the manual policy).

// openDialog is a dialog waiting for HandleDialog.
type openDialog struct {
	info engine.Dialog
	d    playwright.Dialog
}

// watchDialogs records the page's dialogs. Under the accept and dismiss
// policies (for crawlers) it answers each at once and only reports it.
func (st *pageState) watchDialogs(p playwright.Page, policy engine.DialogPolicy) {
	p.OnDialog(func(d playwright.Dialog) {
		info := engine.Dialog{Type: engine.DialogType(d.Type()), Message: d.Message(), DefaultValue: d.DefaultValue()}
		if policy == engine.DialogsAccept || policy == engine.DialogsDismiss {
			info.Handled = "dismissed"
			answer := d.Dismiss
			if policy == engine.DialogsAccept {
				info.Handled = "accepted"
				answer = func() error { return d.Accept() }
			}
			st.update(func() {
				st.lastDialog = &info
				st.dialogs++
			})
			go answer()
			return
		}
		st.update(func() {
			st.dialog = &openDialog{info: info, d: d}
			st.lastDialog = &info
			st.dialogs++
		})
	})
}

// dialogErr fails with DIALOG_OPEN while a dialog waits for HandleDialog.
func (st *pageState) dialogErr() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.dialog == nil {
		return nil
	}
	d := st.dialog.info
	return engine.Errorf(engine.DialogOpen, "a %s dialog is open: %q", d.Type, d.Message).With("dialog", &d).
		Suggest("Use handle_dialog to accept or dismiss it first.")
}

// waitingDialog returns the dialog waiting for HandleDialog, or nil.
func (st *pageState) waitingDialog() *engine.Dialog {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.dialog == nil {
		return nil
	}
	d := st.dialog.info
	return &d
}

// dialogSince returns the latest dialog opened after m, or nil.
func (st *pageState) dialogSince(m mark) *engine.Dialog {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.dialogs > m.dialogs && st.lastDialog != nil {
		d := *st.lastDialog
		return &d
	}
	return nil
}

// withDialogs runs an action and returns as soon as a dialog it opened is
// waiting, with the dialog in the result: the action succeeded, and its
// blocked Playwright call finishes in the background once the dialog is
// handled.
func (s *session) withDialogs(ctx context.Context, f func(context.Context) (engine.ActionResult, error)) (engine.ActionResult, error) {
	m := s.st.mark()
	dctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			s.st.mu.Lock()
			opened := s.st.dialogs > m.dialogs && s.st.dialog != nil
			ch := s.st.changed
			s.st.mu.Unlock()
			if opened {
				cancel()
				return
			}
			select {
			case <-ch:
			case <-done:
				return
			}
		}
	}()
	res, err := f(dctx)
	var blocked *engine.Error
	if errors.As(err, &blocked) && blocked.Code == engine.DialogOpen {
		return res, err // stopped before anything was done
	}
	if d := s.st.dialogSince(m); d != nil {
		if err != nil && ctx.Err() == nil {
			res, err = engine.ActionResult{URL: s.page.URL()}, nil
		}
		res.Dialog = d
	}
	if err == nil {
		res.FileChooser = s.st.chooserSince(m)
	}
	return res, err
}

// HandleDialog closes the open dialog and waits for what closing it
// started: a navigation, network requests, or another dialog.
func (s *session) HandleDialog(ctx context.Context, req engine.DialogRequest) (engine.ActionResult, error) {
	if err := s.aliveBrowser(); err != nil {
		return engine.ActionResult{}, err
	}
	s.st.mu.Lock()
	od := s.st.dialog
	s.st.mu.Unlock()
	if od == nil {
		return engine.ActionResult{}, engine.Errorf(engine.NoDialog, "no dialog is open")
	}
	return s.withDialogs(ctx, func(ctx context.Context) (engine.ActionResult, error) {
		m := s.st.mark()
		err := do(ctx, func() error {
			if !req.Accept {
				return od.d.Dismiss()
			}
			if req.PromptText != nil {
				return od.d.Accept(*req.PromptText)
			}
			return od.d.Accept()
		})
		s.st.update(func() {
			if s.st.dialog == od {
				s.st.dialog = nil
			}
		})
		if err != nil {
			return engine.ActionResult{}, s.classify(err, "handle the dialog")
		}
		return s.settle(ctx, m, req.NavigationTimeout)
	})
}

// The actions that can open a dialog, through withDialogs.

func (s *session) Click(ctx context.Context, req engine.ClickRequest) (engine.ActionResult, error) {
	return s.withDialogs(ctx, func(ctx context.Context) (engine.ActionResult, error) { return s.clickAction(ctx, req) })
}

func (s *session) Type(ctx context.Context, req engine.TypeRequest) (engine.ActionResult, error) {
	return s.withDialogs(ctx, func(ctx context.Context) (engine.ActionResult, error) { return s.typeAction(ctx, req) })
}

func (s *session) Hover(ctx context.Context, req engine.HoverRequest) (engine.ActionResult, error) {
	return s.withDialogs(ctx, func(ctx context.Context) (engine.ActionResult, error) { return s.hoverAction(ctx, req) })
}

func (s *session) Press(ctx context.Context, req engine.PressRequest) (engine.ActionResult, error) {
	return s.withDialogs(ctx, func(ctx context.Context) (engine.ActionResult, error) { return s.pressAction(ctx, req) })
}

func (s *session) Drag(ctx context.Context, req engine.DragRequest) (engine.ActionResult, error) {
	return s.withDialogs(ctx, func(ctx context.Context) (engine.ActionResult, error) { return s.dragAction(ctx, req) })
}

func (s *session) Mouse(ctx context.Context, req engine.MouseRequest) (engine.ActionResult, error) {
	return s.withDialogs(ctx, func(ctx context.Context) (engine.ActionResult, error) { return s.mouseAction(ctx, req) })
}

// Navigate loads a URL; a dialog the new page opens while loading (which
// holds its load event) ends the wait, and comes back in the result.
func (s *session) Navigate(ctx context.Context, req engine.NavigateRequest) (engine.NavigateResult, error) {
	var nav engine.NavigateResult
	res, err := s.withDialogs(ctx, func(ctx context.Context) (engine.ActionResult, error) {
		var err error
		nav, err = s.navigateAction(ctx, req)
		return engine.ActionResult{}, err
	})
	if res.Dialog != nil && err == nil {
		if nav.URL == "" {
			nav.URL = s.page.URL()
		}
		nav.Dialog = res.Dialog
	}
	return nav, err
}

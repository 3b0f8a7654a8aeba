package cdp

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit"
)

// History goes back or forward one entry and waits for the page to load.
func (s *session) History(ctx context.Context, delta int, timeout time.Duration) (engine.NavigateResult, error) {
	return s.reloadLike(ctx, "go through history", timeout, func(ctx context.Context, t *chromedp.Target) error {
		h, err := kit.RetryDetached(ctx, func() (page.GetNavigationHistoryResult, error) {
			return cdp.Call(ctx, t, page.GetNavigationHistory, cdp.Empty{})
		})
		if err != nil {
			return err
		}
		i := int(h.CurrentIndex) + delta
		if i < 0 || i >= len(h.Entries) {
			dir := "back"
			if delta > 0 {
				dir = "forward"
			}
			return engine.Errorf(engine.NavigationFailed, "there is no page to go %s to", dir).
				With("reason", "no_history").Suggest("Use navigate to open a URL.")
		}
		_, err = kit.RetryDetached(ctx, func() (struct{}, error) {
			return cdp.Call(ctx, t, page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: h.Entries[i].ID})
		})
		return err
	})
}

// Reload reloads the page and waits for it to load.
func (s *session) Reload(ctx context.Context, ignoreCache bool, timeout time.Duration) (engine.NavigateResult, error) {
	return s.reloadLike(ctx, "reload", timeout, func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.Reload, page.ReloadParams{IgnoreCache: &ignoreCache})
		return err
	})
}

// reloadLike runs an action that navigates the page, then waits for the
// navigation it started, as after a click.
func (s *session) reloadLike(ctx context.Context, what string, timeout time.Duration, act func(context.Context, *chromedp.Target) error) (engine.NavigateResult, error) {
	// Leaving the page drops a file chooser it left waiting.
	s.st.dropChooser()
	var res engine.NavigateResult
	err := s.run(ctx, what, func(ctx context.Context, t *chromedp.Target) error {
		m := s.st.mark()
		// Leaving the page can open a beforeunload dialog.
		opened, err := s.raceDialog(ctx, m, func(ctx context.Context) error { return act(ctx, t) })
		if err != nil {
			return err
		}
		if opened {
			s.st.mu.Lock()
			res = engine.NavigateResult{URL: s.st.url}
			s.st.mu.Unlock()
			res.Dialog = s.st.dialogSince(m)
			return nil
		}
		if _, err := s.settleNavigation(ctx, m, timeout); err != nil {
			return err
		}
		res, err = s.current(ctx, t)
		return err
	})
	return res, err
}

// current describes the page as it is now.
func (s *session) current(ctx context.Context, t *chromedp.Target) (engine.NavigateResult, error) {
	title, err := pageTitle(ctx, t)
	if err != nil {
		return engine.NavigateResult{}, err
	}
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	return engine.NavigateResult{Title: title, URL: s.st.url, Status: s.st.docStatus[s.st.loader].status}, nil
}

// WaitForLoad waits until the current document has reached state.
func (s *session) WaitForLoad(ctx context.Context, state engine.WaitUntil, timeout time.Duration) (engine.NavigateResult, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var res engine.NavigateResult
	err := s.run(ctx, "wait for "+string(state), func(ctx context.Context, t *chromedp.Target) error {
		st, name := s.st, lifecycleName[string(state)]
		wait := func() error { return st.waitFor(ctx, func() bool { return st.lifecycle[st.loader][name] }) }
		if state == engine.WaitNetworkIdle {
			wait = func() error { return s.networkIdle(ctx) }
		}
		if err := wait(); err != nil {
			if ctx.Err() == context.DeadlineExceeded {
				return engine.Errorf(engine.Timeout, "the page did not reach %q within %d ms", state, timeout.Milliseconds()).
					With("state", string(state)).With("timeout", timeout.Milliseconds())
			}
			return err
		}
		var err error
		res, err = s.current(ctx, t)
		return err
	})
	return res, err
}

// networkIdle waits until the document has loaded and no request of the
// page has been in flight for engine.NetworkIdleQuiet. Chromium's own
// networkIdle lifecycle event comes once per document: a request started
// after it (a fetch, a poll) would still be in flight.
func (s *session) networkIdle(ctx context.Context) error {
	st := s.st
	for {
		st.mu.Lock()
		if st.crashed {
			st.mu.Unlock()
			return errCrashed
		}
		loaded := st.lifecycle[st.loader]["load"]
		idle := loaded && len(st.inflight) == 0
		quiet := time.Since(st.lastNet)
		ch := st.changed
		st.mu.Unlock()
		done, wait := kit.NetworkIdleNext(idle, quiet)
		if done {
			return nil
		}
		if err := kit.AwaitChange(ctx, ch, wait); err != nil {
			return err
		}
	}
}

package cdp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Navigate loads a URL in the main frame and waits for the requested
// lifecycle state of the new document.
func (s *session) Navigate(ctx context.Context, req engine.NavigateRequest) (engine.NavigateResult, error) {
	ctx, cancel := context.WithTimeout(ctx, req.Timeout)
	defer cancel()

	if err := s.checkNavigation(req.URL); err != nil {
		return engine.NavigateResult{}, err
	}
	// Leaving the page drops a file chooser it left waiting.
	s.st.dropChooser()
	var res engine.NavigateResult
	err := s.run(ctx, "navigate to "+req.URL, func(ctx context.Context, t *chromedp.Target) error {
		if err := s.dialogErr(); err != nil {
			return err
		}
		// Leaving a page can open a beforeunload dialog, which holds
		// Page.navigate until it is handled.
		m := s.st.mark()
		var nav page.NavigateResult
		opened, err := s.raceDialog(ctx, m, func(ctx context.Context) error {
			var err error
			nav, err = cdp.Call(ctx, t, page.Navigate, page.NavigateParams{URL: req.URL})
			return err
		})
		if opened {
			s.st.mu.Lock()
			res = engine.NavigateResult{URL: s.st.url}
			s.st.mu.Unlock()
			res.Dialog = s.st.dialogSince(m)
			return nil
		}
		if err != nil {
			var ce *cdproto.Error
			if errors.As(err, &ce) {
				return engine.NavigationFailure(req.URL, ce.Message, err)
			}
			return s.navErr(req, err)
		}
		if nav.ErrorText != "" {
			// Page.navigate answers a failed load before the browser's
			// error page commits in its place; the next call (a
			// go_back) would meet the frame between the two ("Not
			// attached to an active page"). The error page is waited
			// for, briefly: a load a policy blocked may commit none.
			if nav.LoaderID != "" {
				wctx, cancel := context.WithTimeout(ctx, errorPageWait)
				_ = s.st.waitFor(wctx, func() bool { return s.st.commits > m.commits })
				cancel()
			}
			if err := s.blockedNavigation(req.URL, nav.ErrorText); err != nil {
				return err
			}
			return engine.NavigationFailure(req.URL, nav.ErrorText, nil)
		}
		if nav.LoaderID != "" {
			if err := s.waitLoaded(ctx, m, lifecycleName[string(req.WaitUntil)]); err != nil {
				return s.navErr(req, err)
			}
		}
		title, err := pageTitle(ctx, t)
		if err != nil {
			return err
		}
		s.st.mu.Lock()
		res = engine.NavigateResult{Title: title, URL: s.st.url, Status: s.st.docStatus[s.st.loader].status}
		s.st.mu.Unlock()
		return nil
	})
	return res, err
}

// errorPageWait bounds the wait for the error page of a failed load.
const errorPageWait = 2 * time.Second

// waitLoaded waits until a main-frame document committed after m has fired
// the lifecycle event name. Page.navigate can answer before the commit, when
// the old document is still current, so the commit count is what tells.
func (s *session) waitLoaded(ctx context.Context, m mark, name string) error {
	st := s.st
	return st.waitFor(ctx, func() bool { return st.commits > m.commits && st.lifecycle[st.loader][name] })
}

func pageTitle(ctx context.Context, t *chromedp.Target) (string, error) {
	var title string
	err := evalJSON(ctx, t, "document.title", &title)
	return title, err
}

// navErr explains a navigation that did not finish.
func (s *session) navErr(req engine.NavigateRequest, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return engine.Wrap(engine.NavigationFailed, err,
			fmt.Sprintf("navigation to %s did not reach %q within %d ms", req.URL, req.WaitUntil, req.Timeout.Milliseconds())).
			With("url", req.URL).With("reason", "timeout").With("timeout", req.Timeout.Milliseconds()).
			Suggest("The page is slow or never finishes loading; raise timeout or use waitUntil: \"domcontentloaded\".")
	}
	return err
}

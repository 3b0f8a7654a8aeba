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

// DefaultNavigationTimeout bounds a navigation when the caller gives none.
const DefaultNavigationTimeout = 30 * time.Second

// Navigate loads a URL in the main frame and waits for the requested
// lifecycle state of the new document.
func (s *session) Navigate(ctx context.Context, req engine.NavigateRequest) (engine.NavigateResult, error) {
	if req.Timeout <= 0 {
		req.Timeout = DefaultNavigationTimeout
	}
	if req.WaitUntil == "" {
		req.WaitUntil = engine.WaitLoad
	}
	ctx, cancel := context.WithTimeout(ctx, req.Timeout)
	defer cancel()

	var res engine.NavigateResult
	err := s.run(ctx, "navigate to "+req.URL, func(ctx context.Context, t *chromedp.Target) error {
		nav, err := cdp.Call(ctx, t, page.Navigate, page.NavigateParams{URL: req.URL})
		if err != nil {
			var ce *cdproto.Error
			if errors.As(err, &ce) {
				return navFailed(req.URL, ce.Message, err).Suggest("Give an absolute URL such as https://example.com/.")
			}
			return s.navErr(req, err)
		}
		if nav.ErrorText != "" {
			return navFailed(req.URL, nav.ErrorText, nil)
		}
		if nav.LoaderID != "" {
			if err := s.waitLoaded(ctx, nav.LoaderID, lifecycleName[string(req.WaitUntil)]); err != nil {
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

// waitLoaded waits until the document of loader has committed and fired the
// lifecycle event name. It waits for that loader, not the current one: the
// reply to Page.navigate can arrive before the commit, while the previous
// document, long loaded, is still current.
func (s *session) waitLoaded(ctx context.Context, loader cdp.LoaderID, name string) error {
	st := s.st
	return st.waitFor(ctx, func() bool { return st.loader == loader && st.lifecycle[loader][name] })
}

func pageTitle(ctx context.Context, t *chromedp.Target) (string, error) {
	var title string
	err := evalJSON(ctx, t, "document.title", &title)
	return title, err
}

func navFailed(url, netErr string, cause error) *engine.Error {
	e := engine.Wrap(engine.NavigationFailed, cause, fmt.Sprintf("navigation to %s failed: %s", url, netErr))
	e.Retryable = netErr != "Cannot navigate to invalid URL"
	return e.With("url", url).With("netError", netErr)
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

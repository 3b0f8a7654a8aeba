package pw

import (
	"context"
	"errors"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit"
)

// History goes back or forward one entry and waits for the page to load.
// Playwright answers a missing entry with no response and no navigation,
// which is engine/cdp's NAVIGATION_FAILED reason no_history.
func (s *session) History(ctx context.Context, delta int, timeout time.Duration) (engine.NavigateResult, error) {
	dir := "back"
	if delta > 0 {
		dir = "forward"
	}
	if s.e.cfg.Browser == Firefox {
		if res, ok, err := s.firefoxStep(ctx, delta, "go "+dir, timeout); ok {
			return res, err
		}
	}
	return s.reloadLike(ctx, "go "+dir, timeout, func(t *float64) (playwright.Response, error) {
		return kit.RetryDetached(ctx, func() (playwright.Response, error) {
			if delta > 0 {
				return s.page.GoForward(playwright.PageGoForwardOptions{WaitUntil: playwright.WaitUntilStateCommit, Timeout: t})
			}
			return s.page.GoBack(playwright.PageGoBackOptions{WaitUntil: playwright.WaitUntilStateCommit, Timeout: t})
		})
	}, func() error { return noHistory("go " + dir) })
}

// noHistory is the error of a step with no history entry to take (what
// is "go back" or "go forward").
func noHistory(what string) error {
	return engine.Errorf(engine.NavigationFailed, "there is no page to %s to", what).
		With("reason", "no_history").Suggest("Use navigate to open a URL.")
}

// historyEntryScript answers the history entry d away as the page's
// Navigation API lists it (same-origin entries): its key and whether it
// belongs to the current document (history.pushState added it); null for
// an entry it does not list, or when the page has no Navigation API.
//
// On Firefox's page for a failed load (about:neterror, about:certerror),
// which the Navigation API does not list, it answers errorPage and the
// length of the history instead.
const historyEntryScript = `(d) => {
	if (/^about:(neterror|certerror)/.test(document.documentURI)) {
		return {errorPage: true, length: history.length};
	}
	if (typeof navigation === "undefined" || !navigation.currentEntry) return null;
	const e = navigation.entries()[navigation.currentEntry.index + d];
	return e ? {key: e.key, same: e.sameDocument} : null;
}`

// traverseScript takes the step to the entry of the current document
// whose key it is given and answers the page's URL after it.
const traverseScript = `async (key) => {
	await navigation.traverseTo(key).committed;
	return location.href;
}`

// documentScript tells one document from another, a document the back/
// forward cache restores included, and answers its URL.
const documentScript = `() => [performance.timeOrigin, location.href]`

// historyPoll is how often firefoxStep looks for the document the step
// leads to.
const historyPoll = 50 * time.Millisecond

// firefoxStep goes delta entries through the history when the page's
// Navigation API lists that entry. Firefox over WebDriver BiDi reports no
// navigation for a step within the document (history.pushState), nor for
// one to a document its back/forward cache restores: Playwright's GoBack
// waited out its timeout, and History answered no_history though the page
// had gone back. The step within the document goes through the API; one
// to another document through history.go, then the new document is waited
// for. ok is false when the page does not list the entry (none, or another
// origin's), or could not say: Playwright takes the step.
func (s *session) firefoxStep(ctx context.Context, delta int, what string, timeout time.Duration) (engine.NavigateResult, bool, error) {
	if s.alive() != nil {
		return engine.NavigateResult{}, false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	eval := func(script string, arg any) (any, error) {
		return call(ctx, func() (any, error) { return s.page.MainFrame().Evaluate(script, arg) }, nil)
	}
	v, err := eval(historyEntryScript, delta)
	e, _ := v.(map[string]any)
	key, _ := e["key"].(string)
	errorPage, _ := e["errorPage"].(bool)
	switch {
	case err != nil:
		return engine.NavigateResult{}, false, nil
	case errorPage && delta < 0:
		// Back from the page of a failed load, which is the history's
		// newest entry: there is an entry before it when the history
		// holds more than it. Playwright's GoBack waited out its
		// timeout there, and answered no_history though the page had
		// gone back.
		n := 2 // unknown: take the step
		switch l := e["length"].(type) {
		case int:
			n = l
		case float64:
			n = int(l)
		}
		if n < 2 {
			return engine.NavigateResult{}, true, noHistory(what)
		}
	case key == "":
		return engine.NavigateResult{}, false, nil
	}
	if same, _ := e["same"].(bool); same {
		v, err = eval(traverseScript, key)
		if err != nil {
			return engine.NavigateResult{}, true, s.classify(err, what)
		}
		res, err := s.current(ctx)
		// Playwright's URL of the page has not seen the step either.
		if u, _ := v.(string); u != "" {
			res.URL = u
		}
		return res, true, err
	}
	before, err := eval(documentScript, nil)
	if err != nil {
		return engine.NavigateResult{}, false, nil
	}
	s.st.dropChooser(nil)
	if _, err := eval(`(d) => { history.go(d); return 0; }`, delta); err != nil {
		return engine.NavigateResult{}, true, s.classify(err, what)
	}
	old, _ := before.([]any)
	for {
		// The old document answers until it is gone, and a document
		// in between answers no script: both are waited past.
		now, err := eval(documentScript, nil)
		if d, _ := now.([]any); err == nil && len(d) == 2 && len(old) == 2 && d[0] != old[0] {
			if _, err := s.settleNavigation(ctx, timeout); err != nil {
				return engine.NavigateResult{}, true, err
			}
			res, err := s.current(ctx)
			if u, _ := d[1].(string); u != "" {
				res.URL = u
			}
			return res, true, err
		}
		select {
		case <-ctx.Done():
			return engine.NavigateResult{}, true, engine.Errorf(engine.Timeout, "the page did not %s within %d ms", what, timeout.Milliseconds()).
				With("timeout", timeout.Milliseconds())
		case <-time.After(historyPoll):
		}
	}
}

// Reload reloads the page and waits for it to load. Playwright has no
// cache-bypassing reload: on Chromium ignoreCache goes through a DevTools
// session (Page.reload), on Firefox it is a normal reload (the server's
// caching headers decide).
func (s *session) Reload(ctx context.Context, ignoreCache bool, timeout time.Duration) (engine.NavigateResult, error) {
	if ignoreCache && s.e.cfg.Browser == Chromium {
		m := s.st.mark()
		return s.reloadLike(ctx, "reload", timeout, func(t *float64) (playwright.Response, error) {
			// The page's one DevTools session: detaching another one
			// would reset the network emulation set through it.
			cs, err := s.sh.devtoolsFor(ctx, s.bctx, s.page)
			if err != nil {
				return nil, err
			}
			if _, err := cs.Send("Page.reload", map[string]any{"ignoreCache": true}); err != nil {
				return nil, err
			}
			// Page.reload answers before the new document commits; wait
			// for that, so that the load awaited next is the new one's.
			return nil, s.st.waitNav(m, time.Duration(*t)*time.Millisecond)
		}, nil)
	}
	return s.reloadLike(ctx, "reload", timeout, func(t *float64) (playwright.Response, error) {
		return s.page.Reload(playwright.PageReloadOptions{WaitUntil: playwright.WaitUntilStateCommit, Timeout: t})
	}, nil)
}

// waitNav waits until a main-frame navigation after m has committed.
func (st *pageState) waitNav(m mark, timeout time.Duration) error {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		st.mu.Lock()
		done, ch := st.navs > m.navs || st.crashed || st.closed, st.changed
		st.mu.Unlock()
		if done {
			return nil
		}
		select {
		case <-ch:
		case <-timer.C:
			return playwright.ErrTimeout
		}
	}
}

// reloadLike runs a navigation that Playwright waits to commit, then waits
// for the load as after a click: a load that does not come in time is not
// an error, as in engine/cdp. noNav, if set, is the error for an action that
// navigated nowhere.
func (s *session) reloadLike(ctx context.Context, what string, timeout time.Duration, act func(*float64) (playwright.Response, error), noNav func() error) (engine.NavigateResult, error) {
	// Leaving the page drops a file chooser it left waiting.
	s.st.dropChooser(nil)
	if err := s.alive(); err != nil {
		return engine.NavigateResult{}, err
	}
	m := s.st.mark()
	resp, err := call(ctx, func() (playwright.Response, error) { return act(ms(remaining(ctx, timeout))) }, nil)
	if err != nil && !errors.Is(err, playwright.ErrTimeout) {
		return engine.NavigateResult{}, s.classify(err, what)
	}
	s.st.mu.Lock()
	navigated := s.st.navs > m.navs || s.st.navReqs > m.navReqs
	s.st.mu.Unlock()
	if resp == nil && !navigated && noNav != nil {
		return engine.NavigateResult{}, noNav()
	}
	if _, err := s.settleNavigation(ctx, timeout); err != nil {
		return engine.NavigateResult{}, err
	}
	res, err := s.current(ctx)
	if resp != nil {
		res.Status = resp.Status()
	}
	return res, err
}

// current describes the page as it is now.
func (s *session) current(ctx context.Context) (engine.NavigateResult, error) {
	title, err := call(ctx, s.page.Title, nil)
	if err != nil {
		return engine.NavigateResult{}, s.classify(err, "read the page's title")
	}
	s.titleMu.Lock()
	s.title = title
	s.titleMu.Unlock()
	return engine.NavigateResult{URL: s.page.URL(), Title: title}, nil
}

var loadStates = map[engine.WaitUntil]*playwright.LoadState{
	engine.WaitLoad:             playwright.LoadStateLoad,
	engine.WaitDOMContentLoaded: playwright.LoadStateDomcontentloaded,
	engine.WaitNetworkIdle:      playwright.LoadStateNetworkidle,
}

// WaitForLoad waits until the current document has reached state.
func (s *session) WaitForLoad(ctx context.Context, state engine.WaitUntil, timeout time.Duration) (engine.NavigateResult, error) {
	ls, ok := loadStates[state]
	if !ok {
		return engine.NavigateResult{}, engine.Errorf(engine.InvalidParameters, "unknown state %q", state).With("field", "state")
	}
	if err := s.alive(); err != nil {
		return engine.NavigateResult{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if state == engine.WaitNetworkIdle {
		// Playwright's networkidle, like Chromium's, comes once per
		// document: a request started after it would still be in flight.
		ls = playwright.LoadStateLoad
	}
	err := do(ctx, func() error {
		return s.page.WaitForLoadState(playwright.PageWaitForLoadStateOptions{State: ls, Timeout: ms(remaining(ctx, timeout))})
	})
	if err == nil && state == engine.WaitNetworkIdle {
		err = s.networkIdle(ctx)
	}
	if err != nil {
		if errors.Is(err, playwright.ErrTimeout) || errors.Is(err, context.DeadlineExceeded) {
			return engine.NavigateResult{}, engine.Errorf(engine.Timeout, "the page did not reach %q within %d ms", state, timeout.Milliseconds()).
				With("state", string(state)).With("timeout", timeout.Milliseconds())
		}
		return engine.NavigateResult{}, s.classify(err, "wait for "+string(state))
	}
	return s.current(ctx)
}

// networkIdle waits until no request of the page has been in flight for
// engine.NetworkIdleQuiet.
func (s *session) networkIdle(ctx context.Context) error {
	// The driver may report a request after the script that started it
	// returned: a round trip through the page lets those reports arrive
	// first. Over WebDriver BiDi, Firefox reports them from its parent
	// process, later still: there the quiet time counts from now, so that
	// a request reported within it is seen.
	if err := do(ctx, func() error { _, err := s.page.MainFrame().Evaluate("0"); return err }); err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	start := time.Now()
	st := s.st
	for {
		st.mu.Lock()
		gone := st.crashed || st.closed
		idle := len(st.inflight) == 0
		quiet := time.Since(st.lastNet)
		if s.e.cfg.Browser == Firefox {
			quiet = min(quiet, time.Since(start))
		}
		ch := st.changed
		st.mu.Unlock()
		if gone {
			return s.alive()
		}
		done, wait := kit.NetworkIdleNext(idle, quiet)
		if done {
			return nil
		}
		if err := kit.AwaitChange(ctx, ch, wait); err != nil {
			return err
		}
	}
}

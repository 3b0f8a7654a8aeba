package cdp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
)

// session is one browser context with one page.
type session struct {
	b      *browserProc
	tab    context.Context // the chromedp context of the page
	cancel context.CancelFunc
	st     *pageState
	obs    *observer // network and console records, routes
	id     target.ID
	guard  *guard // the domain policy, see policy.go

	// Refs and frames (see refs.go and frames.go); only the goroutine
	// running the session's call uses them. refs is shared by every tab of
	// the session, worlds are this tab's.
	refs *refSpace
	// ownContext is, for a session in the browser's own context (the
	// persistent profile), the id the browser reports for that context;
	// chromedp knows it as "".
	ownContext   cdp.BrowserContextID
	worlds       map[string]*world
	ftMu         sync.Mutex // guards frameTargets against the dialog policy
	frameTargets map[target.ID]*frameTarget
	// axDoc is the document (docKey) whose accessibility tree keepAX
	// already holds, snapDoc the one whose page world keeps the snapshot
	// function (see walk); 0 for none.
	axDoc, snapDoc int
	// views are the agent's last views of this tab's documents, for
	// Changes (changes.go).
	views docViews
	// freshWalk is set while a walk must reuse nothing earlier walks kept,
	// for the walks of its cross-origin frames.
	freshWalk bool
	// changesWorld is the page's world Changes last walked, in the
	// document changesDoc (docKey).
	changesWorld *world
	changesDoc   int

	closeOnce sync.Once
	// closed is set by a Close its caller asked for: the session's calls
	// then answer that it is closed, even once its browser is gone too (a
	// Grid's ends with its session). A session closed because its engine
	// shuts down answers as after a crash instead, as a local one does
	// whose engine closed its browser.
	closed atomic.Bool
}

// newSession creates the browser context and its page. The tab's first Do
// runs on the tab's own context, never on the caller's, because that call
// binds the tab's event loop to its context.
func newSession(ctx context.Context, b *browserProc, opts engine.SessionOptions, dialogs engine.DialogPolicy, relay *socketRelay) (*session, error) {
	bctx, err := contextOptions(opts, relay)
	if err != nil {
		return nil, err
	}
	how := chromedp.WithNewBrowserContext(bctx)
	if opts.Profile {
		// The browser's own context, on its persistent profile: closing
		// the session closes its tabs and keeps the context.
		how = func(*chromedp.Context) {}
	}
	s, err := openTab(ctx, b, b.ctx, newRefSpace(), opts, dialogs, how)
	if err != nil {
		return nil, err
	}
	if opts.Profile {
		if err := s.takeOwnContext(ctx); err != nil {
			s.cancel()
			return nil, err
		}
	}
	if opts.StorageState != nil {
		if err := engine.RestoreState(ctx, s, *opts.StorageState); err != nil {
			s.cancel()
			return nil, err
		}
	}
	return s, nil
}

// openTab opens (or, with WithTargetID, attaches to) one page under parent
// and applies the session's per-page settings to it. A parent that is a
// tab's context makes a new tab in that tab's browser context; refs is the
// session's, so that its tabs never give out the same ref.
func openTab(ctx context.Context, b *browserProc, parent context.Context, refs *refSpace, opts engine.SessionOptions, dialogs engine.DialogPolicy, how chromedp.ContextOption) (*session, error) {
	st, obs := newPageState(), newObserver()
	copts := []chromedp.ContextOption{how, chromedp.WithListener(st.onEvent), chromedp.WithListener(obs.onEvent)}
	if b.shared {
		// The page and its browser context outlive this connection (and
		// Chrome does not dispose of the context when it detaches).
		copts = append(copts, chromedp.WithDetachOnCancel())
	}
	tab, cancel := chromedp.NewContext(parent, copts...)
	s := &session{b: b, tab: tab, cancel: cancel, st: st, obs: obs, refs: refs, worlds: map[string]*world{},
		frameTargets: map[target.ID]*frameTarget{}}
	st.onDialog = s.applyPolicy(dialogs)

	done := make(chan error, 1)
	go func() {
		done <- chromedp.Do(tab, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			tree, err := cdp.Call(ctx, t, page.GetFrameTree, cdp.Empty{})
			if err != nil {
				return err
			}
			st.mu.Lock()
			if st.mainFrame == "" {
				st.mainFrame = tree.FrameTree.Frame.ID
				st.url = tree.FrameTree.Frame.URL
				st.loader = tree.FrameTree.Frame.LoaderID
			}
			st.mu.Unlock()
			dsf := opts.DeviceScaleFactor
			if dsf == 0 {
				dsf = 1
			}
			_, err = cdp.Call(ctx, t, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
				Width: int64(opts.Viewport.Width), Height: int64(opts.Viewport.Height), DeviceScaleFactor: dsf, Mobile: opts.IsMobile,
			})
			if err != nil {
				return err
			}
			if opts.HasTouch {
				if _, err := cdp.Call(ctx, t, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: true, MaxTouchPoints: 5}); err != nil {
					return err
				}
			}
			if err := watchExpected(ctx, t); err != nil {
				return err
			}
			if err := installSettle(ctx, t); err != nil {
				return err
			}
			if err := interceptChoosers(ctx, t); err != nil {
				return err
			}
			return applyOptions(ctx, t, opts)
		}))
	}()
	select {
	case err := <-done:
		if err != nil {
			cancel()
			return nil, s.classify(err, "create the session's browser context")
		}
	case <-ctx.Done():
		cancel()
		return nil, engine.Wrap(engine.BrowserError, ctx.Err(), "creating the session was cancelled: "+ctx.Err().Error())
	}
	s.id = chromedp.FromContext(tab).Target.TargetID
	obs.popups.setOwner(s.id)
	b.attachedTab(s)
	return s, nil
}

// bind returns a context for one call: it carries the tab for chromedp and
// ends with the caller's context (cancellation and deadline).
func (s *session) bind(ctx context.Context) (context.Context, context.CancelFunc) {
	var c context.Context
	var cancel context.CancelFunc
	if d, ok := ctx.Deadline(); ok {
		c, cancel = context.WithDeadline(s.tab, d)
	} else {
		c, cancel = context.WithCancel(s.tab)
	}
	// Only a cancellation is passed on: c has ctx's deadline and expires by
	// itself with DeadlineExceeded, which cancelling it first would turn into
	// Canceled, and a timeout into a BROWSER_ERROR.
	stop := context.AfterFunc(ctx, func() {
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			cancel()
		}
	})
	return c, func() { stop(); cancel() }
}

// browserCall is a context for a browser-level call made for ctx's call:
// the browser's, ending with ctx's deadline or cancellation.
func (s *session) browserCall(ctx context.Context) (context.Context, context.CancelFunc) {
	var c context.Context
	var cancel context.CancelFunc
	if d, ok := ctx.Deadline(); ok {
		c, cancel = context.WithDeadline(s.b.ctx, d)
	} else {
		c, cancel = context.WithCancel(s.b.ctx)
	}
	stop := context.AfterFunc(ctx, cancel)
	return c, func() { stop(); cancel() }
}

// run runs f on the tab with the call's context, after checking the tab and
// browser are alive and that no dialog blocks the page (DIALOG_OPEN), and
// classifies any error.
func (s *session) run(ctx context.Context, what string, f func(ctx context.Context, t *chromedp.Target) error) error {
	if err := s.dialogErr(); err != nil {
		return err
	}
	return s.runAny(ctx, what, f)
}

// runAny is run without the dialog check, for handle_dialog itself.
func (s *session) runAny(ctx context.Context, what string, f func(ctx context.Context, t *chromedp.Target) error) error {
	if err := s.alive(); err != nil {
		return err
	}
	c, cancel := s.bind(ctx)
	defer cancel()
	stop := context.AfterFunc(s.st.crash, cancel)
	defer stop()
	err := chromedp.Do(c, chromedp.Func(f))
	if err != nil {
		return s.classify(err, what)
	}
	return nil
}

var errCrashed = errors.New("the page crashed")

func (s *session) alive() error {
	if s.closed.Load() {
		return engine.Errorf(engine.BrowserError, "the session is closed")
	}
	if s.b.Lost() {
		return engine.Errorf(engine.BrowserCrashed, "the browser process is gone")
	}
	s.st.mu.Lock()
	crashed := s.st.crashed
	s.st.mu.Unlock()
	if crashed {
		return engine.RendererCrashed()
	}
	return nil
}

// crashed reports a tab whose renderer crashed, in a browser that lives.
func (s *session) crashed() bool {
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	return s.st.crashed && !s.b.Lost()
}

// classify turns a chromedp/CDP failure into an engine error.
func (s *session) classify(err error, what string) error {
	var e *engine.Error
	if errors.As(err, &e) {
		return e
	}
	if s.b.Lost() {
		return engine.Wrap(engine.BrowserCrashed, err, "the browser crashed while trying to "+what)
	}
	if s.st.crash.Err() != nil || errors.Is(err, errCrashed) {
		e := engine.RendererCrashed()
		e.Message, e.Err = "the page's renderer crashed while trying to "+what, err
		return e
	}
	if errors.Is(err, chromedp.ErrTargetDetached) || errors.Is(err, chromedp.ErrChannelClosed) {
		return engine.Wrap(engine.BrowserCrashed, err, "the page closed while trying to "+what)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return engine.Wrap(engine.Timeout, err, fmt.Sprintf("timed out trying to %s", what))
	}
	return engine.Wrap(engine.BrowserError, err, fmt.Sprintf("could not %s: %v", what, err))
}

// Info reads the URL and title from the browser, not through the tab's
// calls, so it never waits for a call running on the tab. The title is the
// document's, read with a short bound; the target's title is only the
// fallback, because it lags behind the document and stands in the URL for a
// page without a title.
func (s *session) Info(ctx context.Context) engine.PageInfo {
	s.st.mu.Lock()
	info := engine.PageInfo{URL: s.st.url}
	s.st.mu.Unlock()
	if s.b.Lost() {
		return info
	}
	c, cancel := context.WithTimeout(s.b.ctx, engine.InfoTimeout)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	if res, err := chromedp.CallBrowser(c, target.GetTargetInfo, target.GetTargetInfoParams{TargetID: s.id}); err == nil {
		info.URL, info.Title = res.TargetInfo.URL, res.TargetInfo.Title
	}
	// Target.Call is safe beside a running action: replies are matched by id.
	tc, cancelTitle := context.WithTimeout(c, infoTitleTimeout)
	defer cancelTitle()
	if t := chromedp.FromContext(s.tab).Target; t != nil {
		res, err := cdp.Call(tc, t, runtime.Evaluate, runtime.EvaluateParams{Expression: "document.title", ReturnByValue: new(true)})
		var title string
		if err == nil && res.ExceptionDetails == nil && res.Result != nil && json.Unmarshal(res.Result.Value, &title) == nil {
			info.Title = title
		}
	}
	return info
}

// infoTitleTimeout bounds reading document.title for Info; a page blocked by
// a dialog or a busy script falls back to the target's title.
const infoTitleTimeout = 500 * time.Millisecond

// Close closes the page and disposes of its browser context.
func (s *session) Close(ctx context.Context) error {
	s.ftMu.Lock()
	for _, ft := range s.frameTargets {
		ft.cancel()
	}
	s.ftMu.Unlock()
	s.closeOnce.Do(func() {
		s.closed.Store(engine.CloseReasonOf(ctx) != engine.CloseShutdown)
		if s.b.shared && !s.b.Lost() {
			// Cancelling only detaches from a shared page: close it.
			c, cancel := context.WithTimeout(s.b.ctx, engine.CloseTimeout)
			chromedp.CallBrowser(c, target.CloseTarget, target.CloseTargetParams{TargetID: s.id})
			cancel()
		}
		s.cancel()
	})
	return nil
}

// evalJSON evaluates expr (which may return a promise) and decodes its JSON
// result into out. It retries when a navigation destroys the context.
func evalJSON(ctx context.Context, t *chromedp.Target, expr string, out any) error {
	for {
		res, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{
			Expression: expr, ReturnByValue: new(true), AwaitPromise: new(true), UserGesture: new(true),
		})
		if err != nil {
			var ce *cdproto.Error
			if errors.As(err, &ce) && isContextGone(ce.Message) && ctx.Err() == nil {
				continue
			}
			return err
		}
		if ex := res.ExceptionDetails; ex != nil {
			msg := ex.Text
			if ex.Exception != nil && ex.Exception.Description != "" {
				msg = ex.Exception.Description
			}
			if isContextGone(msg) && ctx.Err() == nil {
				continue
			}
			return fmt.Errorf("page script failed: %s", msg)
		}
		if out == nil || res.Result == nil || len(res.Result.Value) == 0 {
			return nil
		}
		return json.Unmarshal(res.Result.Value, out)
	}
}

func isContextGone(msg string) bool {
	for _, s := range []string{"Execution context was destroyed", "Cannot find context", "Inspected target navigated or closed"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// takeOwnContext learns the id of the browser's own context, where the
// session's first page opened, and closes the other pages there (the tab
// the browser starts with), so that the session's tabs are its pages.
func (s *session) takeOwnContext(ctx context.Context) error {
	c, cancel := context.WithTimeout(s.b.ctx, answerTimeout)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	res, err := chromedp.CallBrowser(c, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return s.classify(err, "list the pages of the persistent profile")
	}
	for _, info := range res.TargetInfos {
		if info.TargetID == s.id {
			s.ownContext = info.BrowserContextID
		}
	}
	for _, info := range res.TargetInfos {
		if info.Type == "page" && info.TargetID != s.id && info.BrowserContextID == s.ownContext {
			if _, err := chromedp.CallBrowser(c, target.CloseTarget, target.CloseTargetParams{TargetID: info.TargetID}); err != nil {
				return s.classify(err, "close the other pages of the persistent profile")
			}
		}
	}
	return nil
}

// targetContext is the browser context id the browser reports for the
// session's pages.
func (s *session) targetContext() cdp.BrowserContextID {
	if s.ownContext != "" {
		return s.ownContext
	}
	return s.contextID()
}

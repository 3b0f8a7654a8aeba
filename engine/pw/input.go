package pw

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit"
	"github.com/seed4af8c199/browsermcp/engine/page"
)

// resolveJS runs engine/page's element script, so that both engines find the
// same element and classify failures identically, and then returns the
// element itself (for Playwright's action, which waits for navigations the
// action requests) or the failed check. The element is looked up again
// exactly as the script does, in the same task, so it is the one checked.
// A forced click on an element without a box (display: none) returns the
// check's point instead, because Playwright would wait for the element to
// become visible while engine/cdp clicks that point. With pointOnly (see
// resolve) the script always returns the check, with its point.
var resolveJS = `async (a) => {
  const r = await (` + page.ElementScript() + `)(a);
  if (r.error || a.pointOnly) return r;
  const el = (` + page.QueryScript() + `)(a.kind, a.sel, false);
  if (el && a.force && el.getClientRects().length === 0) return r;
  return el || { error: "not_found" };
}`

// resolve finds the target element and prepares it for op ("point" for a
// click, "focus" for typing), waiting up to timeout, and returns its handle,
// or only the point to click (see resolveJS), once the element holds still
// (unless forced). guard (page.GuardClick, …) is the pointer input that
// follows, which the check guards (see inputHit).
func (s *session) resolve(ctx context.Context, op string, tg engine.Target, timeout time.Duration, force, clear bool, guard string) (playwright.ElementHandle, page.ElementCheck, error) {
	el, r, err := s.find(ctx, op, tg, timeout, force, clear, guard)
	if err != nil {
		// A dialog that opened meanwhile (a focus handler, a timer) blocks
		// the page, and withDialogs ended the wait: nothing was done.
		if d := s.st.waitingDialog(); d != nil {
			return nil, r, engine.DialogBlocked(*d, tg)
		}
	}
	return el, r, err
}

// find is resolve without the dialog check.
func (s *session) find(ctx context.Context, op string, tg engine.Target, timeout time.Duration, force, clear bool, guard string) (playwright.ElementHandle, page.ElementCheck, error) {
	var r page.ElementCheck
	// playwright-go serialises int but not int64.
	args := map[string]any{"op": op, "timeout": int(timeout.Milliseconds()), "force": force, "clear": clear, "guard": guard,
		// Pointer actions get only the point our checks computed and go
		// there with the mouse; settle waits for a navigation they request
		// to commit, as Playwright's element click would. (Firefox spent
		// about 250 ms in that click, in WebDriver BiDi round trips for
		// checks ours already made, and 50 ms in the mouse click.)
		"pointOnly": op == "point"}
	if tg.Ref != "" {
		return s.resolveRef(ctx, args, tg, timeout)
	}
	kind, expr := engine.ParseSelector(tg.Selector)
	args["kind"], args["sel"] = "css", expr
	if kind == engine.XPath {
		args["kind"] = "xpath"
	}
	ctx, cancel := context.WithTimeout(ctx, timeout+engine.CallGrace)
	defer cancel()
	for {
		h, err := call(ctx, func() (playwright.JSHandle, error) { return s.page.EvaluateHandle(resolveJS, args) },
			func(h playwright.JSHandle) { _ = h.Dispose() })
		if err != nil {
			// A navigation replaced the document while the script ran; the
			// script starts again in the new one.
			if isContextGone(err) && ctx.Err() == nil {
				continue
			}
			return nil, r, s.classify(err, "find "+tg.String())
		}
		if el := h.AsElement(); el != nil {
			return el, r, nil
		}
		if r, err = s.checkResult(ctx, h, tg); err != nil {
			return nil, r, err
		}
		return nil, r, page.ElementError(r, tg, timeout)
	}
}

// inputHit ends the guard that the element check of tg set in its frame
// (the ref's frame, or the page's main frame for a selector) and returns
// what the guarded input hit. A frame whose document went away (the input
// navigated) saw nothing; a dialog the input opened ends ctx (withDialogs),
// and the action reports the dialog.
func (s *session) inputHit(ctx context.Context, tg engine.Target) page.Hit {
	f := s.page.MainFrame()
	if tg.Ref != "" {
		rf, _, err := s.refFrame(tg.Ref)
		if err != nil {
			return page.Hit{None: true}
		}
		f = rf
	}
	v, err := call(ctx, func() (any, error) { return f.Evaluate("() => (" + page.HitScript() + ")()") }, nil)
	if err != nil {
		return page.Hit{None: true}
	}
	var h page.Hit
	b, _ := json.Marshal(v)
	if json.Unmarshal(b, &h) != nil {
		return page.Hit{None: true}
	}
	return h
}

// isContextGone matches the errors of an evaluation whose document went away.
func isContextGone(err error) bool {
	msg := err.Error()
	for _, s := range []string{"Execution context was destroyed", "Cannot find context", "Inspected target navigated or closed", "no such frame", "frame was detached"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// actionErrors classify the messages of Playwright's element actions. The
// element script has already checked visibility, enablement and the hit
// target, so these only arise when the page changes between the check and
// the action.
var actionErrors = []struct {
	substr string
	code   engine.Code
	reason string
}{
	{"Element is not attached to the DOM", engine.ElementNotFound, "detached"},
	{"Element is outside of the viewport", engine.ElementNotClickable, "outside_viewport"},
	{"Element is not visible", engine.ElementNotClickable, "hidden"},
	{"intercepts pointer events", engine.ElementNotClickable, "covered"},
	{"Element is not enabled", engine.ElementNotClickable, "disabled"},
}

// actionErr classifies a failed Playwright element action on tg.
func (s *session) actionErr(err error, what string, tg engine.Target) error {
	msg := err.Error()
	for _, a := range actionErrors {
		if strings.Contains(msg, a.substr) {
			e := engine.Wrap(a.code, err, fmt.Sprintf("could not %s: %s", what, firstLine(err))).With("reason", a.reason)
			if tg.Selector != "" {
				e.With("selector", tg.Selector)
			}
			return e
		}
	}
	return s.classify(err, what)
}

// unsupported is the error for a feature browser lacks; it names the browser
// in its message and details, as the conformance suite requires.
func unsupported(browser, feature, why string) *engine.Error {
	return engine.Errorf(engine.Unsupported, "%s is not supported on %s: %s", feature, browser, why).
		With("browser", browser).
		Suggest("Use --browser chromium for this, or do without it on " + browser + ".")
}

// release disposes of an element handle in the background; nil is fine.
func release(h playwright.ElementHandle) {
	if h != nil {
		go func() { _ = h.Dispose() }()
	}
}

// Click clicks the element after it passes engine/cdp's checks. Playwright
// clicks the centre of its visible box with real mouse events (force: the
// checks are done) and waits until any navigation the click requested has
// committed; settle then waits for that document's load.
func (s *session) clickAction(ctx context.Context, req engine.ClickRequest) (_ engine.ActionResult, err error) {
	if req.ClickCount > 1 && s.e.cfg.Browser == Firefox {
		return engine.ActionResult{}, unsupported(Firefox, "clickCount > 1 (double and triple clicks)",
			"Playwright's WebDriver BiDi backend sends each click as its own action, so Firefox counts every one as a single click").
			With("field", "clickCount")
	}
	if err := s.alive(); err != nil {
		return engine.ActionResult{}, err
	}
	what := "click " + req.Target.String()
	m := s.st.mark()
	_, pt, err := s.resolve(ctx, "point", req.Target, req.Timeout, req.Force, false, page.GuardClick)
	if err != nil {
		return engine.ActionResult{}, err
	}
	g := &guardEnd{s: s, tg: req.Target}
	defer func() { g.drop(ctx, err) }()
	m.navFrom = time.Now()
	err = do(ctx, func() error {
		return s.page.Mouse().Click(pt.X, pt.Y, playwright.MouseClickOptions{ClickCount: &req.ClickCount, Button: mouseButtons[req.Button]})
	})
	if err != nil {
		return engine.ActionResult{}, s.classify(err, what)
	}
	hit := g.hit(ctx)
	if err := page.HitError(hit, req.Target, "click"); err != nil {
		return engine.ActionResult{}, err
	}
	res, err := s.settle(ctx, m, req.NavigationTimeout)
	if err != nil || !req.Force {
		return res, err
	}
	// A forced click skipped the hit test, which said where it would land:
	// a click another element took is not a success.
	if pt.Missed && !hit.OK {
		return engine.ActionResult{}, page.MissedClick(pt, req.Target)
	}
	res.ReceivedBy = pt.Element
	return res, nil
}

// clickedBeforeTimeout tells a click whose action timed out while waiting
// for the navigation it started to commit (a slow server) from a click that
// never happened: the former has already sent the navigation's request.
func (s *session) clickedBeforeTimeout(err error, m mark) bool {
	if !errors.Is(err, playwright.ErrTimeout) {
		return false
	}
	s.st.mu.Lock()
	defer s.st.mu.Unlock()
	return s.st.navReqs > m.navReqs
}

// Type focuses an editable element (clearing it if asked) and types text
// with real key events; a newline is the Enter key, pressed through the
// element so that Playwright waits for a navigation it requests (a form
// submission) to commit.
func (s *session) typeAction(ctx context.Context, req engine.TypeRequest) (engine.ActionResult, error) {
	if err := s.alive(); err != nil {
		return engine.ActionResult{}, err
	}
	what := "type into " + req.Target.String()
	tctx, cancel := context.WithTimeout(ctx, req.TypeTimeout)
	defer cancel()
	count := 0 // characters typed, for a TIMEOUT to report
	m := s.st.mark()
	el, _, err := s.resolve(ctx, "focus", req.Target, req.Timeout, false, req.Clear, "")
	if err != nil {
		return engine.ActionResult{}, err
	}
	defer release(el)
	delay := float64(req.Delay.Milliseconds())
	kb := s.page.Keyboard()
	typed := false // a key was sent: the next one waits req.Delay first
	for i, seg := range splitLines(req.Text) {
		if i > 0 {
			if typed {
				if err := s.pause(ctx, req.Delay); err != nil {
					return engine.ActionResult{}, s.classify(err, what)
				}
			}
			if tctx.Err() != nil && ctx.Err() == nil {
				return engine.ActionResult{}, engine.TypingTimedOut(req, count)
			}
			m.navFrom = time.Now()
			if err := s.pressEnter(ctx, el, m, req.Timeout+req.NavigationTimeout); err != nil && !s.clickedBeforeTimeout(err, m) {
				return engine.ActionResult{}, s.actionErr(err, what, req.Target)
			}
			typed = true
			count++
		}
		if seg == "" {
			continue
		}
		if typed {
			if err := s.pause(ctx, req.Delay); err != nil {
				return engine.ActionResult{}, s.classify(err, what)
			}
		}
		if err := typeChunks(ctx, tctx, kb, seg, delay, &count); err != nil {
			if errors.Is(err, errTypeTimeout) {
				return engine.ActionResult{}, engine.TypingTimedOut(req, count)
			}
			return engine.ActionResult{}, s.actionErr(err, what, req.Target)
		}
		typed = true
	}
	return s.settle(ctx, m, req.NavigationTimeout)
}

// errTypeTimeout stops typeChunks at its deadline.
var errTypeTimeout = errors.New("the typing's deadline passed")

// typeChunks types text in chunks sized to take about 100 ms each, so that
// it stops between two chunks once tctx ends (errTypeTimeout): a chunk
// given to Playwright's Keyboard.Type cannot be interrupted, so a text
// sent at once would go on being typed long after the call answered. typed
// counts the characters typed.
func typeChunks(ctx, tctx context.Context, kb playwright.Keyboard, text string, delay float64, typed *int) error {
	runes := []rune(text)
	n := 8
	for len(runes) > 0 {
		if tctx.Err() != nil && ctx.Err() == nil {
			return errTypeTimeout
		}
		c := min(n, len(runes))
		start := time.Now()
		// The chunk is waited for under ctx, not tctx: once sent it is
		// typed, and the call must not answer before it was.
		chunk := string(runes[:c])
		if err := do(ctx, func() error { return kb.Type(chunk, playwright.KeyboardTypeOptions{Delay: &delay}) }); err != nil {
			return err
		}
		*typed += c
		runes = runes[c:]
		switch took := time.Since(start); {
		case took < 50*time.Millisecond && n < 1024:
			n *= 2
		case took > 200*time.Millisecond && n > 1:
			n /= 2
		}
	}
	return nil
}

// splitLines splits text at each \n and \r, the characters typed as Enter,
// as engine/cdp types them.
func splitLines(text string) []string {
	var segs []string
	start := 0
	for i, r := range text {
		if r == '\n' || r == '\r' {
			segs = append(segs, text[start:i])
			start = i + 1
		}
	}
	return append(segs, text[start:])
}

// pressEnter presses Enter through the element while it is the page's (so
// Playwright waits for a submission to commit), or through the keyboard once
// an earlier Enter already navigated away.
func (s *session) pressEnter(ctx context.Context, el playwright.ElementHandle, m mark, timeout time.Duration) error {
	s.st.mu.Lock()
	navigated := s.st.navs > m.navs
	s.st.mu.Unlock()
	// A ref into a frame resolves to a focused element without a handle.
	if navigated || el == nil {
		return do(ctx, func() error { return s.page.Keyboard().Press("Enter") })
	}
	return s.onLocator(ctx, el, func(l playwright.Locator) error {
		return l.Press("Enter", playwright.LocatorPressOptions{Timeout: ms(remaining(ctx, timeout))})
	})
}

// locatorAttr marks the element an action's Locator names.
const locatorAttr = "data-bmcp-act"

// onLocator runs act on a Locator naming el: Playwright offers its element
// actions that wait for the navigation they request (a key press, setting
// files) only on Locators now. The element carries a unique attribute for
// the Locator's selector while act runs.
func (s *session) onLocator(ctx context.Context, el playwright.ElementHandle, act func(playwright.Locator) error) error {
	id := strconv.FormatUint(locatorSeq.Add(1), 36)
	fr, err := call(ctx, func() (playwright.Frame, error) {
		if _, err := el.Evaluate(`(el, [a, id]) => el.setAttribute(a, id)`, []string{locatorAttr, id}); err != nil {
			return nil, err
		}
		return el.OwnerFrame()
	}, nil)
	if err != nil {
		return err
	}
	defer func() {
		// In the background: the action may have navigated the page away.
		go func() {
			cctx, cancel := context.WithTimeout(context.Background(), engine.CleanupTimeout)
			defer cancel()
			_ = do(cctx, func() error {
				_, err := el.Evaluate(`(el, a) => el.removeAttribute(a)`, locatorAttr)
				return err
			})
		}()
	}()
	return do(ctx, func() error { return act(fr.Locator(`[` + locatorAttr + `="` + id + `"]`)) })
}

// locatorSeq numbers the Locators onLocator makes.
var locatorSeq atomic.Uint64

func (s *session) pause(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// settle waits for what an action started: the load of a document it
// navigated to (bounded by navTimeout), or network requests (until a short
// quiet window, bounded) and the page work it set off (timers, frames and
// DOM changes, until quiet, bounded). An action that started none returns
// at once. Requests come before the page work they feed, and page work can
// start requests (a scroll handler's fetch): the two alternate while a
// round started new requests, as in engine/cdp.
func (s *session) settle(ctx context.Context, m mark, navTimeout time.Duration) (engine.ActionResult, error) {
	s.picked = false
	res, err := s.settlePage(ctx, m, navTimeout)
	if err == nil && s.picked {
		s.awaitChooser(ctx, m)
	}
	return res, err
}

// settlePage is settle without the wait for a file chooser.
func (s *session) settlePage(ctx context.Context, m mark, navTimeout time.Duration) (engine.ActionResult, error) {
	st := s.st
	domUntil := time.Now().Add(engine.SettleDOMMax)
	deadline := time.Now().Add(engine.SettleNetworkMax)
	if m.navFrom.IsZero() {
		m.navFrom = time.Now()
	}
	from := m.reqStarted // requests before this round
	for round := 0; ; round++ {
		if round > 0 {
			st.mu.Lock()
			from = st.reqStarted
			st.mu.Unlock()
		}
		// The driver may report a request after the action that started
		// it has returned (a mouse click's answer comes before the page's
		// events; over WebDriver BiDi, Firefox reports late anyway): the
		// round trip through the page that waits for its work lets those
		// events arrive before "nothing started" counts.
		if err := s.settleDOM(ctx, domUntil); err != nil {
			return engine.ActionResult{}, s.classify(err, "wait for the page to settle")
		}
		navigated, err := s.settleNetwork(ctx, m, deadline, navTimeout)
		if err != nil {
			return engine.ActionResult{}, s.classify(err, "wait for the page to settle")
		}
		if navigated {
			st.mu.Lock()
			download := st.attachments > m.attachments && st.navs-m.navs <= st.attachments-m.attachments
			st.mu.Unlock()
			// Firefox reports a navigation answered as an attachment as
			// committed, though no document comes: there is no load to
			// wait for.
			if !download {
				return s.settleNavigation(ctx, navTimeout)
			}
		}
		st.mu.Lock()
		started := st.reqStarted > from
		st.mu.Unlock()
		if !kit.SettleAgain(round, started, domUntil) {
			return engine.ActionResult{}, nil
		}
	}
}

// settleNetwork waits for the requests started since m until the network
// is quiet, up to deadline, or reports a navigation of the page.
func (s *session) settleNetwork(ctx context.Context, m mark, deadline time.Time, navTimeout time.Duration) (navigated bool, err error) {
	st := s.st
	return kit.SettleNetwork(ctx, func() (kit.Settling, <-chan struct{}) {
		st.mu.Lock()
		defer st.mu.Unlock()
		seen := kit.Settling{
			Navigated: st.navs > m.navs,
			Started:   st.reqStarted - m.reqStarted,
			Quiet:     time.Since(st.lastNet),
			Left:      time.Until(deadline),
		}
		navPending := false
		for _, r := range st.inflight {
			if r.seq > m.reqStarted {
				seen.Pending++
				navPending = navPending || r.nav
			}
		}
		// A navigation the action requested is waited for until it commits
		// (or its request ends without a document: 204, a download), up to
		// navTimeout, as Playwright's own actions wait for it.
		if navPending {
			seen.NavLeft = navTimeout - time.Since(m.navFrom)
		}
		return seen, st.changed
	})
}

// settleNavigation waits for the load of the document an action navigated
// to. A load that does not come in time is not an error, as in engine/cdp:
// the action itself succeeded.
func (s *session) settleNavigation(ctx context.Context, navTimeout time.Duration) (engine.ActionResult, error) {
	err := do(ctx, func() error {
		return s.page.WaitForLoadState(playwright.PageWaitForLoadStateOptions{State: playwright.LoadStateLoad, Timeout: ms(remaining(ctx, navTimeout))})
	})
	if err != nil && !errors.Is(err, playwright.ErrTimeout) && !errors.Is(err, context.DeadlineExceeded) {
		return engine.ActionResult{}, s.classify(err, "wait for the page to load")
	}
	return engine.ActionResult{Navigated: true, URL: s.page.URL()}, nil
}

// guardEnd ends, once, the guard that resolve set for an action's input on
// tg: hit after the input, which says what the input hit, or drop on the
// action's way out when it failed before (or while) sending the input. A
// guard left behind would stop a later input at the same point, such as a
// mouse tool's click, for its whole lapse.
type guardEnd struct {
	s    *session
	tg   engine.Target
	done bool
}

// hit is inputHit, once the input was sent.
func (g *guardEnd) hit(ctx context.Context) page.Hit {
	g.done = true
	return g.s.inputHit(ctx, g.tg)
}

// drop ends the guard unless hit did, when err (the action's error) is
// set. ctx may have ended (a timeout during the input): drop has its own
// short deadline.
func (g *guardEnd) drop(ctx context.Context, err error) {
	if err == nil || g.done {
		return
	}
	g.done = true
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), engine.CallGrace)
	defer cancel()
	g.s.inputHit(dctx, g.tg)
}

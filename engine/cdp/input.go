package cdp

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit"
	"github.com/seed4af8c199/browsermcp/engine/page"
)

// resolve is the one element resolver every element action uses. It finds
// the target (a selector in the page, or a ref in the world it belongs to)
// and prepares it for op ("point" for a click, "focus" for typing), waiting
// up to timeout for it to become ready. For "point" the result is the
// element's visible centre in page coordinates, after the hit test in its
// frame and in every frame above it, once the element holds still (unless
// forced); guard (page.GuardClick, …) is the input that follows, which the
// check guards in the world it returns (see inputHit).
func (s *session) resolve(ctx context.Context, t *chromedp.Target, op string, tg engine.Target, timeout time.Duration, force, clear bool, guard string) (page.ElementCheck, *world, error) {
	args := map[string]any{"op": op, "timeout": timeout.Milliseconds(), "force": force, "clear": clear, "guard": guard}
	var r page.ElementCheck
	if tg.Ref != "" {
		w, err := s.callOnRef(ctx, t, tg.Ref, page.ElementScript(), args, &r)
		if err != nil {
			return r, nil, err
		}
		if r.Error == "stale" {
			return r, nil, page.StaleRef(tg.Ref, "the element was removed from the page")
		}
		if err := page.ElementError(r, tg, timeout); err != nil {
			return r, nil, err
		}
		if op == "point" && w.frameID != "" {
			if err := s.toPage(ctx, w, &r, force); err != nil {
				// No input follows: end the guard the check set.
				(&guardEnd{s: s, w: w}).drop(ctx, err)
				if e, ok := err.(*engine.Error); ok {
					e.With("ref", tg.Ref)
				}
				return r, nil, err
			}
		}
		return r, w, nil
	}
	kind, expr := engine.ParseSelector(tg.Selector)
	args["sel"], args["kind"] = expr, "css"
	if kind == engine.XPath {
		args["kind"] = "xpath"
	}
	a, _ := json.Marshal(args)
	w := &world{t: t}
	if err := s.evalIn(ctx, w, "("+page.ElementScript()+").call(null, "+string(a)+")", &r); err != nil {
		return r, nil, err
	}
	return r, w, page.ElementError(r, tg, timeout)
}

// inputHit ends the guard that resolve set in world w and returns what the
// guarded input hit. A world that went away (the input navigated) saw
// nothing. It runs inside act's race with dialogs: a dialog the input
// opened blocks the page, and the action reports it instead.
func (s *session) inputHit(ctx context.Context, w *world) page.Hit {
	var h page.Hit
	if w == nil {
		return page.Hit{None: true}
	}
	if err := s.evalIn(ctx, w, "("+page.HitScript()+")()", &h); err != nil {
		return page.Hit{None: true}
	}
	return h
}

// resolveFor is resolve before an action, taken at mark m. A dialog that
// opens meanwhile (from a focus handler, or a timer while the element is
// awaited) blocks the page's scripts: unless the dialog policy answers it,
// it stops the action at once with DIALOG_OPEN, and nothing has been done.
func (s *session) resolveFor(ctx context.Context, t *chromedp.Target, m mark, op string, tg engine.Target, timeout time.Duration, force, clear bool, guard string) (page.ElementCheck, *world, error) {
	rctx, cancel := context.WithTimeout(ctx, timeout+engine.CallGrace)
	defer cancel()
	type result struct {
		r   page.ElementCheck
		w   *world
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, w, err := s.resolve(rctx, t, op, tg, timeout, force, clear, guard)
		done <- result{r, w, err}
	}()
	for {
		d, ch := s.st.dialogAfter(m)
		if d != nil && d.Handled == "" {
			return page.ElementCheck{}, nil, engine.DialogBlocked(*d, tg)
		}
		select {
		case res := <-done:
			return res.r, res.w, res.err
		case <-ch:
		}
	}
}

// Click clicks the centre of the element's visible box with real mouse
// events, after the element passes the hit test, then waits for what the
// click started. A dialog the click opens ends the wait at once: the page
// is blocked until it is handled, and the result carries it.
func (s *session) Click(ctx context.Context, req engine.ClickRequest) (engine.ActionResult, error) {
	var res engine.ActionResult
	err := s.run(ctx, "click "+req.Target.String(), func(ctx context.Context, t *chromedp.Target) (err error) {
		if err := s.dialogErr(); err != nil {
			return err
		}
		m := s.st.mark()
		r, w, err := s.resolveFor(ctx, t, m, "point", req.Target, req.Timeout, req.Force, false, page.GuardClick)
		if err != nil {
			return err
		}
		g := &guardEnd{s: s, w: w}
		defer func() { g.drop(ctx, err) }()
		// The input runs on while a dialog it opened is answered: its hit
		// comes back on a channel, and only when it is there.
		hits := make(chan page.Hit, 1)
		res, err = s.actFor(ctx, t, m, req.NavigationTimeout, func(ctx context.Context) error {
			if err := mouseClick(ctx, t, r.X, r.Y, input.MouseButton(req.Button), req.ClickCount); err != nil {
				return err
			}
			hit := g.hit(ctx)
			hits <- hit
			return page.HitError(hit, req.Target, "click")
		})
		if err != nil || !req.Force {
			return err
		}
		var hit page.Hit
		select {
		case hit = <-hits:
		default:
		}
		// A forced click skipped the hit test, which said where it would
		// land: a click another element took is not a success.
		if r.Missed && !hit.OK {
			return page.MissedClick(r, req.Target)
		}
		res.ReceivedBy = r.Element
		return nil
	})
	return res, err
}

// mouseClick moves to x,y and clicks button count times, as a user does.
func mouseClick(ctx context.Context, t *chromedp.Target, x, y float64, button input.MouseButton, count int) error {
	if _, err := cdp.Call(ctx, t, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: x, Y: y}); err != nil {
		return err
	}
	for i := 1; i <= count; i++ {
		for _, typ := range []input.DispatchMouseEventType{input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased} {
			if _, err := cdp.Call(ctx, t, input.DispatchMouseEvent, input.DispatchMouseEventParams{
				Type: typ, X: x, Y: y, Button: button, Buttons: buttonsFor(typ, button), ClickCount: int64(i),
			}); err != nil {
				return err
			}
		}
	}
	return nil
}

// buttonsFor is the pressed-buttons bitmask while typ happens with button.
func buttonsFor(typ input.DispatchMouseEventType, button input.MouseButton) int64 {
	if typ != input.DispatchMouseEventTypeMousePressed {
		return 0
	}
	switch button {
	case input.MouseButtonRight:
		return 2
	case input.MouseButtonMiddle:
		return 4
	}
	return 1
}

// Type focuses an editable element and types text with real key events.
// The typing stops between two keys once req.TypeTimeout has passed since
// the call began, and the call answers TIMEOUT saying how much was typed:
// no key is sent after that.
func (s *session) Type(ctx context.Context, req engine.TypeRequest) (engine.ActionResult, error) {
	var res engine.ActionResult
	until := time.Now().Add(req.TypeTimeout)
	err := s.run(ctx, "type into "+req.Target.String(), func(ctx context.Context, t *chromedp.Target) error {
		if err := s.dialogErr(); err != nil {
			return err
		}
		m := s.st.mark()
		_, _, err := s.resolveFor(ctx, t, m, "focus", req.Target, req.Timeout, false, req.Clear, "")
		if err != nil {
			return err
		}
		res, err = s.actFor(ctx, t, m, req.NavigationTimeout, func(ctx context.Context) error {
			tctx, cancel := context.WithDeadline(ctx, until)
			defer cancel()
			typed := 0
			for _, r := range req.Text {
				if typed > 0 && req.Delay > 0 {
					select {
					case <-time.After(req.Delay):
					case <-tctx.Done():
					}
				}
				if tctx.Err() != nil && ctx.Err() == nil {
					return engine.TypingTimedOut(req, typed)
				}
				// A key is waited for under ctx, not tctx: once sent it is
				// typed, and the call must not answer before it was.
				if err := typeRune(ctx, t, r); err != nil {
					return err
				}
				typed++
			}
			return nil
		})
		return err
	})
	return res, err
}

// typeRune sends one character as a key press; newline is the Enter key.
func typeRune(ctx context.Context, t *chromedp.Target, r rune) error {
	down := input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyDown, Key: string(r), Text: string(r), UnmodifiedText: string(r)}
	if r == '\n' || r == '\r' {
		down = input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyDown, Key: "Enter", Code: "Enter", Text: "\r", UnmodifiedText: "\r",
			WindowsVirtualKeyCode: 13, NativeVirtualKeyCode: 13}
	}
	if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, down); err != nil {
		return err
	}
	up := down
	up.Type, up.Text, up.UnmodifiedText = input.DispatchKeyEventTypeKeyUp, "", ""
	_, err := cdp.Call(ctx, t, input.DispatchKeyEvent, up)
	return err
}

// settle waits for what an action started: a navigation of the page (until
// its load, bounded by navTimeout), or network requests (until a short quiet
// window, bounded) and the page work it set off (timers, frames and DOM
// changes, until quiet, bounded). An action that started none returns at
// once. Requests come before the page work they feed, and page work can
// start requests (a scroll handler's fetch): the two alternate while a
// round started new requests.
func (s *session) settle(ctx context.Context, t *chromedp.Target, m mark, navTimeout time.Duration) (engine.ActionResult, error) {
	st := s.st
	domUntil := time.Now().Add(engine.SettleDOMMax)
	deadline := time.Now().Add(engine.SettleNetworkMax)
	from := m.reqStarted // requests before this round
	for round := 0; ; round++ {
		if round > 0 {
			st.mu.Lock()
			from = st.reqStarted
			st.mu.Unlock()
		}
		// One round trip through the renderer, which also waits for the
		// page work: the events it sent while handling the action arrive
		// before the reply. A dialog stops the renderer, so the round trip
		// races it.
		opened, err := s.settleDOM(ctx, t, m, domUntil)
		if err != nil {
			return engine.ActionResult{}, err
		}
		if opened {
			return engine.ActionResult{Dialog: s.st.dialogSince(m)}, nil
		}
		navigated, err := s.settleNetwork(ctx, m, deadline)
		if err != nil {
			return engine.ActionResult{}, err
		}
		if navigated {
			return s.settleNavigation(ctx, m, navTimeout)
		}
		st.mu.Lock()
		started := st.reqStarted > from
		st.mu.Unlock()
		if !kit.SettleAgain(round, started, domUntil) {
			return engine.ActionResult{Dialog: st.dialogSince(m)}, nil
		}
	}
}

// settleNetwork waits for the requests started since m until the network
// is quiet, up to deadline, or reports a navigation of the page.
func (s *session) settleNetwork(ctx context.Context, m mark, deadline time.Time) (navigated bool, err error) {
	st := s.st
	return kit.SettleNetwork(ctx, func() (kit.Settling, <-chan struct{}) {
		st.mu.Lock()
		defer st.mu.Unlock()
		seen := kit.Settling{
			Navigated: st.navRequested > m.navRequested || st.commits > m.commits,
			Started:   st.reqStarted - m.reqStarted,
			Quiet:     time.Since(st.lastNet),
			Left:      time.Until(deadline),
		}
		for _, seq := range st.inflight {
			if seq > m.reqStarted {
				seen.Pending++
			}
		}
		return seen, st.changed
	})
}

// settleNavigation waits for a navigation that an action started to load.
func (s *session) settleNavigation(ctx context.Context, m mark, navTimeout time.Duration) (engine.ActionResult, error) {
	st := s.st
	nctx, cancel := context.WithTimeout(ctx, navTimeout)
	defer cancel()
	err := st.waitFor(nctx, func() bool {
		if st.dialog != nil && st.dialogs > m.dialogs {
			// A beforeunload dialog holds the navigation until handled.
			return true
		}
		switch {
		case st.commits > m.commits:
			return st.lifecycle[st.loader]["load"]
		case st.sameDoc > m.sameDoc:
			return true
		default:
			// The navigation was cancelled, turned into a download, or
			// answered 204: loading stopped with no new document.
			return st.stops > m.stops
		}
	})
	if err != nil && err != context.DeadlineExceeded {
		return engine.ActionResult{}, err
	}
	d := st.dialogSince(m)
	st.mu.Lock()
	defer st.mu.Unlock()
	return engine.ActionResult{Navigated: st.commits > m.commits || st.sameDoc > m.sameDoc, URL: st.url, Dialog: d}, nil
}

// guardEnd ends, once, the guard that resolve set in world w on an
// action's input: hit after the input, which says what the input hit, or
// drop on the action's way out when it failed before (or while) sending
// the input. A guard left behind would stop a later input at the same
// point, such as a mouse tool's click, for its whole lapse.
type guardEnd struct {
	s    *session
	w    *world
	done atomic.Bool
}

// hit is inputHit, once the input was sent.
func (g *guardEnd) hit(ctx context.Context) page.Hit {
	g.done.Store(true)
	return g.s.inputHit(ctx, g.w)
}

// drop ends the guard unless hit did, when err (the action's error) is
// set: an action that succeeded, or whose input opened a dialog, ran hit
// or runs it when the dialog is answered. ctx may have ended (a timeout
// during the input): drop has its own short deadline.
func (g *guardEnd) drop(ctx context.Context, err error) {
	if err == nil || g.w == nil || g.done.Swap(true) {
		return
	}
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), engine.CallGrace)
	defer cancel()
	g.s.inputHit(dctx, g.w)
}

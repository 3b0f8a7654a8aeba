package enginetest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// got is the state of drawer.html: how often each of its elements received
// the input meant for it.
type got struct {
	Checkout, Link, Restless, Target, Runaway, Bannered, Ad, Stuck, LateRight int
	AdReady                                                                   bool
}

func pageGot(t *testing.T, s engine.Session) got {
	t.Helper()
	var g got
	if err := json.Unmarshal([]byte(evaluate(t, s, engine.EvalRequest{Function: "() => window.got"})), &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// testStable holds the pointer actions on elements that move: an action
// waits until its target holds still, and never reports a success while
// another element received the input.
func (h *harness) testStable(t *testing.T) {
	t.Run("SlidingDrawer", func(t *testing.T) {
		// A drawer slides in with a CSS transition over a link, and its
		// button is clicked as soon as it is there, by selector and by ref
		// (taken from a snapshot, as an agent does). Every click reaches the
		// button, or answers an error; the link never gets one.
		s := h.open(t, "/drawer.html")
		const runs = 20
		clicked, failed := 0, 0
		for i := range runs {
			evaluate(t, s, engine.EvalRequest{Function: "() => { openDrawer(); return true; }"})
			tg := sel("#checkout")
			if i%2 == 1 {
				tg = engine.Target{Ref: refOf(t, snap(t, s).Text, "button", "Checkout")}
			}
			before := pageGot(t, s)
			res, err := s.Click(ctx(t), engine.ClickRequest{Target: tg})
			after := pageGot(t, s)
			if after.Link != before.Link {
				t.Fatalf("run %d: the click on %s (answer %+v, %v) landed on the link under the drawer", i, tg, res, err)
			}
			if err != nil {
				e := wantError(t, err, engine.ElementNotClickable, nil)
				t.Logf("run %d: the click on %s answered an error: %v (details %v)", i, tg, e, e.Details)
				failed++
				continue
			}
			if after.Checkout != before.Checkout+1 {
				t.Fatalf("run %d: the click on %s reported success (%+v), but the button's handler ran %d times", i, tg, res, after.Checkout-before.Checkout)
			}
			clicked++
		}
		t.Logf("%d of %d clicks reached the sliding button, %d answered an error", clicked, runs, failed)
		if clicked == 0 {
			t.Errorf("no click reached the button once it had stopped")
		}
	})
	t.Run("MovesAtTheClick", func(t *testing.T) {
		// A button that jumps away when the mouse comes over it: it holds
		// still for the check, and then moves as the mouse arrives. Chromium
		// hit-tests the press after that move, so the press would land on
		// the link: it is stopped before the page sees it, and the answer
		// names the link. Firefox (WebDriver BiDi) delivers the press to
		// the button before the move, and the click is the button's.
		s := h.open(t, "/drawer.html")
		res, err := s.Click(ctx(t), engine.ClickRequest{Target: sel("#runaway")})
		g := pageGot(t, s)
		if g.Link != 0 {
			t.Fatalf("the click on #runaway (answer %+v, %v) landed on the link", res, err)
		}
		if err == nil && !h.chromium() {
			if g.Runaway != 1 {
				t.Fatalf("the click on #runaway reported success, but the button got %d clicks", g.Runaway)
			}
			t.Logf("%s delivered the press to the button before it moved", h.eng.Name())
			return
		}
		e := wantError(t, err, engine.ElementNotClickable, map[string]any{"reason": "moved", "element": "button#runaway",
			"receivedBy": "a#continue", "hitText": "Continue shopping", "clicked": false, "selector": "#runaway"})
		if !strings.Contains(e.Message, `a#continue ("Continue shopping")`) {
			t.Errorf("message %q does not name the element that would have received the click", e.Message)
		}
		if g.Runaway != 0 {
			t.Fatalf("the refused click reached the button: %+v", g)
		}
		// Forced, the click goes ahead where the button was: the link gets
		// it, and the answer says so.
		_, err = s.Click(ctx(t), engine.ClickRequest{Target: sel("#runaway"), Force: true})
		wantError(t, err, engine.ElementNotClickable, map[string]any{"reason": "covered", "receivedBy": "a#continue", "clicked": true})
		if g := pageGot(t, s); g.Link != 1 || g.Runaway != 0 {
			t.Fatalf("after the forced click the page got %+v, want one click on the link", g)
		}
	})
	t.Run("CoveredByAnotherSite", func(t *testing.T) {
		// An advert from another site (localhost, where the page is on
		// 127.0.0.1: Chromium runs it in another process) slides over a
		// button as the mouse comes over it, between the check and the
		// press. The press goes into the advert's frame, where the guard
		// cannot listen: the click is an error that names the frame,
		// never a success.
		ad := strings.Replace(h.site.url("/ad.html"), "127.0.0.1", "localhost", 1)
		s := h.open(t, "/drawer.html?ad="+url.QueryEscape(ad))
		for i := 0; !pageGot(t, s).AdReady; i++ {
			if i == 600 {
				t.Fatal("the advert frame did not load")
			}
			time.Sleep(50 * time.Millisecond)
		}
		res, err := s.Click(ctx(t), engine.ClickRequest{Target: sel("#bannered"), Timeout: time.Second})
		g := pageGot(t, s)
		if err == nil {
			if h.chromium() || g.Bannered != 1 || g.Ad != 0 {
				t.Fatalf("the click on #bannered reported success (%+v), but the page got %+v", res, g)
			}
			t.Logf("%s delivered the press to the button before the advert covered it", h.eng.Name())
			return
		}
		e := wantError(t, err, engine.ElementNotClickable, map[string]any{"element": "button#bannered", "selector": "#bannered"})
		if by := fmt.Sprint(e.Details["receivedBy"], e.Details["coveredBy"]); !strings.Contains(by, "iframe#ad") {
			t.Errorf("the error %q (details %v) does not name the advert's frame", e.Message, e.Details)
		}
		if g.Bannered != 0 {
			t.Fatalf("the click answered %v, but the button got it: %+v", err, g)
		}
		t.Logf("answer: %v (details %v)", e, e.Details)
		if e.Details["clicked"] != true {
			return
		}
		// The click happened, in the advert: its frame says so.
		if e.Retryable || e.Details["receivedBy"] != "iframe#ad" {
			t.Errorf("a click that went to the advert must name it and not be retryable: %v", e.Details)
		}
		for i := 0; pageGot(t, s).Ad != 1; i++ {
			if i == 600 {
				t.Fatalf("the error says the advert received the click, but it did not: %+v", pageGot(t, s))
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	t.Run("FailedClickLeavesNoGuard", func(t *testing.T) {
		// A click whose input fails after the check leaves no guard behind
		// at the point. Here the page stalls in a synchronous request as
		// the mouse comes over the button, and lays a panel over it; the
		// click's call ends (its caller cancels it) during the stall. A
		// right click of the mouse tool at the same spot afterwards reaches
		// the panel: a guard left there would stop it and say nothing.
		s := h.open(t, "/drawer.html?stall=1000")
		cctx, cancel := context.WithCancel(ctx(t))
		defer cancel()
		done := make(chan error, 1)
		go func() {
			_, err := s.Click(cctx, engine.ClickRequest{Target: sel("#stuck")})
			done <- err
		}()
		select {
		case <-h.site.slow:
		case err := <-done:
			t.Fatalf("the click answered %v before the page stalled", err)
		case <-time.After(patience):
			t.Fatal("the page did not stall as the mouse came over the button")
		}
		cancel()
		select {
		case err := <-done:
			if err == nil {
				t.Fatal("the click cancelled during its input reported success")
			}
			t.Logf("the cancelled click answered %v", err)
		case <-time.After(patience):
			t.Fatal("the cancelled click did not return")
		}
		// Let the page finish the stall and what input it had queued.
		evaluate(t, s, engine.EvalRequest{Function: "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))"})
		before := pageGot(t, s)
		if _, err := s.Mouse(ctx(t), engine.MouseRequest{Action: "click", X: 440, Y: 640, Button: "right"}); err != nil {
			t.Fatalf("mouse click at the button's spot: %v", err)
		}
		after := pageGot(t, s)
		if after.LateRight != before.LateRight+1 {
			t.Fatalf("the mouse click at the spot of the failed click did not reach the panel there: before %+v, after %+v", before, after)
		}
		if after.Stuck != 0 {
			t.Errorf("the button under the panel got a click: %+v", after)
		}
	})
	t.Run("HoverWhereThePointerIs", func(t *testing.T) {
		// The drawer goes and slides in again under a pointer that has
		// not moved, which the page meanwhile took to hover the link;
		// hovering its button again is a move to the same point, which
		// Firefox sent nowhere: the answer said hovered and the page kept
		// its hover on the link. Each hover leaves the button hovered.
		s := h.open(t, "/drawer.html")
		checkout := sel("#checkout")
		for i := range 3 {
			evaluate(t, s, engine.EvalRequest{Function: "() => { openDrawer(); return true; }"})
			if _, err := s.Hover(ctx(t), engine.HoverRequest{Target: checkout}); err != nil {
				wantError(t, err, engine.ElementNotClickable, nil)
				continue
			}
			if got := evaluate(t, s, engine.EvalRequest{Function: "() => [...document.querySelectorAll(':hover')].map((e) => e.id).filter(Boolean).join(' ')"}); got != `"drawer checkout"` {
				t.Errorf("hover %d answered hovered, and the page hovers %s", i, got)
			}
		}
	})
	t.Run("NeverStops", func(t *testing.T) {
		// A button in an infinite CSS animation: each pointer action on it
		// says that it kept moving, and nothing receives the input.
		s := h.open(t, "/drawer.html")
		const timeout = 600 * time.Millisecond
		restless := sel("#restless")
		ref := engine.Target{Ref: refOf(t, snap(t, s).Text, "button", "Restless")}
		calls := []struct {
			name string
			do   func() error
		}{
			{"click", func() error {
				_, err := s.Click(ctx(t), engine.ClickRequest{Target: restless, Timeout: timeout})
				return err
			}},
			{"click by ref", func() error {
				_, err := s.Click(ctx(t), engine.ClickRequest{Target: ref, Timeout: timeout})
				return err
			}},
			{"double click", func() error {
				_, err := s.Click(ctx(t), engine.ClickRequest{Target: restless, ClickCount: 2, Timeout: timeout})
				return err
			}},
			{"hover", func() error {
				_, err := s.Hover(ctx(t), engine.HoverRequest{Target: restless, Timeout: timeout})
				return err
			}},
			{"drag", func() error {
				_, err := s.Drag(ctx(t), engine.DragRequest{Source: restless, Target: sel("#target"), Timeout: timeout})
				return err
			}},
		}
		for _, c := range calls {
			err := c.do()
			if !supported(t, err) {
				continue // Firefox: no double clicks
			}
			e := wantError(t, err, engine.ElementNotClickable, map[string]any{"reason": "not_stable", "element": "button#restless"})
			if !strings.Contains(e.Message, "moving") {
				t.Errorf("%s: message %q does not say that the element kept moving", c.name, e.Message)
			}
			if g := pageGot(t, s); g != (got{}) {
				t.Fatalf("%s answered %v, but the page received input: %+v", c.name, err, g)
			}
		}
		// A forced click skips the wait: it goes where the button was, and
		// says what received it.
		_, err := s.Click(ctx(t), engine.ClickRequest{Target: restless, Force: true, Timeout: timeout})
		g := pageGot(t, s)
		if err == nil && g.Restless == 0 {
			t.Errorf("a forced click reported success, but the button got nothing: %+v", g)
		}
		if err != nil {
			wantError(t, err, engine.ElementNotClickable, map[string]any{"reason": "covered", "clicked": true})
		}
	})
}

package enginetest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// testSettle checks that an action returns after the page work it set off
// (timers, animation frames, DOM changes, the requests of its handlers), so
// that what the agent reads next is the page the action left, and that
// networkidle means no request in flight. /settle.html also runs a clock
// and a spinner of its own that never stop: no action may wait on them.
func (h *harness) testSettle(t *testing.T) {
	t.Run("ClickWaitsForTimer", func(t *testing.T) {
		// Next reveals step 2 300 ms after the click.
		s := h.open(t, "/settle.html")
		click(t, s, engine.ClickRequest{Target: sel("#next")})
		snap, err := s.Snapshot(ctx(t), engine.SnapshotRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(snap.Text, "Step 2") || strings.Contains(snap.Text, "Step 1") {
			t.Fatalf("the snapshot after the click shows step 1, not step 2:\n%s", snap.Text)
		}
		if got := evaluate(t, s, engine.EvalRequest{Expression: `document.getElementById("step2").innerText`}); !strings.Contains(got, "Enter your details") {
			t.Errorf("step 2 text after the click = %s", got)
		}
	})
	t.Run("ClickWaitsForChainedWork", func(t *testing.T) {
		// A frame, then a timer started by it, then one started by that.
		s := h.open(t, "/settle.html")
		click(t, s, engine.ClickRequest{Target: sel("#chain")})
		if got := evaluate(t, s, engine.EvalRequest{Expression: `document.getElementById("chained").textContent`}); got != `"chain done"` {
			t.Fatalf("#chained after the click = %s, want \"chain done\"", got)
		}
	})
	t.Run("TypeWaitsForDebounce", func(t *testing.T) {
		s := h.open(t, "/settle.html")
		typeText(t, s, engine.TypeRequest{Target: sel("#search"), Text: "ada"})
		if got := evaluate(t, s, engine.EvalRequest{Expression: `document.getElementById("results").textContent`}); got != `"results for ada"` {
			t.Fatalf("#results after typing = %s, want \"results for ada\"", got)
		}
	})
	t.Run("InFrame", func(t *testing.T) {
		// The same wizard in a same-origin iframe: a click on its Next
		// waits for the frame's 300 ms timer, typing in its search box for
		// the frame's debounce.
		s := h.open(t, "/settle-frame.html")
		var text string
		testenv.Eventually(t, "the frame's wizard", func() (bool, error) {
			text = snap(t, s).Text
			return strings.Contains(text, `button "Next"`), fmt.Errorf("no Next button in the snapshot:\n%s", text)
		})
		click(t, s, engine.ClickRequest{Target: engine.Target{Ref: refOf(t, text, "button", "Next")}})
		if after := snap(t, s).Text; !strings.Contains(after, "Step 2") || strings.Contains(after, "Step 1") {
			t.Fatalf("the snapshot after the click in the frame shows step 1, not step 2:\n%s", after)
		}
		typeText(t, s, engine.TypeRequest{Target: engine.Target{Ref: refOf(t, text, "textbox", "Search")}, Text: "ada"})
		if after := snap(t, s).Text; !strings.Contains(after, "results for ada") {
			t.Fatalf("the snapshot after typing in the frame shows no results:\n%s", after)
		}
	})
	t.Run("ClickThatStartsNothing", func(t *testing.T) {
		// The page's own clock and spinner keep running; a click whose
		// handler only changes the page returns with its change.
		s := h.open(t, "/settle.html")
		for i := 1; i <= 3; i++ {
			click(t, s, engine.ClickRequest{Target: sel("#count")})
			wantTitle(t, s, "clicked "+strconv.Itoa(i))
		}
	})
	t.Run("PageSeesNoWrappers", func(t *testing.T) {
		// The tracker wraps the page's timer functions; the page cannot
		// tell them from the browser's.
		s := h.open(t, "/settle.html")
		got := evaluate(t, s, engine.EvalRequest{Function: `() => [
			setTimeout.name, /\[native code\]/.test(Function.prototype.toString.call(setTimeout)),
			requestAnimationFrame.name, /\[native code\]/.test(String(requestAnimationFrame)),
			window.setTimeout === setTimeout, typeof setTimeout(() => {}, 0),
			Object.keys(window).some(k => /bmcp|settle/i.test(k)),
		]`})
		if got != `["setTimeout",true,"requestAnimationFrame",true,true,"number",false]` {
			t.Fatalf("the page sees the tracker: %s", got)
		}
		// Timers keep their arguments, this, and cancellation.
		got = evaluate(t, s, engine.EvalRequest{Expression: `new Promise(r => {
			const x = setTimeout(() => r("cleared timer ran"), 10); clearTimeout(x);
			setTimeout(function (a, b) { r([a, b, this === window]); }, 20, "a", 2);
		})`})
		if got != `["a",2,true]` {
			t.Fatalf("timer = %s", got)
		}
	})
	t.Run("ScrollLoadsMore", func(t *testing.T) {
		// Scrolled to the bottom, the list fetches the next page (400 ms)
		// and appends it: a scroll returns after that, as the scroll tool
		// asks Evaluate.
		s := h.open(t, "/infinite.html")
		evaluate(t, s, engine.EvalRequest{Function: `(x, y) => { scrollBy(x, y); return scrollY; }`, Args: []any{0, 100000}, Settle: true, Frame: true})
		if got := evaluate(t, s, engine.EvalRequest{Expression: `document.querySelectorAll("#list li").length`}); got != "40" {
			t.Fatalf("items after scrolling to the bottom = %s, want 40 (%s)", got, evaluate(t, s, engine.EvalRequest{Expression: `[scrollY, document.body.scrollHeight, innerHeight, document.getElementById("status").textContent]`}))
		}
	})
	t.Run("NetworkIdleWaitsForRequests", func(t *testing.T) {
		s := h.session(t)
		if _, err := s.Navigate(ctx(t), engine.NavigateRequest{URL: h.site.url("/idle.html"), WaitUntil: engine.WaitNetworkIdle}); err != nil {
			t.Fatal(err)
		}
		// The page was network-idle; now it starts a request of a second.
		evaluate(t, s, engine.EvalRequest{Function: `() => { load(); }`})
		if _, err := s.WaitForLoad(ctx(t), engine.WaitNetworkIdle, patience); err != nil {
			t.Fatal(err)
		}
		log, err := s.RequestLog(ctx(t), engine.RequestLogQuery{Filter: "/slow"})
		if err != nil {
			t.Fatal(err)
		}
		if len(log.Requests) != 1 {
			t.Fatalf("request log for /slow = %+v, want the page's one request", log.Requests)
		}
		if i := slices.IndexFunc(log.Requests, func(e engine.RequestEntry) bool { return e.State == "pending" }); i >= 0 {
			t.Fatalf("networkidle returned with a request in flight: %+v", log.Requests[i])
		}
		wantTitle(t, s, "loaded")
	})
}

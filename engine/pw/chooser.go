package pw

import (
	"context"
	"fmt"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine"
)

// A native file chooser. Every page listens for its file choosers
// (Page.OnFileChooser), which makes Playwright intercept them: the browser
// shows none and the listener gets the input. As in engine/cdp, the
// chooser then waits like a dialog: the action that opened it reports it,
// every other page call answers FILE_CHOOSER_OPEN (alive), and Upload
// without a target fills it (FileChooser.SetFiles, which fires input and
// change) or cancels it. Navigating the tab drops it. Playwright 1.52's
// WebDriver BiDi backend for Firefox asks for no chooser; launch_server.js
// subscribes to Firefox's input.fileDialogOpened and hands each to
// Playwright as Chromium's are (minFirefoxChoosers). An older Firefox
// reports none, and an Upload without a target there answers UNSUPPORTED.

// Playwright reports a chooser only after a few round trips to the
// browser of its own (it adopts the input, reads its multiple), so the
// report may come after the action has settled. pickScript counts, in
// every document, the file inputs clicked (by the user, through a label,
// or by a script's input.click(), attached or not); settle reads the
// count in its last round trip, and when it grew waits a little for the
// chooser the click opened (a click without a user's activation opens
// none: the wait then ends at chooserGrace).
const pickScript = `(() => {
  const k = Symbol.for("browsermcp.picked"), w = window;
  if (w[k] !== undefined) return;
  let n = 0;
  Object.defineProperty(w, k, { get: () => { const v = n; n = 0; return v; }, enumerable: false });
  const isFile = (el) => el instanceof w.HTMLInputElement && el.type === "file";
  w.addEventListener("click", (e) => { if (isFile(e.composedPath()[0])) n++; }, { capture: true, passive: true });
  const proto = w.HTMLInputElement.prototype;
  for (const m of ["click", "showPicker"]) {
    const f = proto[m];
    if (typeof f !== "function") continue;
    // Detached inputs' clicks never reach the window's listener.
    proto[m] = { [m]() { if (isFile(this) && !this.isConnected) n++; return f.apply(this, arguments); } }[m];
  }
})();`

// pickedExpr reads and resets pickScript's count.
const pickedExpr = `window[Symbol.for("browsermcp.picked")] || 0`

// chooserGrace bounds the wait for the chooser of a file input clicked.
const chooserGrace = 3 * time.Second

// awaitChooser waits, at most chooserGrace, for a chooser opened after m.
func (s *session) awaitChooser(ctx context.Context, m mark) {
	ctx, cancel := context.WithTimeout(ctx, chooserGrace)
	defer cancel()
	for {
		s.st.mu.Lock()
		done, ch := s.st.choosers > m.choosers || s.st.dialogs > m.dialogs || s.st.closed || s.st.crashed, s.st.changed
		s.st.mu.Unlock()
		if done {
			return
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}

// choosersReported tells whether the engine's browser reports its file
// choosers: Chromium does, and a Firefox new enough for launch_server.js
// to wire its input.fileDialogOpened into Playwright.
func choosersReported(e *Engine, b *browserProc) bool {
	return e.cfg.Browser != Firefox || firefoxMajor(b.browser.Version()) >= minFirefoxChoosers
}

// pendingChooser is a chooser waiting for Upload.
type pendingChooser struct {
	info engine.FileChooser
	fc   playwright.FileChooser
}

// watchChoosers records the page's file choosers.
func (st *pageState) watchChoosers(p playwright.Page) {
	p.OnFileChooser(func(fc playwright.FileChooser) {
		st.update(func() {
			st.chooser = &pendingChooser{info: engine.FileChooser{Multiple: fc.IsMultiple()}, fc: fc}
			st.choosers++
		})
	})
}

// chooserErr fails with FILE_CHOOSER_OPEN while a chooser waits.
func (st *pageState) chooserErr() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.chooser == nil {
		return nil
	}
	return engine.FileChooserPending(st.chooser.info)
}

// chooserSince returns the chooser an action opened after m, if it still
// waits.
func (st *pageState) chooserSince(m mark) *engine.FileChooser {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.choosers > m.choosers && st.chooser != nil {
		fc := st.chooser.info
		return &fc
	}
	return nil
}

// dropChooser forgets the waiting chooser (the agent navigates away), or
// only pc when it is given and still the one waiting.
func (st *pageState) dropChooser(pc *pendingChooser) {
	st.update(func() {
		if st.chooser != nil && (pc == nil || st.chooser == pc) {
			release(st.chooser.fc.Element())
			st.chooser = nil
		}
	})
}

// answerChooser fills the waiting chooser with req.Files, or cancels it
// when there are none, then waits for what that started, as an action.
func (s *session) answerChooser(ctx context.Context, req engine.UploadRequest) (engine.ActionResult, error) {
	if err := s.alivePage(); err != nil {
		return engine.ActionResult{}, err
	}
	s.st.mu.Lock()
	pc := s.st.chooser
	s.st.mu.Unlock()
	if pc == nil {
		if !choosersReported(s.e, s.b) {
			return engine.ActionResult{}, unsupported(Firefox, "answering a file chooser",
				fmt.Sprintf("this Firefox's WebDriver BiDi does not report them (Firefox %d or newer does), so no action reports one; name the <input type=file> with selector or ref instead", minFirefoxChoosers))
		}
		return engine.ActionResult{}, engine.NoFileChooser()
	}
	if !pc.info.Multiple && len(req.Files) > 1 {
		return engine.ActionResult{}, engine.Errorf(engine.InvalidParameters, "the file chooser takes one file, got %d", len(req.Files)).With("field", "files")
	}
	m := s.st.mark()
	err := do(ctx, func() error {
		if len(req.Files) > 0 {
			return pc.fc.SetFiles(req.Files, playwright.FileChooserSetFilesOptions{Timeout: ms(remaining(ctx, req.Timeout))})
		}
		// Cancelled: the input hears it as from a user who closed the
		// chooser.
		_, err := pc.fc.Element().Evaluate(`el => { el.dispatchEvent(new Event("cancel", {bubbles: true})); }`)
		return err
	})
	if err != nil {
		if ctx.Err() != nil {
			return engine.ActionResult{}, s.classify(err, "answer the file chooser")
		}
		// The input left the document (or its page went away): nothing
		// can fill it any more.
		s.st.dropChooser(pc)
		return engine.ActionResult{}, engine.Wrap(engine.ElementNotFound, err, "could not answer the file chooser: its input is gone from the page: "+firstLine(err)).
			With("reason", "stale_ref")
	}
	s.st.dropChooser(pc)
	return s.settle(ctx, m, engine.DefaultNavigationTimeout)
}

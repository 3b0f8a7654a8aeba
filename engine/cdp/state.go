package cdp

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/seed4af8c199/browsermcp/engine"
)

// pageState follows a tab's events so that actions can wait for exactly what
// they started (a navigation, network requests) instead of sleeping. Its
// handler runs on the tab's reader goroutine, so it only records and wakes.
type pageState struct {
	mu      sync.Mutex
	changed chan struct{} // closed and replaced on every recorded change

	mainFrame cdp.FrameID
	url       string
	loader    cdp.LoaderID               // committed main-frame document
	lifecycle map[cdp.LoaderID]lifeSet   // lifecycle events per loader
	docStatus map[cdp.LoaderID]docResult // main document response per loader

	// Counters let an action compare before and after.
	navRequested int // renderer asked to navigate the main frame
	commits      int // main frame committed a new document
	sameDoc      int // main frame navigated within the document
	stops        int // main frame stopped loading
	reqStarted   int // network requests started

	inflight map[network.RequestID]int // request -> its reqStarted number
	lastNet  time.Time

	crashed bool
	// crash ends when the tab's renderer crashes, so that calls in flight
	// on it end at once: a crashed renderer answers nothing.
	crash    context.Context
	crashNow context.CancelFunc

	// origins are the web origins the session's frames have loaded, for
	// saving their localStorage.
	origins map[string]bool

	// dialog is the JavaScript dialog open on the page, nil when none.
	dialog    *engine.Dialog
	dialogSrc target.ID // "" for the page, else the OOPIF that opened it
	// dialogs counts dialogs opened; lastDialog is the latest one, which
	// keeps how the policy handled it after it closed.
	dialogs    int
	lastDialog *engine.Dialog
	// onDialog runs (on the tab's reader goroutine) for every new dialog;
	// the session sets it to apply a non-manual dialog policy.
	onDialog func(*engine.Dialog)

	// chooser is the file chooser waiting for Upload, nil when none
	// (chooser.go); choosers counts the choosers opened.
	chooser  *fileChooser
	choosers int

	// oopifs are the out-of-process iframe targets attached to the page,
	// by target id, which for an iframe is its frame id.
	oopifs     map[target.ID]bool
	oopifBySes map[target.SessionID]target.ID
}

type lifeSet map[string]bool

type docResult struct {
	status int
	url    string
}

func newPageState() *pageState {
	crash, crashNow := context.WithCancel(context.Background())
	return &pageState{
		crash: crash, crashNow: crashNow,
		changed:    make(chan struct{}),
		lifecycle:  map[cdp.LoaderID]lifeSet{},
		docStatus:  map[cdp.LoaderID]docResult{},
		inflight:   map[network.RequestID]int{},
		origins:    map[string]bool{},
		oopifs:     map[target.ID]bool{},
		oopifBySes: map[target.SessionID]target.ID{},
	}
}

// onEvent is the tab listener. It must return fast and never call CDP.
func (s *pageState) onEvent(ev any) { s.record("", ev) }

// listener returns the listener for an out-of-process iframe's target: its
// requests count for settling and its dialogs block the page like the
// page's own.
func (s *pageState) listener(src target.ID) func(any) {
	return func(ev any) { s.record(src, ev) }
}

func (s *pageState) record(src target.ID, ev any) {
	if src != "" {
		// Only the page's own frame events describe the page.
		switch ev.(type) {
		case *page.EventFrameNavigated, *page.EventNavigatedWithinDocument, *page.EventFrameRequestedNavigation,
			*page.EventFrameStartedNavigating, *page.EventFrameStoppedLoading, *page.EventLifecycleEvent,
			*inspector.EventTargetCrashed:
			return
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch ev := ev.(type) {
	case *page.EventFrameNavigated:
		if o := ev.Frame.SecurityOrigin; strings.HasPrefix(o, "http") {
			s.origins[o] = true
		}
		if ev.Frame.ParentID != "" {
			return
		}
		s.mainFrame = ev.Frame.ID
		s.url = ev.Frame.URL + ev.Frame.URLFragment
		if ev.Frame.LoaderID != s.loader {
			s.loader = ev.Frame.LoaderID
			s.commits++
			s.gcLoaders()
			s.chooser = nil // its input went with the old document
		}
	case *page.EventNavigatedWithinDocument:
		if ev.FrameID != s.mainFrame {
			return
		}
		s.url = ev.URL
		s.sameDoc++
	case *page.EventFrameRequestedNavigation:
		if ev.FrameID != s.mainFrame && s.mainFrame != "" {
			return
		}
		s.navRequested++
	case *page.EventFrameStartedNavigating:
		if ev.FrameID != s.mainFrame && s.mainFrame != "" {
			return
		}
		s.navRequested++
	case *page.EventFrameStoppedLoading:
		if ev.FrameID != s.mainFrame {
			return
		}
		s.stops++
	case *page.EventLifecycleEvent:
		if ev.FrameID != s.mainFrame && s.mainFrame != "" {
			return
		}
		set := s.lifecycle[ev.LoaderID]
		if set == nil || ev.Name == "init" {
			set = lifeSet{}
			s.lifecycle[ev.LoaderID] = set
		}
		set[ev.Name] = true
	case *network.EventRequestWillBeSent:
		if ev.RedirectResponse != nil {
			// Same request id, continued: it stays in flight.
			s.lastNet = time.Now()
			break
		}
		if ev.Type == network.ResourceTypeWebSocket || ev.Type == network.ResourceTypeEventSource {
			return
		}
		s.reqStarted++
		s.inflight[ev.RequestID] = s.reqStarted
		s.lastNet = time.Now()
	case *network.EventResponseReceived:
		if ev.Type == network.ResourceTypeDocument && (ev.FrameID == s.mainFrame || s.mainFrame == "") {
			s.docStatus[ev.LoaderID] = docResult{status: int(ev.Response.Status), url: ev.Response.URL}
		}
	case *network.EventLoadingFinished:
		s.finish(ev.RequestID)
	case *network.EventLoadingFailed:
		s.finish(ev.RequestID)
	case *inspector.EventTargetCrashed:
		s.crashed = true
		s.crashNow()
	case *page.EventJavascriptDialogOpening:
		d := &engine.Dialog{Type: engine.DialogType(ev.Type), Message: ev.Message}
		if d.Type == engine.DialogPrompt {
			d.DefaultValue = ev.DefaultPrompt
		}
		s.dialog, s.lastDialog, s.dialogSrc = d, d, src
		s.dialogs++
		if s.onDialog != nil {
			s.onDialog(d)
		}
	case *page.EventJavascriptDialogClosed:
		s.dialog = nil
	case *page.EventFileChooserOpened:
		if src != "" {
			return // an out-of-process iframe's: not intercepted
		}
		s.chooserOpened(ev)
	case *target.EventAttachedToTarget:
		if ev.TargetInfo != nil && ev.TargetInfo.Type == "iframe" {
			s.oopifs[ev.TargetInfo.TargetID] = true
			s.oopifBySes[ev.SessionID] = ev.TargetInfo.TargetID
		}
		return
	case *target.EventDetachedFromTarget:
		delete(s.oopifs, s.oopifBySes[ev.SessionID])
		delete(s.oopifBySes, ev.SessionID)
		return
	default:
		return
	}
	s.wakeLocked()
}

func (s *pageState) finish(id network.RequestID) {
	if _, ok := s.inflight[id]; ok {
		delete(s.inflight, id)
		s.lastNet = time.Now()
	}
}

// gcLoaders forgets loaders other than the current one, bounding memory.
func (s *pageState) gcLoaders() {
	for id := range s.lifecycle {
		if id != s.loader {
			delete(s.lifecycle, id)
		}
	}
	for id := range s.docStatus {
		if id != s.loader {
			delete(s.docStatus, id)
		}
	}
}

func (s *pageState) wakeLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// waitFor blocks until cond (called under the lock) is true, ctx ends, or
// the tab crashes. It returns errCrashed or ctx.Err() on failure.
func (s *pageState) waitFor(ctx context.Context, cond func() bool) error {
	for {
		s.mu.Lock()
		if s.crashed {
			s.mu.Unlock()
			return errCrashed
		}
		if cond() {
			s.mu.Unlock()
			return nil
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// mark is a copy of the counters taken before an action.
type mark struct {
	navRequested, commits, sameDoc, stops, reqStarted, dialogs, choosers int
}

func (s *pageState) mark() mark {
	s.mu.Lock()
	defer s.mu.Unlock()
	return mark{s.navRequested, s.commits, s.sameDoc, s.stops, s.reqStarted, s.dialogs, s.choosers}
}

// dialogSince returns the latest dialog opened after m, or nil.
func (s *pageState) dialogSince(m mark) *engine.Dialog {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dialogs > m.dialogs && s.lastDialog != nil {
		d := *s.lastDialog
		return &d
	}
	return nil
}

// dialogAfter returns the dialog open now if it opened after m (else nil),
// and the channel closed at the next recorded change.
func (s *pageState) dialogAfter(m mark) (*engine.Dialog, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dialogs > m.dialogs && s.dialog != nil {
		d := *s.dialog
		return &d, s.changed
	}
	return nil, s.changed
}

// isOOPIF tells whether frame runs in its own process, as an iframe target.
func (s *pageState) isOOPIF(frame cdp.FrameID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.oopifs[target.ID(frame)]
}

// openDialog returns the dialog open now, or nil.
func (s *pageState) openDialog() *engine.Dialog {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dialog == nil {
		return nil
	}
	d := *s.dialog
	return &d
}

// lifecycleName maps a WaitUntil to Chromium's lifecycle event name.
var lifecycleName = map[string]string{
	"load":             "load",
	"domcontentloaded": "DOMContentLoaded",
	"networkidle":      "networkIdle",
}

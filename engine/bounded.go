package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// Bound wraps s so that every call on it gets, in this one place, what the
// engines must not each invent: the request's defaults, its validation, and a
// deadline derived from the waits the request names. A call that overruns its
// deadline answers TIMEOUT naming the call, never a bare context error. The
// session runtime bounds every session it creates; the conformance suite does
// the same, so engines are always called with complete requests.
func Bound(s Session) Session {
	return BoundWith(s, Timeouts{})
}

// Timeouts are the waits a call gets when its request names none: how
// long an element action waits for its element, and how long a
// navigation may take. A zero field is the package default
// (DefaultActionTimeout, DefaultNavigationTimeout); the server's
// --timeout-action and --timeout-navigation set them.
type Timeouts struct {
	Action, Navigation time.Duration
}

// withDefaults fills the zero fields of t with the package defaults.
func (t Timeouts) withDefaults() Timeouts {
	t.Action = orDefault(t.Action, DefaultActionTimeout)
	t.Navigation = orDefault(t.Navigation, DefaultNavigationTimeout)
	return t
}

// BoundWith is Bound with t as the default waits of requests that name
// none, in place of the package defaults.
func BoundWith(s Session, t Timeouts) Session {
	if b, ok := s.(*bounded); ok {
		return b
	}
	return &bounded{s: s, t: t.withDefaults()}
}

// TimeoutsOf returns the default waits of s: those BoundWith gave it, or
// the package defaults.
func TimeoutsOf(s Session) Timeouts {
	if b, ok := s.(*bounded); ok {
		return b.t
	}
	return Timeouts{}.withDefaults()
}

type bounded struct {
	s Session
	t Timeouts
}

// As finds T (such as an engine's own session type, in its tests) on s, or
// on the engine's session that Bound wrapped. What every session offers is
// on the Session contract instead, where no wrapper can hide it.
func As[T any](s Session) (T, bool) {
	if b, ok := s.(*bounded); ok {
		s = b.s
	}
	t, ok := s.(T)
	return t, ok
}

// Within runs f under a deadline d from now (or the caller's, if sooner).
// When that deadline passed, an error that has no code of its own (a bare
// context error, or a BROWSER_ERROR the deadline caused) becomes TIMEOUT;
// a coded error, such as ELEMENT_NOT_FOUND after the wait for an element,
// stays. A caller's cancellation is left as it is.
func Within[T any](ctx context.Context, what string, d time.Duration, f func(context.Context) (T, error)) (T, error) {
	if dl, ok := ctx.Deadline(); ok {
		d = min(d, time.Until(dl)) // the caller's deadline comes first
	}
	cctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	v, err := f(cctx)
	if err != nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
		var e *Error
		if !errors.As(err, &e) || (e.Code == BrowserError && errors.Is(err, context.DeadlineExceeded)) {
			err = timedOut(what, d, err)
		}
	}
	return v, err
}

// timedOut is the TIMEOUT error of a call that ran out of time.
func timedOut(what string, d time.Duration, cause error) *Error {
	e := Wrap(Timeout, cause, fmt.Sprintf("%s did not finish within its deadline", what))
	if d > 0 {
		e.Message = fmt.Sprintf("%s did not finish within %s", what, d.Round(time.Millisecond))
		e.With("deadlineMs", d.Milliseconds())
	}
	return e
}

// withinErr is within for calls that return only an error.
func withinErr(ctx context.Context, what string, d time.Duration, f func(context.Context) error) error {
	_, err := Within(ctx, what, d, func(ctx context.Context) (struct{}, error) { return struct{}{}, f(ctx) })
	return err
}

// navigated completes the result of an action that loaded a new page with
// its title, for every engine alike: the agent learns where it is without
// another call.
func (b *bounded) navigated(ctx context.Context) func(ActionResult, error) (ActionResult, error) {
	return func(res ActionResult, err error) (ActionResult, error) {
		if err == nil && res.Navigated && res.Title == "" {
			ctx, cancel := context.WithTimeout(ctx, InfoTimeout)
			defer cancel()
			p := b.s.Info(ctx)
			res.Title = p.Title
			if res.URL == "" {
				res.URL = p.URL
			}
		}
		return res, err
	}
}

func (b *bounded) Navigate(ctx context.Context, req NavigateRequest) (NavigateResult, error) {
	if err := req.Validate(); err != nil {
		return NavigateResult{}, err
	}
	req.Timeout = orDefault(req.Timeout, b.t.Navigation)
	req = req.WithDefaults()
	return Within(ctx, "navigate", req.deadline(), func(ctx context.Context) (NavigateResult, error) { return b.s.Navigate(ctx, req) })
}

func (b *bounded) Click(ctx context.Context, req ClickRequest) (ActionResult, error) {
	if err := req.Validate(); err != nil {
		return ActionResult{}, err
	}
	req.Timeout = orDefault(req.Timeout, b.t.Action)
	req.NavigationTimeout = orDefault(req.NavigationTimeout, b.t.Navigation)
	req = req.WithDefaults()
	return b.navigated(ctx)(Within(ctx, "click on "+req.Target.String(), req.deadline(), b.report(func(ctx context.Context) (ActionResult, error) {
		return retryBlocked(req.Timeout, func(d time.Duration) (ActionResult, error) { req.Timeout = d; return b.s.Click(ctx, req) })
	})))
}

func (b *bounded) Type(ctx context.Context, req TypeRequest) (ActionResult, error) {
	if err := req.Validate(); err != nil {
		return ActionResult{}, err
	}
	if req.Timeout <= 0 && req.TypeTimeout <= 0 {
		req.TypeTimeout = b.t.Action + DefaultCallTimeout + time.Duration(utf8.RuneCountInString(req.Text))*req.Delay
	}
	req.Timeout = orDefault(req.Timeout, b.t.Action)
	req.NavigationTimeout = orDefault(req.NavigationTimeout, b.t.Navigation)
	req = req.WithDefaults()
	return b.navigated(ctx)(Within(ctx, "type into "+req.Target.String(), req.deadline(), b.report(func(ctx context.Context) (ActionResult, error) { return b.s.Type(ctx, req) })))
}

func (b *bounded) Snapshot(ctx context.Context, req SnapshotRequest) (SnapshotResult, error) {
	return Within(ctx, "snapshot", DefaultCallTimeout, func(ctx context.Context) (SnapshotResult, error) { return b.s.Snapshot(ctx, req) })
}

func (b *bounded) HandleDialog(ctx context.Context, req DialogRequest) (ActionResult, error) {
	req.NavigationTimeout = orDefault(req.NavigationTimeout, b.t.Navigation)
	req = req.WithDefaults()
	return b.navigated(ctx)(Within(ctx, "handle_dialog", req.deadline(), b.report(func(ctx context.Context) (ActionResult, error) { return b.s.HandleDialog(ctx, req) })))
}

// Info has a short deadline of its own: list_sessions calls it on sessions
// that may be busy, and must not wait for them.
func (b *bounded) Info(ctx context.Context) PageInfo {
	ctx, cancel := context.WithTimeout(ctx, InfoTimeout)
	defer cancel()
	return b.s.Info(ctx)
}

func (b *bounded) Close(ctx context.Context) error {
	return withinErr(ctx, "close", CloseTimeout, b.s.Close)
}

func (b *bounded) Evaluate(ctx context.Context, req EvalRequest) (json.RawMessage, error) {
	if err := checkTimeouts(map[string]time.Duration{"timeout": req.Timeout}); err != nil {
		return nil, err
	}
	return Within(ctx, "evaluate", req.deadline(), func(ctx context.Context) (json.RawMessage, error) { return b.s.Evaluate(ctx, req) })
}

func (b *bounded) Screenshot(ctx context.Context, req ScreenshotRequest) ([]byte, error) {
	return Within(ctx, "screenshot", DefaultCallTimeout, func(ctx context.Context) ([]byte, error) { return b.s.Screenshot(ctx, req) })
}

func (b *bounded) History(ctx context.Context, delta int, timeout time.Duration) (NavigateResult, error) {
	if err := checkTimeouts(map[string]time.Duration{"timeout": timeout}); err != nil {
		return NavigateResult{}, err
	}
	timeout = orDefault(timeout, b.t.Navigation)
	return Within(ctx, "history", timeout+CallGrace, func(ctx context.Context) (NavigateResult, error) { return b.s.History(ctx, delta, timeout) })
}

func (b *bounded) Reload(ctx context.Context, ignoreCache bool, timeout time.Duration) (NavigateResult, error) {
	if err := checkTimeouts(map[string]time.Duration{"timeout": timeout}); err != nil {
		return NavigateResult{}, err
	}
	timeout = orDefault(timeout, b.t.Navigation)
	return Within(ctx, "reload", timeout+CallGrace, func(ctx context.Context) (NavigateResult, error) { return b.s.Reload(ctx, ignoreCache, timeout) })
}

func (b *bounded) WaitForLoad(ctx context.Context, state WaitUntil, timeout time.Duration) (NavigateResult, error) {
	if err := checkTimeouts(map[string]time.Duration{"timeout": timeout}); err != nil {
		return NavigateResult{}, err
	}
	timeout = orDefault(timeout, b.t.Navigation)
	if state == "" {
		state = WaitLoad
	}
	return Within(ctx, "wait_for_load", timeout+CallGrace, func(ctx context.Context) (NavigateResult, error) {
		return b.s.WaitForLoad(ctx, state, timeout)
	})
}

func (b *bounded) Hover(ctx context.Context, req HoverRequest) (ActionResult, error) {
	if err := checkTimeouts(map[string]time.Duration{"timeout": req.Timeout}); err != nil {
		return ActionResult{}, err
	}
	req.Timeout = orDefault(req.Timeout, b.t.Action)
	req = req.WithDefaults()
	return b.navigated(ctx)(Within(ctx, "hover over "+req.Target.String(), req.deadline(), b.report(func(ctx context.Context) (ActionResult, error) {
		return retryBlocked(req.Timeout, func(d time.Duration) (ActionResult, error) { req.Timeout = d; return b.s.Hover(ctx, req) })
	})))
}

func (b *bounded) Press(ctx context.Context, req PressRequest) (ActionResult, error) {
	if err := checkTimeouts(map[string]time.Duration{"timeout": req.Timeout}); err != nil {
		return ActionResult{}, err
	}
	req.Timeout = orDefault(req.Timeout, b.t.Action)
	req = req.WithDefaults()
	return b.navigated(ctx)(Within(ctx, "press "+req.Key, req.deadline(), b.report(func(ctx context.Context) (ActionResult, error) { return b.s.Press(ctx, req) })))
}

func (b *bounded) Drag(ctx context.Context, req DragRequest) (ActionResult, error) {
	if err := checkTimeouts(map[string]time.Duration{"timeout": req.Timeout}); err != nil {
		return ActionResult{}, err
	}
	req.Timeout = orDefault(req.Timeout, b.t.Action)
	req = req.WithDefaults()
	return b.navigated(ctx)(Within(ctx, "drag "+req.Source.String(), req.deadline(), b.report(func(ctx context.Context) (ActionResult, error) {
		return retryBlocked(req.Timeout, func(d time.Duration) (ActionResult, error) { req.Timeout = d; return b.s.Drag(ctx, req) })
	})))
}

func (b *bounded) Upload(ctx context.Context, req UploadRequest) (ActionResult, error) {
	if err := req.Validate(); err != nil {
		return ActionResult{}, err
	}
	req.Timeout = orDefault(req.Timeout, b.t.Action)
	req = req.WithDefaults()
	what := "upload to " + req.Target.String()
	if req.Target.IsZero() {
		what = "answer the file chooser"
	}
	return b.navigated(ctx)(Within(ctx, what, req.deadline(), b.report(func(ctx context.Context) (ActionResult, error) { return b.s.Upload(ctx, req) })))
}

func (b *bounded) Mouse(ctx context.Context, req MouseRequest) (ActionResult, error) {
	if err := req.Validate(); err != nil {
		return ActionResult{}, err
	}
	req = req.WithDefaults()
	return b.navigated(ctx)(Within(ctx, req.Action+" the mouse", req.deadline(), b.report(func(ctx context.Context) (ActionResult, error) { return b.s.Mouse(ctx, req) })))
}

// blockedTries bounds how often a pointer action runs whose input the page
// never received (ErrInputBlocked: its target moved away or was covered at
// the moment of the input).
const blockedTries = 3

// retryBlocked runs a pointer action with an element timeout of timeout,
// and again, with what is left of that timeout, while its input was
// blocked: nothing happened in the page, and the next try waits for the
// target to hold still again, as Playwright retries a click whose hit
// target check failed. The last answer is the error that names what would
// have received the input.
func retryBlocked(timeout time.Duration, act func(timeout time.Duration) (ActionResult, error)) (ActionResult, error) {
	start, d := time.Now(), timeout
	for try := 1; ; try++ {
		res, err := act(d)
		d = timeout - time.Since(start)
		if err == nil || !errors.Is(err, ErrInputBlocked) || try == blockedTries || d <= 0 {
			return res, err
		}
	}
}

func (b *bounded) Cookies(ctx context.Context, urls []string) ([]Cookie, error) {
	return Within(ctx, "cookies", DefaultCallTimeout, func(ctx context.Context) ([]Cookie, error) { return b.s.Cookies(ctx, urls) })
}

func (b *bounded) SetCookies(ctx context.Context, cookies []Cookie) error {
	return withinErr(ctx, "set cookies", DefaultCallTimeout, func(ctx context.Context) error { return b.s.SetCookies(ctx, cookies) })
}

func (b *bounded) SaveState(ctx context.Context) (StorageState, error) {
	return Within(ctx, "save state", DefaultCallTimeout, b.s.SaveState)
}

// SetStorage visits each origin to write its storage, so it may take a
// navigation per origin.
func (b *bounded) SetStorage(ctx context.Context, origins []OriginStorage) error {
	d := DefaultCallTimeout + time.Duration(len(origins))*DefaultNavigationTimeout
	return withinErr(ctx, "restore localStorage", d, func(ctx context.Context) error { return b.s.SetStorage(ctx, origins) })
}

func (b *bounded) DeleteCookies(ctx context.Context, f CookieFilter) ([]Cookie, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return Within(ctx, "delete cookies", DefaultCallTimeout, func(ctx context.Context) ([]Cookie, error) { return b.s.DeleteCookies(ctx, f) })
}

func (b *bounded) Storage(ctx context.Context, req StorageRequest) (StorageResult, error) {
	if err := req.Validate(); err != nil {
		return StorageResult{}, err
	}
	return Within(ctx, req.Area()+" "+req.Action, DefaultCallTimeout, func(ctx context.Context) (StorageResult, error) { return b.s.Storage(ctx, req) })
}

func (b *bounded) Tabs(ctx context.Context, req TabsRequest) (TabsResult, error) {
	if err := req.Validate(); err != nil {
		return TabsResult{}, err
	}
	return Within(ctx, "tabs "+req.Action, req.deadline(), func(ctx context.Context) (TabsResult, error) { return b.s.Tabs(ctx, req) })
}

func (b *bounded) AddRoute(ctx context.Context, r Route) (int, error) {
	if err := r.Validate(); err != nil {
		return 0, err
	}
	return Within(ctx, "add a route", DefaultCallTimeout, func(ctx context.Context) (int, error) { return b.s.AddRoute(ctx, r) })
}

func (b *bounded) RemoveRoutes(ctx context.Context, pattern string) (removed, remaining int, err error) {
	err = withinErr(ctx, "remove routes", DefaultCallTimeout, func(ctx context.Context) error {
		var err error
		removed, remaining, err = b.s.RemoveRoutes(ctx, pattern)
		return err
	})
	return removed, remaining, err
}

func (b *bounded) SetOffline(ctx context.Context, offline bool) error {
	return withinErr(ctx, "set offline", DefaultCallTimeout, func(ctx context.Context) error { return b.s.SetOffline(ctx, offline) })
}

func (b *bounded) SetThrottling(ctx context.Context, t Throttling) error {
	if err := t.Validate(); err != nil {
		return err
	}
	return withinErr(ctx, "set throttling", DefaultCallTimeout, func(ctx context.Context) error { return b.s.SetThrottling(ctx, t) })
}

func (b *bounded) RequestLog(ctx context.Context, q RequestLogQuery) (RequestLog, error) {
	return Within(ctx, "request log", DefaultCallTimeout, func(ctx context.Context) (RequestLog, error) { return b.s.RequestLog(ctx, q) })
}

func (b *bounded) ConsoleMessages(ctx context.Context, q ConsoleQuery) (ConsoleLog, error) {
	if err := q.Validate(); err != nil {
		return ConsoleLog{}, err
	}
	return Within(ctx, "console messages", DefaultCallTimeout, func(ctx context.Context) (ConsoleLog, error) { return b.s.ConsoleMessages(ctx, q) })
}

func (b *bounded) Request(ctx context.Context, q RequestQuery) (RequestDetail, error) {
	return Within(ctx, "get request", DefaultCallTimeout, func(ctx context.Context) (RequestDetail, error) { return b.s.Request(ctx, q) })
}

func (b *bounded) StartHAR(ctx context.Context, req HARRequest) error {
	return withinErr(ctx, "start HAR", DefaultCallTimeout, func(ctx context.Context) error { return b.s.StartHAR(ctx, req) })
}

// StopHAR has longer: it waits for the bodies still being read and writes
// a file of up to --recording-max-size.
func (b *bounded) StopHAR(ctx context.Context) (HARResult, error) {
	return Within(ctx, "stop HAR", 2*DefaultCallTimeout, func(ctx context.Context) (HARResult, error) { return b.s.StopHAR(ctx) })
}

func (b *bounded) PDF(ctx context.Context, req PDFRequest) ([]byte, error) {
	return Within(ctx, "pdf", DefaultCallTimeout, func(ctx context.Context) ([]byte, error) { return b.s.PDF(ctx, req) })
}

func (b *bounded) Fill(ctx context.Context, req FillRequest) (ActionResult, error) {
	if err := req.Validate(); err != nil {
		return ActionResult{}, err
	}
	req.Timeout = orDefault(req.Timeout, b.t.Action)
	req.NavigationTimeout = orDefault(req.NavigationTimeout, b.t.Navigation)
	req = req.WithDefaults()
	return b.navigated(ctx)(Within(ctx, "fill "+req.Target.String(), req.deadline(), b.report(func(ctx context.Context) (ActionResult, error) { return b.s.Fill(ctx, req) })))
}

// Select, SetChecked and Scroll pass their results' ActionResult through
// the same report and navigated as every action, and keep the rest.

func (b *bounded) Select(ctx context.Context, req SelectRequest) (SelectResult, error) {
	if err := req.Validate(); err != nil {
		return SelectResult{}, err
	}
	req.Timeout = orDefault(req.Timeout, b.t.Action)
	req.NavigationTimeout = orDefault(req.NavigationTimeout, b.t.Navigation)
	req = req.WithDefaults()
	var out SelectResult
	res, err := b.navigated(ctx)(Within(ctx, "select in "+req.Target.String(), req.deadline(), b.report(func(ctx context.Context) (ActionResult, error) {
		r, err := b.s.Select(ctx, req)
		out = r
		return r.ActionResult, err
	})))
	out.ActionResult = res
	return out, err
}

func (b *bounded) SetChecked(ctx context.Context, req CheckRequest) (CheckResult, error) {
	if err := req.Validate(); err != nil {
		return CheckResult{}, err
	}
	req.Timeout = orDefault(req.Timeout, b.t.Action)
	req.NavigationTimeout = orDefault(req.NavigationTimeout, b.t.Navigation)
	req = req.WithDefaults()
	verb := "check "
	if !req.Checked {
		verb = "uncheck "
	}
	var out CheckResult
	res, err := b.navigated(ctx)(Within(ctx, verb+req.Target.String(), req.deadline(), b.report(func(ctx context.Context) (ActionResult, error) {
		// It clicks: a click whose input the page never received is
		// tried again, as click is.
		return retryBlocked(req.Timeout, func(d time.Duration) (ActionResult, error) {
			req.Timeout = d
			r, err := b.s.SetChecked(ctx, req)
			out = r
			return r.ActionResult, err
		})
	})))
	out.ActionResult = res
	return out, err
}

func (b *bounded) Scroll(ctx context.Context, req ScrollRequest) (ScrollResult, error) {
	if err := req.Validate(); err != nil {
		return ScrollResult{}, err
	}
	req.Timeout = orDefault(req.Timeout, b.t.Action)
	req.NavigationTimeout = orDefault(req.NavigationTimeout, b.t.Navigation)
	req = req.WithDefaults()
	var out ScrollResult
	res, err := b.navigated(ctx)(Within(ctx, req.what(), req.deadline(), b.report(func(ctx context.Context) (ActionResult, error) {
		r, err := b.s.Scroll(ctx, req)
		out = r
		return r.ActionResult, err
	})))
	out.ActionResult = res
	return out, err
}

func (b *bounded) StartTracing(ctx context.Context, req TraceRequest) error {
	if req.Path == "" {
		return Errorf(InvalidParameters, "a trace needs the path of its file")
	}
	req.Limits = req.Limits.WithDefaults()
	return withinErr(ctx, "start_tracing", DefaultCallTimeout, func(ctx context.Context) error { return b.s.StartTracing(ctx, req) })
}

func (b *bounded) StopTracing(ctx context.Context) (Recorded, error) {
	return Within(ctx, "stop_tracing", TraceStopTimeout, b.s.StopTracing)
}

// StartVideo waits for the tab's first frame and the encoder's start.
func (b *bounded) StartVideo(ctx context.Context, req VideoRequest) error {
	if req.MaxWidth < 0 || req.MaxHeight < 0 {
		return Errorf(InvalidParameters, "maxWidth and maxHeight must not be negative")
	}
	req.Limits = req.Limits.WithDefaults()
	return withinErr(ctx, "start_video", DefaultCallTimeout, func(ctx context.Context) error { return b.s.StartVideo(ctx, req) })
}

func (b *bounded) StopVideo(ctx context.Context) (VideoResult, error) {
	return Within(ctx, "stop_video", StopVideoTimeout, b.s.StopVideo)
}

// VideoChapter only notes the time: it needs no deadline.
func (b *bounded) VideoChapter(title string) { b.s.VideoChapter(title) }
func (b *bounded) Emulate(ctx context.Context, req EmulateRequest) (Emulation, error) {
	if err := req.Validate(); err != nil {
		return Emulation{}, err
	}
	return Within(ctx, "emulate", DefaultCallTimeout, func(ctx context.Context) (Emulation, error) { return b.s.Emulate(ctx, req) })
}

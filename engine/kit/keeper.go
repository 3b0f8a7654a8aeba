package kit

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Launch is one start of a browser (or attachment to one) that a Keeper
// holds.
type Launch interface {
	// Ready is closed once the start has succeeded or failed.
	Ready() <-chan struct{}
	// Err is the start's error; nil once it succeeded. Read after Ready.
	Err() error
	// Lost reports a browser that was running and went away.
	Lost() bool
}

// LaunchState is the part of a Launch both engines' launch types share,
// and embed: the start's outcome and the loss of the browser. Its zero value
// is ready to use. The launch's goroutine ends the start with Started or
// Failed, exactly once.
type LaunchState struct {
	once     sync.Once
	ready    chan struct{} // closed by Started or Failed
	err      error
	lost     chan struct{} // closed by MarkLost
	lostOnce sync.Once
	// gone, when set by Started, is another channel closed when the
	// browser goes away (chromedp's LostConnection).
	gone <-chan struct{}
}

func (l *LaunchState) init() {
	l.once.Do(func() { l.ready, l.lost = make(chan struct{}), make(chan struct{}) })
}

// Started ends a successful start. gone, when not nil, is closed when the
// browser goes away, as MarkLost would say.
func (l *LaunchState) Started(gone <-chan struct{}) {
	l.init()
	l.gone = gone
	if gone != nil {
		// Gone must close as soon as the browser does; this ends with the
		// browser, whichever way it goes.
		go func() {
			select {
			case <-gone:
				l.MarkLost()
			case <-l.lost:
			}
		}()
	}
	close(l.ready)
}

// Failed ends a failed start: err is its error, and the launch counts as
// lost.
func (l *LaunchState) Failed(err error) {
	l.init()
	l.err = err
	l.MarkLost()
	close(l.ready)
}

// MarkLost records that the browser went away; later calls do nothing.
func (l *LaunchState) MarkLost() {
	l.init()
	l.lostOnce.Do(func() { close(l.lost) })
}

// Gone is closed once the browser went away or failed to start: what
// Lost reports, as a channel, so that sessions and the Keeper learn of a
// dead browser at once rather than at their next call.
func (l *LaunchState) Gone() <-chan struct{} {
	l.init()
	return l.lost
}

// Ready is closed once the start has succeeded or failed.
func (l *LaunchState) Ready() <-chan struct{} {
	l.init()
	return l.ready
}

// Err is the start's error; nil once it succeeded. Read after Ready.
func (l *LaunchState) Err() error { return l.err }

// Lost reports a browser that went away (MarkLost, or the channel given to
// Started closed), or a start that failed. Read after Ready.
func (l *LaunchState) Lost() bool {
	l.init()
	select {
	case <-l.lost:
		return true
	case <-l.gone:
		return true
	default:
		return false
	}
}

// Keeper keeps the one browser an engine's sessions share: started in the
// background by Start or on first use, and started again once when it
// died or failed to start. A launch with a Gone channel (LaunchState's)
// that started and then died is started again at once, in the
// background, so that the next session does not wait for a whole launch.
// Both engines use it.
type Keeper[L Launch] struct {
	// Start starts a launch in the background and returns at once.
	Start func() L
	// Drop frees a launch that died, or did not start in time.
	Drop func(L)
	// Timeout bounds a wait for the browser to start (none when 0); a
	// launch that takes longer is dropped, and the next use starts anew.
	Timeout time.Duration
	Log     *slog.Logger

	mu     sync.Mutex
	cur    L
	has    bool
	closed bool
}

// Begin starts the browser unless it is started or the keeper closed.
func (k *Keeper[L]) Begin() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if !k.has && !k.closed {
		k.cur, k.has = k.start(), true
	}
}

// goner is a Launch that says when its browser went away (LaunchState).
type goner interface {
	Gone() <-chan struct{}
}

// start starts a launch and, for a launch that can say when it is gone,
// watches it: once it started and then died, it is dropped and a new one
// starts, unless the keeper moved on or closed. A launch that failed to
// start is left to the next Browser, so that a broken browser is not
// started in a loop. Call with k.mu held.
func (k *Keeper[L]) start() L {
	l := k.Start()
	if g, ok := any(l).(goner); ok {
		go func() {
			<-l.Ready()
			if l.Err() != nil {
				return
			}
			<-g.Gone()
			k.mu.Lock()
			defer k.mu.Unlock()
			if k.has && any(k.cur) == any(l) && !k.closed {
				k.Log.Warn("the browser went away; starting a new one")
				k.Drop(l)
				k.cur = k.start()
			}
		}()
	}
	return l
}

// Browser returns a live browser, starting a new one when the last one died.
func (k *Keeper[L]) Browser(ctx context.Context) (L, error) {
	var zero L
	k.mu.Lock()
	if k.closed {
		k.mu.Unlock()
		return zero, engine.Errorf(engine.BrowserError, "the engine is closed")
	}
	if !k.has {
		k.cur, k.has = k.start(), true
	}
	l := k.cur
	k.mu.Unlock()
	if err := k.wait(ctx, l); err != nil {
		return zero, err
	}
	if l.Err() == nil && !l.Lost() {
		return l, nil
	}
	// Start again, once, after a crash or a failed start.
	k.mu.Lock()
	if k.has && any(k.cur) == any(l) && !k.closed {
		k.Log.Warn("browser is gone; starting a new one", "cause", l.Err())
		k.Drop(l)
		k.cur = k.start()
	}
	nl, has := k.cur, k.has
	k.mu.Unlock()
	if !has {
		return zero, engine.Errorf(engine.BrowserError, "the engine is closed")
	}
	if err := k.wait(ctx, nl); err != nil {
		return zero, err
	}
	if err := nl.Err(); err != nil {
		return zero, err
	}
	return nl, nil
}

func (k *Keeper[L]) wait(ctx context.Context, l L) error {
	var expired <-chan time.Time
	if k.Timeout > 0 {
		timer := time.NewTimer(k.Timeout)
		defer timer.Stop()
		expired = timer.C
	}
	select {
	case <-l.Ready():
		return nil
	case <-ctx.Done():
		return engine.Wrap(engine.BrowserError, ctx.Err(), "waiting for the browser to start: "+ctx.Err().Error())
	case <-expired:
		k.mu.Lock()
		if k.has && any(k.cur) == any(l) {
			var zero L
			k.cur, k.has = zero, false
		}
		k.mu.Unlock()
		k.Drop(l)
		return engine.Errorf(engine.BrowserError, "the browser did not start within %s", k.Timeout).
			Suggest("Check --executable-path points at a working browser; run it by hand with --headless to see why it fails.")
	}
}

// Close marks the keeper closed and returns the launch to shut down, once
// it is ready; ok is false when there is none, or Close already ran.
func (k *Keeper[L]) Close() (l L, ok bool) {
	k.mu.Lock()
	l, ok = k.cur, k.has && !k.closed
	k.closed = true
	k.mu.Unlock()
	if ok {
		<-l.Ready()
	}
	return l, ok
}

// Release stops the browser while nothing uses it (the server's
// --idle-timeout): the current launch, once it is ready, is dropped, and
// the next Browser starts a new one. A launch still starting is left
// alone, and Release reports false, for the caller to try again later;
// true means no browser is left running.
func (k *Keeper[L]) Release() bool {
	k.mu.Lock()
	if !k.has || k.closed {
		k.mu.Unlock()
		return true
	}
	l := k.cur
	select {
	case <-l.Ready():
	default:
		k.mu.Unlock()
		return false
	}
	var zero L
	k.cur, k.has = zero, false
	k.mu.Unlock()
	k.Drop(l)
	return true
}

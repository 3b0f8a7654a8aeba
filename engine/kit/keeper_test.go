package kit

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

type fakeLaunch struct {
	ready chan struct{}
	err   error
	lost  bool
	drops int
}

func (f *fakeLaunch) Ready() <-chan struct{} { return f.ready }
func (f *fakeLaunch) Err() error             { return f.err }
func (f *fakeLaunch) Lost() bool             { return f.lost }

// newKeeper returns a keeper whose launches are made by next, and the list
// of launches it started.
func newKeeper(timeout time.Duration, next func() *fakeLaunch) (*Keeper[*fakeLaunch], *[]*fakeLaunch) {
	var started []*fakeLaunch
	k := &Keeper[*fakeLaunch]{
		Start:   func() *fakeLaunch { l := next(); started = append(started, l); return l },
		Drop:    func(l *fakeLaunch) { l.drops++ },
		Timeout: timeout,
		Log:     slog.New(slog.DiscardHandler),
	}
	return k, &started
}

func readyLaunch() *fakeLaunch {
	l := &fakeLaunch{ready: make(chan struct{})}
	close(l.ready)
	return l
}

func TestKeeperStartsOnceAndRelaunchesOnce(t *testing.T) {
	k, started := newKeeper(0, readyLaunch)
	ctx := context.Background()
	k.Begin()
	k.Begin()
	a, err := k.Browser(ctx)
	if err != nil || len(*started) != 1 || a != (*started)[0] {
		t.Fatalf("Browser = %v, %v after %d launches; want the one launch", a, err, len(*started))
	}
	a.lost = true
	b, err := k.Browser(ctx)
	if err != nil || b == a || len(*started) != 2 || a.drops != 1 {
		t.Fatalf("after a loss: Browser = %v, %v, %d launches, %d drops; want a new launch and the old dropped", b, err, len(*started), a.drops)
	}
	if l, ok := k.Close(); !ok || l != b {
		t.Fatalf("Close = %v, %v; want the live launch", l, ok)
	}
	if _, ok := k.Close(); ok {
		t.Fatal("a second Close returned a launch")
	}
	var e *engine.Error
	if _, err := k.Browser(ctx); !errors.As(err, &e) || e.Code != engine.BrowserError {
		t.Fatalf("Browser after Close = %v; want BROWSER_ERROR", err)
	}
}

func TestKeeperFailedStartIsTriedOnceMore(t *testing.T) {
	fail := errors.New("no browser")
	k, started := newKeeper(0, func() *fakeLaunch { l := readyLaunch(); l.err = fail; return l })
	if _, err := k.Browser(context.Background()); !errors.Is(err, fail) || len(*started) != 2 {
		t.Fatalf("Browser = %v after %d launches; want the start's error after two", err, len(*started))
	}
}

func TestKeeperTimeout(t *testing.T) {
	k, started := newKeeper(20*time.Millisecond, func() *fakeLaunch { return &fakeLaunch{ready: make(chan struct{})} })
	var e *engine.Error
	if _, err := k.Browser(context.Background()); !errors.As(err, &e) || e.Code != engine.BrowserError || (*started)[0].drops != 1 {
		t.Fatalf("Browser = %v; want BROWSER_ERROR and the slow launch dropped", err)
	}
	// The next use starts anew.
	if _, err := k.Browser(context.Background()); err == nil || len(*started) != 2 {
		t.Fatalf("second Browser = %v after %d launches; want a second launch", err, len(*started))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := k.Browser(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Browser with a cancelled context = %v", err)
	}
}

func TestLaunchState(t *testing.T) {
	var ok LaunchState
	if ok.Lost() {
		t.Fatal("a launch not started yet is lost")
	}
	select {
	case <-ok.Ready():
		t.Fatal("Ready is closed before the start ended")
	default:
	}
	gone := make(chan struct{})
	ok.Started(gone)
	<-ok.Ready()
	if ok.Err() != nil || ok.Lost() {
		t.Fatalf("started: Err %v, Lost %v; want nil, false", ok.Err(), ok.Lost())
	}
	close(gone)
	if !ok.Lost() {
		t.Fatal("the browser's gone channel closed, but the launch is not lost")
	}

	var marked LaunchState
	marked.Started(nil)
	marked.MarkLost()
	marked.MarkLost()
	if !marked.Lost() || marked.Err() != nil {
		t.Fatalf("after MarkLost: Lost %v, Err %v; want true, nil", marked.Lost(), marked.Err())
	}

	var failed LaunchState
	boom := errors.New("boom")
	failed.Failed(boom)
	<-failed.Ready()
	if failed.Err() != boom || !failed.Lost() {
		t.Fatalf("failed: Err %v, Lost %v; want boom, true", failed.Err(), failed.Lost())
	}
	failed.MarkLost() // a disconnect after the failure changes nothing
}

// stateLaunch is a launch built on LaunchState, which has Gone.
type stateLaunch struct{ LaunchState }

func TestKeeperRelaunchesAtOnceWhenTheBrowserGoes(t *testing.T) {
	launches := make(chan *stateLaunch, 4)
	dropped := make(chan *stateLaunch, 4)
	k := &Keeper[*stateLaunch]{
		Start: func() *stateLaunch {
			l := &stateLaunch{}
			l.Started(nil)
			launches <- l
			return l
		},
		Drop: func(l *stateLaunch) { dropped <- l },
		Log:  slog.New(slog.DiscardHandler),
	}
	k.Begin()
	first := <-launches
	first.MarkLost()
	// Without any Browser call, the dead launch is dropped and a new one
	// started.
	if d := <-dropped; d != first {
		t.Fatalf("dropped %p; want the dead launch %p", d, first)
	}
	second := <-launches
	got, err := k.Browser(context.Background())
	if err != nil || got != second {
		t.Fatalf("Browser = %p, %v; want the new launch %p", got, err, second)
	}
	k.Close()
	second.MarkLost()
	select {
	case l := <-launches:
		t.Fatalf("a closed keeper started %p", l)
	default:
	}
}

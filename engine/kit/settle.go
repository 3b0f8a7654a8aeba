package kit

import (
	"context"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// After an action, both engines wait for what it started before they
// return: the load of a document it navigated to, or the requests it sent
// until the network stays quiet for SettleQuiet (at most SettleNetworkMax),
// and the work it set off in the page (engine/page's settle tracker: short
// timers, animation frames and requests of the action's own tasks, and the
// DOM changes they make) until it stays quiet for SettleDOMQuiet (at most
// SettleDOMMax). Page work and requests alternate while a round started new
// requests (a scroll handler's fetch, then the items it appends). How the
// engines watch the network differs; the decision, Settling.Next, is the
// same, and so is the page's side, which both evaluate.

// SettleStep is what an action's settle loop does next.
type SettleStep int

const (
	// SettleDone: what the action started is over; the action returns.
	SettleDone SettleStep = iota
	// SettleLoad: the page navigated; wait for the new document's load.
	SettleLoad
	// SettleWait: wait for the page's network state to change, or for the
	// time Next gives, then look again.
	SettleWait
)

// Settling is what a settle loop saw of the page since the action began.
type Settling struct {
	// Navigated: the action navigated the page (engine/cdp: or asked to).
	Navigated bool
	// Started counts the requests the action started, Pending those of
	// them still in flight.
	Started, Pending int
	// Quiet is the time since the last network event.
	Quiet time.Duration
	// Left is the time left before the loop's deadline; past it (negative)
	// the loop stops waiting for requests.
	Left time.Duration
	// NavLeft is the time left to wait for a navigation request the
	// action started to commit (engine/pw waits for it as Playwright's own
	// actions do); zero or less when there is none to wait for.
	NavLeft time.Duration
}

// Next decides the loop's next step, and for SettleWait the longest wait
// before it looks again.
func (s Settling) Next() (SettleStep, time.Duration) {
	if s.Navigated {
		return SettleLoad, 0
	}
	navWait := s.NavLeft > 0
	if !navWait && (s.Started == 0 || s.Left < 0 || (s.Pending == 0 && s.Quiet >= engine.SettleQuiet)) {
		return SettleDone, 0
	}
	switch {
	case navWait:
		return SettleWait, s.NavLeft
	case s.Pending == 0:
		return SettleWait, engine.SettleQuiet - s.Quiet
	}
	return SettleWait, s.Left
}

// NetworkIdleNext is the decision of both engines' networkidle loops: done
// once idle (loaded, nothing in flight) for NetworkIdleQuiet; otherwise the
// longest wait before looking again (the rest of the quiet window when
// idle, else until the page's network state changes).
func NetworkIdleNext(idle bool, quiet time.Duration) (done bool, wait time.Duration) {
	switch {
	case idle && quiet >= engine.NetworkIdleQuiet:
		return true, 0
	case idle:
		return false, engine.NetworkIdleQuiet - quiet
	}
	return false, engine.DefaultNavigationTimeout
}

// AwaitChange waits until changed is closed or d has passed, for a
// SettleWait; it returns ctx's error if ctx ends first.
func AwaitChange(ctx context.Context, changed <-chan struct{}, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-changed:
		return nil
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// SettleRounds bounds how often an action's settle alternates between
// requests and the page work they feed.
const SettleRounds = 3

// SettleAgain says whether an action's settle goes round again after
// round (counted from 0): only when that round started requests, and
// neither SettleRounds nor the page work's time, until domUntil, ran out.
func SettleAgain(round int, started bool, domUntil time.Time) bool {
	return started && round < SettleRounds-1 && !time.Now().After(domUntil)
}

// SettleNetwork is both engines' wait for the requests an action started:
// look tells what the page did since the action began and gives the
// channel closed at the page's next network change. It returns once
// Settling.Next says the page navigated (true) or is done (false),
// waiting between looks as Next says; only ctx's end is an error.
func SettleNetwork(ctx context.Context, look func() (Settling, <-chan struct{})) (navigated bool, err error) {
	for {
		seen, changed := look()
		step, wait := seen.Next()
		switch step {
		case SettleLoad:
			return true, nil
		case SettleDone:
			return false, nil
		}
		if err := AwaitChange(ctx, changed, wait); err != nil {
			return false, err
		}
	}
}

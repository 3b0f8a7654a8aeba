package cdp

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit"
)

// Pool spreads sessions over several browser processes that the engine
// launches: each session (a browser context) lives in one of them, so a
// browser that crashes takes only its own sessions along, and the work of
// many sessions is shared by several browser main processes.
type Pool struct {
	// MinBrowsers are started by Start, ahead of any session, and kept
	// even when idle (0: none until the first session).
	MinBrowsers int
	// MaxBrowsers caps the browser processes (at least 1).
	MaxBrowsers int
	// IdleTimeout closes a browser without sessions once it has had none
	// for this long, while more than MinBrowsers run; 0 never does.
	IdleTimeout time.Duration
}

// DefaultPool is one browser, started ahead: what the engine did before
// it had a pool.
var DefaultPool = Pool{MinBrowsers: 1, MaxBrowsers: 1}

// MaxPoolBrowsers bounds Pool.MaxBrowsers: each browser costs a main
// process, a GPU process and their memory.
const MaxPoolBrowsers = 32

// normal is p with MaxBrowsers at least 1 and MinBrowsers from 0 to
// MaxBrowsers.
func (p Pool) normal() Pool {
	p.MaxBrowsers = max(p.MaxBrowsers, 1)
	p.MinBrowsers = min(max(p.MinBrowsers, 0), p.MaxBrowsers)
	return p
}

// pool keeps the browsers of a Pool, each in a slot with its own Keeper
// (which restarts its browser after a crash) and the number of sessions
// placed on it. A new session goes to the slot with the fewest sessions;
// while every slot has some and fewer than MaxBrowsers run, a new slot
// (browser) is opened for it instead.
type pool struct {
	cfg     Pool
	newKeep func() *kit.Keeper[*browserProc]
	// shut closes one slot's browser for good: gracefully, then killed.
	shut func(*kit.Keeper[*browserProc])
	log  *slog.Logger

	mu     sync.Mutex
	slots  []*slot
	closed bool
	// shutting counts the idle browsers being closed, for close to wait
	// for: none may outlive the engine.
	shutting sync.WaitGroup
}

// slot is one browser of the pool.
type slot struct {
	keep *kit.Keeper[*browserProc]
	// load counts the sessions placed here, those being created included.
	load int
	// idle closes the slot after the pool's IdleTimeout without a
	// session; nil while it has one.
	idle *time.Timer
}

// fillLocked opens slots up to MinBrowsers and starts their browsers.
// Call with p.mu held.
func (p *pool) fillLocked() {
	for len(p.slots) < p.cfg.MinBrowsers {
		p.openLocked()
	}
}

func (p *pool) openLocked() *slot {
	s := &slot{keep: p.newKeep()}
	s.keep.Begin()
	p.slots = append(p.slots, s)
	if len(p.slots) > 1 {
		p.log.Info("browser pool: starting another browser", "browsers", len(p.slots), "max", p.cfg.MaxBrowsers)
	}
	return s
}

// start starts the MinBrowsers browsers in the background.
func (p *pool) start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		p.fillLocked()
	}
}

// acquire places a new session: it returns the browser of the least
// loaded slot, started if needed, and release, which the session calls
// once when it closes (or was never made).
func (p *pool) acquire(ctx context.Context) (*browserProc, func(), error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, nil, engine.Errorf(engine.BrowserError, "the engine is closed")
	}
	p.fillLocked()
	var best *slot
	for _, s := range p.slots {
		if best == nil || s.load < best.load {
			best = s
		}
	}
	if (best == nil || best.load > 0) && len(p.slots) < p.cfg.MaxBrowsers {
		best = p.openLocked()
	}
	best.load++
	if best.idle != nil {
		best.idle.Stop()
		best.idle = nil
	}
	p.mu.Unlock()
	var once sync.Once
	release := func() { once.Do(func() { p.release(best) }) }
	b, err := best.keep.Browser(ctx)
	if err != nil {
		release()
		return nil, nil, err
	}
	return b, release, nil
}

// release takes one session off s; a slot left without sessions, above
// the minimum, is closed after the idle timeout.
func (p *pool) release(s *slot) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s.load--
	if s.load > 0 || p.closed || p.cfg.IdleTimeout <= 0 || !slices.Contains(p.slots, s) {
		return
	}
	var t *time.Timer
	t = time.AfterFunc(p.cfg.IdleTimeout, func() {
		p.mu.Lock()
		// A session came since (the timer was stopped or replaced), or
		// closing s would leave fewer than the minimum.
		if s.idle != t || s.load > 0 || p.closed || len(p.slots) <= p.cfg.MinBrowsers {
			p.mu.Unlock()
			return
		}
		s.idle = nil
		p.slots = slices.DeleteFunc(p.slots, func(x *slot) bool { return x == s })
		n := len(p.slots)
		p.shutting.Add(1)
		p.mu.Unlock()
		defer p.shutting.Done()
		p.log.Info("browser pool: closing an idle browser", "browsers", n)
		p.shut(s.keep)
	})
	s.idle = t
}

// idle stops every browser while no session exists (the server's
// --idle-timeout, engine.Idler); the next session starts MinBrowsers
// again. It reports false when a browser was still starting and was left,
// for the caller to try again later.
func (p *pool) idle() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	all := true
	p.slots = slices.DeleteFunc(p.slots, func(s *slot) bool {
		if s.load > 0 {
			all = false
			return false
		}
		if !s.keep.Release() {
			all = false
			return false
		}
		if s.idle != nil {
			s.idle.Stop()
			s.idle = nil
		}
		return true
	})
	return all
}

// close closes every browser, at the same time, and waits for them and
// for the idle ones still closing.
func (p *pool) close() {
	p.mu.Lock()
	p.closed = true
	slots := p.slots
	p.slots = nil
	for _, s := range slots {
		if s.idle != nil {
			s.idle.Stop()
		}
	}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range slots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.shut(s.keep)
		}()
	}
	wg.Wait()
	p.shutting.Wait()
}

// loads are the sessions on each browser of the pool, oldest browser
// first, for tests.
func (p *pool) loads() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := make([]int, len(p.slots))
	for i, s := range p.slots {
		l[i] = s.load
	}
	return l
}

// shutBrowser closes one Keeper's browser for good: a browser we launched
// is asked to close, and killed if it does not in time; one we attached to
// is only detached from, in order (letGo). Its profile is removed.
func (e *Engine) shutBrowser(k *kit.Keeper[*browserProc]) {
	b, ok := k.Close()
	if !ok {
		return
	}
	if b.Err() == nil && e.cfg.Endpoint == "" && b.persistent == "" {
		// A graceful close lets Chromium flush and exit; cancel kills it if
		// that does not happen in time. stop does it for a persistent one.
		b.closeGracefully()
	}
	if b.attached {
		b.letGo()
	}
	b.stop()
}

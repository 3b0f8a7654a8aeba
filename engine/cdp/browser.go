// Package cdp implements engine.Engine for Chromium over the Chrome DevTools
// Protocol with chromedp and cdproto. One browser process (launched, or
// attached to with an endpoint) serves every session, or a Pool of browsers
// we launch shares them out (pool.go); each session is its own browser
// context with one page, driven through a chromedp context that only that
// session's goroutine uses.
package cdp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit"
	"github.com/seed4af8c199/browsermcp/engine/rundir"
)

// Config configures the engine.
type Config struct {
	// ExecPath is the browser binary. Empty means search (see
	// browserpath.FindChromium).
	ExecPath string
	// Headless runs without a window.
	Headless bool
	// Endpoint attaches to a running browser instead of launching one: a
	// DevTools host (http://host:port), a browser websocket
	// (ws://host:port/devtools/browser/...) or a proxied websocket such as
	// Selenium Grid's se:cdp; see endpoint.go.
	Endpoint string
	// Viewport is the default page size.
	Viewport engine.Viewport
	// Args are more switches for the browser this engine launches, checked
	// by ParseArgs and merged into ours (flags.go); not for Endpoint.
	Args []string
	// LaunchTimeout bounds the wait for the browser to start (default 60s).
	LaunchTimeout time.Duration
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
	// Policy restricts where pages may go; nil allows everything. See
	// policy.go for how it is enforced.
	Policy *engine.Policy
	// Dialogs says what sessions do with JavaScript dialogs; empty means
	// engine.DialogsManual.
	Dialogs engine.DialogPolicy
	// Pool spreads sessions over several browsers this engine launches;
	// nil is DefaultPool, one browser. An Endpoint is one browser.
	Pool *Pool
	// UserDataDir is a persistent profile directory for the browser this
	// engine launches (not for Endpoint): the sessions created with
	// SessionOptions.Profile use its own browser context, whose cookies
	// and storage are kept there. Never removed. LockProfile claims it.
	// Only for a pool of one browser (New keeps it so).
	UserDataDir string
	// Shared keeps the sessions' pages and browser contexts when the
	// connection to the browser ends, so that another server can attach
	// to them again (Adopt): engine/grid's sessions outlive the server.
	// Closing a session then closes its pages but not its browser context,
	// which goes with the browser.
	Shared bool
	// Relay, when set, is where the WebSocket relay of the domain policy
	// (sockets.go) of the engine's one session listens, instead of a
	// port of its own: engine/grid records the address with the Grid
	// session, so that a server that adopts the session serves the relay
	// again at the address its browser context sends WebSockets to. The
	// first session (or Adopt) takes it; Close closes it if none did.
	Relay net.Listener
}

// disabledFeatures are merged into one --disable-features value: Chromium
// honours only the last occurrence of the flag.
var disabledFeatures = []string{
	"Translate", "BlinkGenPropertyTrees",
	// Each WebUI omnibox popup costs about 40 MiB and 200 ms per browser
	// context.
	"WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "WebUIOmniboxFullPopup",
	"MediaRouter", "OptimizationHints", "DialMediaRouteProvider",
	// Chromium drops a navigation to the URL another one went to within
	// the last ~2 s: an agent's second click on a link or submit would
	// silently do nothing, depending on timing (and wait for a navigation
	// that never starts).
	"IgnoreDuplicateNavs",
}

// allocatorOptions are the flags for a browser we launch.
func allocatorOptions(execPath string, headless bool, vp engine.Viewport, extra []string) []chromedp.ExecAllocatorOption {
	opts := append([]chromedp.ExecAllocatorOption{}, chromedp.DefaultExecAllocatorOptions[:]...)
	opts = append(opts, chromedp.ExecPath(execPath))
	opts = append(opts, execFlags(extra)...) // see flags.go
	opts = append(opts, chromedp.WindowSize(vp.Width, vp.Height))
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	if !headless {
		opts = append(opts, chromedp.VisibleWindow)
	}
	return opts
}

// Engine is the CDP engine. Its browsers start in the background with
// Start; when one dies, it is started again (kit.Keeper), and the
// sessions it held are gone.
type Engine struct {
	cfg  Config
	log  *slog.Logger
	pool *pool
	last atomic.Pointer[browserProc] // the latest launch, for Lost
	lock *profileLock                // LockProfile's, released by Close
	// relay is Config.Relay until a session takes it.
	relay atomic.Pointer[net.Listener]
}

// browserProc is one browser launch or attachment; its LaunchState makes
// it an kit.Launch, lost when the connection drops.
type browserProc struct {
	kit.LaunchState
	ctx    context.Context
	cancel context.CancelFunc

	attached bool // the browser is the user's (--cdp-endpoint), not launched
	shared   bool // Config.Shared
	// profile is the browser's user data directory under rundir, removed
	// once the browser exited; empty when chromedp made its own, or for a
	// persistent one (Config.UserDataDir), which is never removed.
	profile string
	// persistent is Config.UserDataDir: the browser is closed gracefully
	// so that it writes its profile, and the next launch waits for it.
	persistent string
	// stopped is closed once stop returned: the process exited.
	stopped chan struct{}
	log     *slog.Logger

	gateMu sync.Mutex
	gate   *gate // the policy's browser-wide part, see popups.go

	tabsMu sync.Mutex
	tabs   map[*session]struct{} // the pages attached over this connection, see letgo.go

	dlMu sync.Mutex
	dl   *dlHub // routes download events to sessions, see downloads.go

	// ax is whether the browser's pages expose its accessibility engine
	// (Element.computedRole): axUnknown until a snapshot asked (see
	// nativeAX). Every renderer of one browser runs with the same
	// switches.
	ax atomic.Int32
}

// New returns an engine; it does not start the browser.
func New(cfg Config) *Engine {
	l := cfg.Logger
	if l == nil {
		l = slog.New(slog.DiscardHandler)
	}
	e := &Engine{cfg: cfg, log: l}
	if cfg.Relay != nil {
		e.relay.Store(&cfg.Relay)
	}
	limit := cfg.LaunchTimeout
	if limit <= 0 {
		limit = DefaultLaunchTimeout
	}
	pc := DefaultPool
	if cfg.Pool != nil && cfg.Endpoint == "" && cfg.UserDataDir == "" {
		pc = cfg.Pool.normal()
	}
	e.pool = &pool{cfg: pc, log: l, shut: e.shutBrowser, newKeep: func() *kit.Keeper[*browserProc] {
		// A dead browser is freed in the background: stop waits for its
		// exit and its profile's removal, which the next launch must not
		// wait for.
		return &kit.Keeper[*browserProc]{Start: e.launch, Drop: func(b *browserProc) { go b.stop() }, Timeout: limit, Log: l}
	}}
	return e
}

// Name identifies the engine.
func (e *Engine) Name() string { return "cdp/chromium" }

// Start begins launching (or attaching to) the pool's minimum of browsers
// and returns at once.
func (e *Engine) Start() { e.pool.start() }

// Idle stops the browsers while no session uses them; the next session
// starts them again (engine.Idler).
func (e *Engine) Idle() bool { return e.pool.idle() }

// browser places a new session on a live browser of the pool, starting one
// when needed; release takes the session off it again, once.
func (e *Engine) browser(ctx context.Context) (b *browserProc, release func(), err error) {
	return e.pool.acquire(ctx)
}

// DefaultLaunchTimeout bounds how long a session waits for the browser to
// start. The launch itself has no timeout, because its context bounds the
// browser's life; a launch that does not finish in time is abandoned and
// killed.
const DefaultLaunchTimeout = 60 * time.Second

// stop kills the browser, waits for it to exit, and removes its profile.
// A browser on a persistent profile is asked to close first, so that it
// writes its cookies and storage.
func (b *browserProc) stop() {
	defer close(b.stopped)
	if b.persistent != "" {
		select {
		case <-b.Ready():
			if b.Err() == nil && !b.Lost() {
				b.closeGracefully()
			}
		default:
		}
	}
	b.cancel()
	if b.profile != "" {
		if err := rundir.RemoveAll(b.profile); err != nil {
			b.log.Warn("could not remove the browser's profile", "dir", b.profile, "err", err)
		}
	}
}

// closeGracefully asks the browser to close, and lets it flush and exit
// for up to closeTimeout.
func (b *browserProc) closeGracefully() {
	tctx, cancel := context.WithTimeout(b.ctx, closeTimeout)
	defer cancel()
	if err := chromedp.Cancel(tctx); err != nil && !errors.Is(err, context.Canceled) {
		b.log.Debug("browser close", "err", err)
	}
}

// launch starts the browser in the background. The first call on the root
// context starts it; that call has no timeout, because its context bounds the
// browser's life.
func (e *Engine) launch() *browserProc {
	b := &browserProc{attached: e.cfg.Endpoint != "", shared: e.cfg.Shared, log: e.log, stopped: make(chan struct{})}
	prev := e.last.Swap(b)
	var alloc context.Context
	var cancelAlloc context.CancelFunc
	if e.cfg.Endpoint != "" {
		// Any of the three forms of endpoint.go; chromedp's own remote
		// allocator handles only the first two.
		alloc, cancelAlloc = chromedp.NewAllocatorContext(context.Background(), &endpointAllocator{endpoint: e.cfg.Endpoint})
	} else {
		opts := allocatorOptions(e.cfg.ExecPath, e.cfg.Headless, e.cfg.Viewport, e.cfg.Args)
		// The profile lives under our runtime directory, so that the next
		// server removes it if this one is killed before it can (chromedp
		// removes its own temporary profile only when it outlives the
		// browser). A persistent one is the user's, and stays.
		if e.cfg.UserDataDir != "" {
			b.persistent = e.cfg.UserDataDir
			opts = append(opts, chromedp.UserDataDir(e.cfg.UserDataDir),
				// A profile that a killed browser left shows no "restore
				// pages" bubble in a window.
				chromedp.Flag("hide-crash-restore-bubble", true))
		} else if dir, err := rundir.MkdirTemp("chromium"); err == nil {
			b.profile = dir
			opts = append(opts, chromedp.UserDataDir(dir))
		} else {
			e.log.Warn("no runtime directory; the browser's profile goes where chromedp puts it", "err", err)
		}
		alloc, cancelAlloc = chromedp.NewExecAllocator(context.Background(), opts...)
	}
	root, cancelRoot := chromedp.NewContext(alloc,
		chromedp.WithLogf(func(f string, a ...any) { e.log.Debug(fmt.Sprintf(f, a...)) }),
		chromedp.WithErrorf(func(f string, a ...any) { e.log.Debug("chromedp: " + fmt.Sprintf(f, a...)) }),
	)
	b.ctx = root
	b.cancel = func() { cancelRoot(); cancelAlloc() }
	go func() {
		if b.persistent != "" && prev != nil {
			// Chromium refuses a profile that another of its processes
			// holds: the last browser must be gone first.
			select {
			case <-prev.stopped:
			case <-root.Done():
			}
		}
		// Connects to, or starts, the browser without opening a tab.
		_, err := chromedp.CallBrowser(root, browser.GetVersion, cdp.Empty{})
		if err != nil {
			what := "launch " + e.cfg.ExecPath
			if e.cfg.Endpoint != "" {
				what = "attach to " + e.cfg.Endpoint
			}
			if b.persistent != "" {
				what += " on the profile " + b.persistent
			}
			b.Failed(engine.Wrap(engine.BrowserError, err, fmt.Sprintf("could not %s: %v", what, err)))
			return
		}
		e.log.Info("browser ready", "endpoint", e.cfg.Endpoint, "exec", e.cfg.ExecPath)
		b.Started(chromedp.FromContext(root).Browser.LostConnection)
	}()
	return b
}

// takeRelay returns Config.Relay the first time, nil after.
func (e *Engine) takeRelay() net.Listener {
	if p := e.relay.Swap(nil); p != nil {
		return *p
	}
	return nil
}

// Lost tells the engine that its browser is gone even though the
// connection to it may still be open: a proxy in front of the browser, such
// as Selenium Grid's se:cdp, can keep the websocket of a browser that died
// open. The calls running end, and every call answers BROWSER_CRASHED, as
// when the connection drops.
func (e *Engine) Lost() {
	if b := e.last.Load(); b != nil {
		b.MarkLost()
		b.cancel()
	}
}

// closeTimeout bounds a graceful browser close before it is killed.
const closeTimeout = 5 * time.Second

// NewSession creates a browser context with one page.
func (e *Engine) NewSession(ctx context.Context, opts engine.SessionOptions) (engine.Session, error) {
	b, release, err := e.browser(ctx)
	if err != nil {
		return nil, err
	}
	opts, stopAuth, err := kit.AuthProxy(opts)
	if err != nil {
		release()
		return nil, err
	}
	var relay *socketRelay
	if e.cfg.Policy.HasHostRules() {
		if err := opts.Validate(); err != nil {
			stopAuth()
			release()
			return nil, err
		}
		if relay, err = startRelay(e.cfg.Policy, opts.Proxy, e.takeRelay()); err != nil {
			stopAuth()
			release()
			return nil, err
		}
	}
	if opts.Profile {
		if err := e.checkProfile(opts, relay); err != nil {
			relay.close()
			return nil, err
		}
	}
	s, err := newSession(ctx, b, opts, e.cfg.Dialogs, relay)
	if err != nil {
		relay.close()
		stopAuth()
		release()
		return nil, err
	}
	// The proxy login forwarder lives as long as the browser context.
	context.AfterFunc(s.tab, stopAuth)
	return e.finish(ctx, b, s, opts, relay, release)
}

// finish applies the policy to a session's first page and makes it a
// session with tabs. release takes the session off its browser in the
// pool: when it fails here, or when it closes.
func (e *Engine) finish(ctx context.Context, b *browserProc, s *session, opts engine.SessionOptions, relay *socketRelay, release func()) (engine.Session, error) {
	tb, err := e.finishTabs(ctx, b, s, opts, relay)
	if err != nil {
		release()
		return nil, err
	}
	tb.release = release
	return tb, nil
}

func (e *Engine) finishTabs(ctx context.Context, b *browserProc, s *session, opts engine.SessionOptions, relay *socketRelay) (*tabbed, error) {
	if relay != nil {
		// The relay lives as long as the session's browser context.
		context.AfterFunc(s.tab, relay.close)
	}
	if err := s.enforce(ctx, e.cfg.Policy); err != nil {
		s.Close(ctx)
		return nil, err
	}
	if relay != nil {
		relay.guard.Store(s.guard)
	}
	// Later tabs share the first one's browser context (its proxy and
	// storage) and get the same per-page settings and policy.
	tabOpts := opts
	tabOpts.StorageState, tabOpts.Proxy = nil, ""
	dl, err := enableDownloads(ctx, b, s.contextID(), opts.DownloadDir)
	if err != nil {
		s.Close(ctx)
		return nil, err
	}
	dl.follow(b, s.id, s.tab)
	if err := grantPermissions(ctx, b, s.contextID(), opts.Permissions); err != nil {
		s.Close(ctx)
		return nil, err
	}
	tb := newTabbed(s, func(ctx context.Context, how chromedp.ContextOption) (*session, error) {
		t, err := openTab(ctx, b, s.tab, s.refs, tabOpts, e.cfg.Dialogs, how)
		if err != nil {
			return nil, err
		}
		dl.follow(b, t.id, t.tab)
		if err := t.enforce(ctx, e.cfg.Policy); err != nil {
			t.Close(ctx)
			return nil, err
		}
		return t, nil
	})
	if e.cfg.Policy.HasHostRules() {
		g, err := b.policyGate(ctx, e.cfg.Policy)
		if err != nil {
			s.Close(ctx)
			return nil, err
		}
		tb.unregister = g.register(s.contextID(), s.guard)
	}
	tb.dl = dl
	tb.emu = tabEmu{base: engine.BaseEmulation(opts), cur: engine.BaseEmulation(opts), perms: opts.Permissions}
	return tb, nil
}

// Close closes the browsers we launched, or only detaches from one we
// attached to; sessions' contexts close with them.
func (e *Engine) Close() error {
	defer e.lock.release()
	if ln := e.takeRelay(); ln != nil {
		ln.Close()
	}
	e.pool.close()
	return nil
}

// Package grid implements engine.Engine on a Selenium Grid 4: each session
// is a browser of its own, which the Grid's distributor places on one of its
// nodes, and which engine/cdp then drives natively over the CDP websocket
// the Grid hands out in the se:cdp capability.
//
// The life of a session: create_session sends a WebDriver New Session
// (with the session's options as browser switches, and our session id and
// owner as the extension capabilities bmcp:sessionId and bmcp:owner); when
// every slot is taken the request waits in the Grid's queue, up to
// Config.QueueTimeout, and then fails with MAX_SESSIONS_REACHED. A cdp
// engine attaches to the new browser's se:cdp and opens the session in a
// new browser context of it, like a local session: the per-session proxy,
// storage state and domain policy work as they do locally, and the
// browser's first tab (chromedriver's) stays out of the agent's way. While
// the session lives, a WebDriver command every Config.KeepAlive keeps the
// node's session timeout, which counts WebDriver commands only, from ending
// it. close_session deletes the Grid's session, which ends the browser;
// expiry and shutdown may leave it to another server (shared.go: several
// servers share one Grid, and any of them serves any session). A browser
// that dies fails that command, and a node that dies makes the Grid's
// router answer it with a connection failure, twice in a row (the Grid
// keeps the se:cdp websocket of a dead browser open, so CDP alone cannot
// tell), and the session's calls then answer BROWSER_CRASHED; other
// sessions are not touched. A session that another server closed
// (close_session or its expiry deleted the Grid session) is not a crash:
// when its connection drops, or a call fails as if it had crashed, the
// server asks the Grid's GraphQL API whether it still lists the session,
// and one it no longer lists is dropped and answers SESSION_NOT_FOUND,
// saying it was closed (session.go, engine.Ender).
package grid

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/cdp"
)

// Config configures the engine.
type Config struct {
	// URL is the Grid's address, e.g. http://127.0.0.1:4444 (a path such
	// as /wd/hub is kept).
	URL string
	// QueueTimeout bounds the wait in the Grid's queue for a free browser
	// (default DefaultQueueTimeout).
	QueueTimeout time.Duration
	// KeepAlive is the interval of the WebDriver command that keeps a Grid
	// session alive and finds a browser that died; it must be below the
	// nodes' --session-timeout (300 s by default). Default DefaultKeepAlive.
	KeepAlive time.Duration
	// ExecPath, when set, is the browser binary on the nodes
	// (goog:chromeOptions.binary); empty lets the node choose.
	ExecPath string
	// Headless runs the nodes' browsers without a window.
	Headless bool
	// Args are more browser switches for every session, checked by
	// cdp.ParseArgs and merged into ours; the session's own options
	// (user agent, locale, proxy) come after them and win.
	Args []string
	// KeepOnShutdown lets go of the Grid sessions when this server shuts
	// down, for another replica to adopt (rolling restarts); by default
	// shutdown deletes them, as close_session does.
	KeepOnShutdown bool
	// Viewport is the default page size.
	Viewport engine.Viewport
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
	// Policy and Dialogs are engine/cdp's, for each session.
	Policy  *engine.Policy
	Dialogs engine.DialogPolicy
}

// Defaults of Config.
const (
	DefaultQueueTimeout = 60 * time.Second
	DefaultKeepAlive    = 5 * time.Second
)

// Engine is the Grid engine. It holds no browser of its own.
type Engine struct {
	cfg  Config
	base string // cfg.URL without a trailing slash
	log  *slog.Logger
	http *http.Client

	// replica names this server in the heartbeats of the sessions it
	// holds (shared.go).
	replica string

	mu       sync.Mutex
	closed   bool
	sessions map[*session]struct{}
}

// New returns an engine for the Grid at cfg.URL; it sends nothing yet (see
// Check).
func New(cfg Config) (*Engine, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not a Grid address like http://host:4444", cfg.URL)
	}
	if cfg.QueueTimeout <= 0 {
		cfg.QueueTimeout = DefaultQueueTimeout
	}
	if cfg.KeepAlive <= 0 {
		cfg.KeepAlive = DefaultKeepAlive
	}
	l := cfg.Logger
	if l == nil {
		l = slog.New(slog.DiscardHandler)
	}
	return &Engine{cfg: cfg, base: strings.TrimRight(cfg.URL, "/"), log: l, http: &http.Client{},
		replica: uuid.NewString(), sessions: map[*session]struct{}{}}, nil
}

// Name identifies the engine.
func (e *Engine) Name() string { return "grid/chromium" }

// Start does nothing: each session gets its browser from the Grid.
func (e *Engine) Start() {}

// Check asks the Grid for its /status: the startup check of --grid-url. A
// Grid that answers but has no free node yet is fine (nodes may register
// later); one that does not answer, or is no Grid, is an error.
func (e *Engine) Check(ctx context.Context) (Status, error) {
	st, err := e.Status(ctx)
	if err != nil {
		return st, fmt.Errorf("GET %s/status: %w", e.base, err)
	}
	return st, nil
}

// NewSession asks the Grid for a browser and opens the session in it.
func (e *Engine) NewSession(ctx context.Context, opts engine.SessionOptions) (engine.Session, error) {
	if opts.Profile {
		return nil, engine.Errorf(engine.BrowserError, "a persistent browser profile (--user-data-dir) needs --engine cdp on a browser it launches")
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if e.isClosed() {
		return nil, engine.Errorf(engine.BrowserError, "the engine is closed")
	}
	if opts.ProxyUsername != "" || opts.ProxyPassword != "" {
		// The login forwarder (kit.AuthProxy) listens on this host,
		// which the Grid's browser cannot reach.
		return nil, engine.Errorf(engine.Unsupported, "a proxy with a username or password is not supported on the Grid: its browser cannot log in to a proxy").With("field", "proxy")
	}
	caps := e.capabilities(ctx, opts)
	// Under a policy with host rules the session's WebSockets pass a relay
	// of ours (engine/cdp/sockets.go); its address goes with the Grid
	// session, for a server that adopts it to serve the relay again.
	var relay net.Listener
	if e.cfg.Policy.HasHostRules() {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, engine.Wrap(engine.BrowserError, err, "could not start the WebSocket relay of the domain policy: "+err.Error())
		}
		relay, caps[capRelay] = ln, ln.Addr().String()
	}
	r, err := e.newGridSession(ctx, caps)
	if err != nil {
		if relay != nil {
			relay.Close()
		}
		return nil, err
	}
	log := e.log.With("gridSession", r.SessionID, "session", engine.SessionIDFrom(ctx))
	log.Debug("grid session created", "cdp", r.Capabilities.CDP)
	browser := e.browserFor(r.Capabilities.CDP, log, relay)
	inner, err := browser.NewSession(ctx, opts)
	if err != nil {
		browser.Close()
		e.deleteGridSession(context.WithoutCancel(ctx), r.SessionID)
		var ee *engine.Error
		if errors.As(err, &ee) {
			return nil, err
		}
		return nil, engine.Wrap(engine.BrowserError, err, fmt.Sprintf("attaching to the Grid's browser at %s: %v", r.Capabilities.CDP, err))
	}
	s := newSession(e, inner, browser, r.SessionID, log)
	if !e.hold(s) {
		s.Close(ctx)
		return nil, engine.Errorf(engine.BrowserError, "the engine is closed")
	}
	return s, nil
}

// hold adds s to the live sessions; false when the engine has closed.
func (e *Engine) hold(s *session) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return false
	}
	e.sessions[s] = struct{}{}
	return true
}

func (e *Engine) isClosed() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.closed
}

// capabilities is the New Session request for opts: Chrome with the
// session's options as switches, and our labels as extension
// capabilities, which the Grid's GraphQL API lists with each session.
func (e *Engine) capabilities(ctx context.Context, opts engine.SessionOptions) map[string]any {
	vp := opts.Viewport
	if vp.Width == 0 || vp.Height == 0 {
		vp = e.cfg.Viewport
	}
	args := cdp.BrowserArgs(e.cfg.Headless, vp, e.cfg.Args)
	if opts.UserAgent != "" {
		args = append(args, "--user-agent="+opts.UserAgent)
	}
	if opts.Locale != "" {
		args = append(args, "--lang="+opts.Locale)
	}
	if opts.Proxy != "" {
		args = append(args, "--proxy-server="+opts.Proxy)
		if opts.ProxyBypass != "" {
			args = append(args, "--proxy-bypass-list="+strings.ReplaceAll(opts.ProxyBypass, ",", ";"))
		}
	}
	chrome := map[string]any{"args": args}
	if e.cfg.ExecPath != "" {
		chrome["binary"] = e.cfg.ExecPath
	}
	// What another server needs to adopt the session (shared.go); the
	// storage state was applied once and may be large.
	opts.StorageState = nil
	return map[string]any{
		"browserName":        "chrome",
		"goog:chromeOptions": chrome,
		"bmcp:sessionId":     engine.SessionIDFrom(ctx),
		"bmcp:owner":         engine.OwnerOf(ctx),
		capName:              engine.SessionNameFrom(ctx),
		capOptions:           opts,
		capCreated:           time.Now().UnixMilli(),
	}
}

// forget drops s from the live sessions.
func (e *Engine) forget(s *session) {
	e.mu.Lock()
	delete(e.sessions, s)
	e.mu.Unlock()
}

// Close lets go of the sessions still held, as a shutdown does (see
// shared.go); the session runtime has normally closed them all already.
func (e *Engine) Close() error {
	e.mu.Lock()
	e.closed = true
	var left []*session
	for s := range e.sessions {
		left = append(left, s)
	}
	e.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range left {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), engine.CloseTimeout)
			defer cancel()
			s.Close(engine.WithCloseReason(ctx, engine.CloseShutdown))
		})
	}
	wg.Wait()
	return nil
}

package grid

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/cdp"
)

// Stateless front ends. A Grid session outlives the server that created
// it, so several servers (replicas behind any load balancer) share the
// Grid: the one that gets a call for a session it does not hold finds the
// session in the Grid's GraphQL API by the labels it was created with
// (bmcp:sessionId, bmcp:name, bmcp:owner), attaches to its browser over
// the Grid's se:cdp proxy, and carries on with the page as it was
// (Adopt). Sessions are created Shared (see cdp.Config), so their page and
// browser context stay when the connection of the server that made them
// ends, whether that server exited or was killed.
//
// Which server ends a session: close_session, from any server, deletes
// it. A server whose expiry ends its hold deletes it only when no other
// server holds it: every holder writes a heartbeat (its replica id and the
// time) into the Grid browser's default tab with each keep-alive, and the
// expiring server deletes the session only if no other heartbeat is fresh.
// A server that shuts down only lets go: the session waits for another
// server to adopt it, and the node's own session timeout (300 s by
// default) ends it if none does. So a rolling restart loses no session, and
// neither does a killed server.
//
// What a server leaves in the browser: the Grid's se:cdp proxy (4.20)
// closes its own connection to the browser only when ours ends with a
// WebSocket close frame; when our TCP connection just ends, it keeps that
// connection open, and with it our Fetch interception (the domain policy's,
// routes'), which then pauses every request of the page for a client that
// is gone. So a server that lets go of a session disables its interception,
// detaches and closes its connection before it returns (engine/cdp's
// letGo), and its adopter finds the page free. A killed server can do none
// of that, and no other client can disable another's interception: under a
// domain policy or with routes, its session's page stays paused until the
// Grid session ends, and adopting it fails at the call's deadline.

// The capabilities, besides bmcp:sessionId and bmcp:owner, that let
// another server adopt a session.
const (
	capName    = "bmcp:name"    // the session's name, "" for none
	capOptions = "bmcp:options" // its engine.SessionOptions, less the storage state
	capCreated = "bmcp:created" // when it was created, Unix ms
	// capRelay is the address of the session's WebSocket relay under a
	// domain policy (engine/cdp/sockets.go), which its browser context's
	// proxy rules name: a server that adopts the session serves the relay
	// there again.
	capRelay = "bmcp:relay"
)

// heartbeat is the script each keep-alive runs, over WebDriver, in the Grid
// browser's default tab (chromedriver's, which no session uses): it records
// that replica arguments[0] holds the session (or, with arguments[2], no
// longer does), and returns how many other replicas wrote within the last
// arguments[1] ms.
const heartbeat = `const [me, fresh, leave] = arguments;
const h = window.__bmcpHolders || (window.__bmcpHolders = {});
const now = Date.now();
if (leave) { delete h[me]; } else { h[me] = now; }
return Object.keys(h).filter(k => k !== me && now - h[k] < fresh).length;`

// beat runs heartbeat for the Grid session id and returns how many other
// servers hold it. It is also the keep-alive's WebDriver command, which
// restarts the node's session timeout and fails when the browser is gone.
func (e *Engine) beat(ctx context.Context, id string, leave bool) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var others int
	fresh := 3 * e.cfg.KeepAlive
	err := e.do(ctx, http.MethodPost, "/session/"+id+"/execute/sync",
		map[string]any{"script": heartbeat, "args": []any{e.replica, fresh.Milliseconds(), leave}}, &others)
	return others, err
}

// gridSession is one session the Grid lists, with our labels.
type gridSession struct {
	ID      string // the Grid's
	Ours    string // bmcp:sessionId
	Name    string
	Owner   string
	Created time.Time
	Options engine.SessionOptions
	Relay   string // capRelay
}

// listSessions asks the Grid's GraphQL API for its sessions that carry our
// labels.
func (e *Engine) listSessions(ctx context.Context) ([]gridSession, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	var r struct {
		Data struct {
			SessionsInfo struct {
				Sessions []struct {
					ID           string `json:"id"`
					Capabilities string `json:"capabilities"`
				} `json:"sessions"`
			} `json:"sessionsInfo"`
		} `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	q := map[string]string{"query": "{ sessionsInfo { sessions { id capabilities } } }"}
	if err := e.post(ctx, "/graphql", q, &r); err != nil {
		return nil, err
	}
	if len(r.Errors) > 0 {
		return nil, fmt.Errorf("the Grid's GraphQL API: %s", r.Errors[0].Message)
	}
	var out []gridSession
	for _, s := range r.Data.SessionsInfo.Sessions {
		var c struct {
			Ours    *string                `json:"bmcp:sessionId"`
			Owner   string                 `json:"bmcp:owner"`
			Name    string                 `json:"bmcp:name"`
			Created int64                  `json:"bmcp:created"`
			Options *engine.SessionOptions `json:"bmcp:options"`
			Relay   string                 `json:"bmcp:relay"`
		}
		if json.Unmarshal([]byte(s.Capabilities), &c) != nil || c.Ours == nil || *c.Ours == "" {
			continue // not one of ours
		}
		gs := gridSession{ID: s.ID, Ours: *c.Ours, Name: c.Name, Owner: c.Owner, Created: time.UnixMilli(c.Created), Relay: c.Relay}
		if c.Options != nil {
			gs.Options = *c.Options
		}
		out = append(out, gs)
	}
	return out, nil
}

// find returns owner's session that ref names: its id, else its name.
func (e *Engine) find(ctx context.Context, ref, owner string) (gridSession, error) {
	ss, err := e.listSessions(ctx)
	if err != nil {
		return gridSession{}, engine.Wrap(engine.BrowserError, err, fmt.Sprintf("the Grid at %s did not list its sessions: %v", e.base, err))
	}
	var byName *gridSession
	for i, s := range ss {
		if s.Owner != owner {
			continue // another owner's session does not exist for this one
		}
		if s.Ours == ref {
			return s, nil
		}
		if s.Name == ref && (byName == nil || s.Created.After(byName.Created)) {
			byName = &ss[i]
		}
	}
	if byName != nil {
		return *byName, nil
	}
	ne := engine.Errorf(engine.SessionNotFound, "no session with id %q", ref)
	ne.SessionID = ref
	return gridSession{}, ne
}

// Adopt attaches to the session ref of owner that the Grid holds (see
// engine.Adopter), with its page, cookies and storage as they are.
func (e *Engine) Adopt(ctx context.Context, ref, owner string) (engine.Adopted, error) {
	if e.isClosed() {
		return engine.Adopted{}, engine.Errorf(engine.BrowserError, "the engine is closed")
	}
	gs, err := e.find(ctx, ref, owner)
	if err != nil {
		return engine.Adopted{}, err
	}
	log := e.log.With("gridSession", gs.ID, "session", gs.Ours)
	relay, err := e.relayAt(gs.Relay, log)
	if err != nil {
		return engine.Adopted{}, err
	}
	browser := e.browserFor(e.cdpURL(gs.ID), log, relay)
	inner, err := browser.Adopt(ctx, gs.Options)
	if err != nil {
		// The Grid session stays: it may be another server's to carry on.
		browser.Close()
		if ee, ok := err.(*engine.Error); ok && ee.Code == engine.SessionNotFound {
			ee.SessionID = gs.Ours
			return engine.Adopted{}, ee
		}
		return engine.Adopted{}, engine.Wrap(engine.BrowserError, err, fmt.Sprintf("attaching to the Grid session %s: %v", gs.ID, err))
	}
	log.Info("adopted a session from the Grid")
	s := newSession(e, inner, browser, gs.ID, log)
	if !e.hold(s) {
		s.release()
		return engine.Adopted{}, engine.Errorf(engine.BrowserError, "the engine is closed")
	}
	return engine.Adopted{Session: s, ID: gs.Ours, Name: gs.Name, Created: gs.Created}, nil
}

// Shared lists owner's sessions on the Grid (see engine.Adopter).
func (e *Engine) Shared(ctx context.Context, owner string) ([]engine.SessionInfo, error) {
	ss, err := e.listSessions(ctx)
	if err != nil {
		return nil, err
	}
	var out []engine.SessionInfo
	for _, s := range ss {
		if s.Owner == owner {
			out = append(out, engine.SessionInfo{ID: s.Ours, Name: s.Name, CreatedAt: s.Created})
		}
	}
	return out, nil
}

// cdpURL is the Grid router's se:cdp proxy of Grid session id: the address
// every server reaches, where a node's own may be private.
func (e *Engine) cdpURL(id string) string {
	base := e.base
	if rest, ok := strings.CutPrefix(base, "http"); ok {
		base = "ws" + rest // http→ws, https→wss
	}
	return base + "/session/" + id + "/se/cdp"
}

// browserFor is the cdp engine that drives one Grid browser: Shared, so
// that the session's page stays for another server when this one goes.
// relay, when not nil, is where its session's WebSocket relay listens.
func (e *Engine) browserFor(endpoint string, log *slog.Logger, relay net.Listener) *cdp.Engine {
	return cdp.New(cdp.Config{
		Endpoint: endpoint, Viewport: e.cfg.Viewport, Logger: log,
		Policy: e.cfg.Policy, Dialogs: e.cfg.Dialogs, Shared: true, Relay: relay,
	})
}

// relayAt listens at addr, the WebSocket relay's address of a session
// being adopted, when the domain policy needs the relay. It returns nil
// when the address is taken (the server that created the session may
// still serve it there) or when there is nothing to serve.
//
// The address comes from the Grid session's capabilities, which whoever
// creates a Grid session writes: only a loopback address (127.0.0.0/8,
// ::1), where our servers put their relays, is served. Any other (a forged
// 0.0.0.0:N would open the policy's relay on every interface) is refused,
// logged, and the adoption answers an error: such a session is not one of
// ours, and serving it without its relay would leave its WebSockets going
// to whatever listens there.
func (e *Engine) relayAt(addr string, log *slog.Logger) (net.Listener, error) {
	if addr == "" || !e.cfg.Policy.HasHostRules() {
		return nil, nil
	}
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		log.Error("refusing to adopt a Grid session whose WebSocket relay address is not a loopback address", "addr", addr)
		return nil, engine.Errorf(engine.BrowserError, "the Grid session's WebSocket relay address %q is not a loopback address (127.0.0.0/8 or ::1); this server does not listen there, and does not adopt the session", addr).
			With("relay", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Warn("cannot serve the adopted session's WebSocket relay again: its WebSockets go to whatever listens there", "addr", addr, "err", err)
		return nil, nil
	}
	return ln, nil
}

// post sends a JSON request that is not WebDriver's (GraphQL) and decodes
// the answer into out.
func (e *Engine) post(ctx context.Context, path string, body, out any) error {
	status, raw, err := e.send(ctx, http.MethodPost, path, body, 16<<20)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("POST %s: HTTP %d %s", path, status, http.StatusText(status))
	}
	return json.Unmarshal(raw, out)
}

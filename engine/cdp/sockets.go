package cdp

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit"
)

// WebSockets. Chromium's request interception (Fetch) never sees a
// WebSocket handshake, nor does Network.setBlockedURLs block one, so the
// guard cannot hold WebSockets to the policy. The network stack's proxy
// settings can: under a policy with host rules every session's browser
// context gets proxy rules that send http and https requests where they went
// before (directly, or to the session's own proxy) and WebSocket connections,
// which Chromium sends to a SOCKS proxy when one is configured, to a relay
// of ours on 127.0.0.1. The relay checks each connection's host and port
// against the policy before it connects anywhere. The rules belong to the
// browser context, so they hold in every page, popup, cross-site iframe and
// worker of the session from its first connection, and no page can change
// them. Loopback addresses are sent to the relay too ("<-loopback>" removes
// Chromium's implicit bypass), so a page cannot reach 127.0.0.1 around it.

// socketRelay is one session's SOCKS5 relay for WebSocket connections.
type socketRelay struct {
	pol      *engine.Policy
	upstream *url.URL // the session's own proxy, or nil
	ln       net.Listener
	// guard records what the relay refused; set once the session's guard
	// exists, before the session makes any connection.
	guard atomic.Pointer[guard]

	conns kit.Conns
}

// relayHandshakeTimeout bounds reading a SOCKS request from the browser and
// dialing the destination.
const relayHandshakeTimeout = 30 * time.Second

// startRelay starts a relay for one session, on ln, or on a port of its
// own when ln is nil. upstream is the session's own proxy (http:// or
// socks5://), to which allowed connections are chained.
func startRelay(pol *engine.Policy, upstream string, ln net.Listener) (*socketRelay, error) {
	r := &socketRelay{pol: pol}
	if upstream != "" {
		u, err := url.Parse(upstream)
		if err != nil || (u.Scheme != "http" && u.Scheme != "socks5") {
			if ln != nil {
				ln.Close()
			}
			return nil, engine.Errorf(engine.InvalidParameters,
				"proxy %q: under the domain policy a session's proxy must be http:// or socks5://, so that its WebSockets can be checked on the way", upstream).With("field", "proxy")
		}
		r.upstream = u
	}
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			return nil, engine.Wrap(engine.BrowserError, err, "could not start the WebSocket relay of the domain policy: "+err.Error())
		}
	}
	r.ln = ln
	go r.serve()
	return r, nil
}

// proxyRules are the browser context's proxy settings: http and https go
// where they went before; WebSockets (ws and wss) go to the relay, as
// Chromium prefers the SOCKS proxy for them. The session's own bypass
// hosts skip its proxy for http and https only: their WebSockets still
// pass the relay, and so the policy.
func (r *socketRelay) proxyRules(skip []string) (server, bypass string) {
	direct := "direct://"
	if r.upstream != nil {
		direct = r.upstream.String()
	}
	server = fmt.Sprintf("http=%s;https=%s;socks=socks5://%s", direct, direct, r.ln.Addr())
	bypass = "<-loopback>"
	if r.upstream != nil {
		// Chromium would not send loopback http(s) to the session's proxy;
		// keep that, for http(s) only (bypass rules name a scheme).
		bypass += ";http://localhost;https://localhost;http://127.0.0.1;https://127.0.0.1;http://[::1];https://[::1]"
		for _, h := range skip {
			bypass += ";http://" + h + ";https://" + h
		}
	}
	return server, bypass
}

// close stops the relay and every connection it carries; a nil relay
// is a no-op.
func (r *socketRelay) close() {
	if r == nil {
		return
	}
	if r.conns.Close() {
		r.ln.Close()
	}
}

func (r *socketRelay) serve() {
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return // closed
		}
		if r.conns.Track(c) {
			go r.handle(c)
		}
	}
}

// SOCKS5 (RFC 1928) reply codes.
const (
	socksOK          = 0
	socksNotAllowed  = 2
	socksUnreachable = 4
	socksBadCommand  = 7
)

// handle serves one SOCKS5 connection from the browser.
func (r *socketRelay) handle(c net.Conn) {
	defer r.conns.Untrack(c)
	c.SetDeadline(time.Now().Add(relayHandshakeTimeout))
	br := bufio.NewReader(c)
	hostPort, err := readSocksRequest(br, c)
	if err != nil {
		return
	}
	if hostPort == "" {
		writeSocksReply(c, socksBadCommand)
		return
	}
	if ok, reason := r.pol.Check("ws://" + hostPort + "/"); !ok {
		if g := r.guard.Load(); g != nil {
			g.rec.Add(engine.BlockedRequest{URL: "//" + hostPort, ResourceType: "WebSocket", Reason: reason, Time: time.Now()})
		}
		writeSocksReply(c, socksNotAllowed)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), relayHandshakeTimeout)
	up, err := r.dial(ctx, hostPort)
	cancel()
	if err != nil {
		writeSocksReply(c, socksUnreachable)
		return
	}
	if !r.conns.Track(up) {
		return
	}
	defer r.conns.Untrack(up)
	if writeSocksReply(c, socksOK) != nil {
		return
	}
	c.SetDeadline(time.Time{})
	// Either side ending ends both: the deferred untracks close them, and
	// the other copy returns.
	kit.Splice(c, br, up)
}

// readSocksRequest reads the greeting and a CONNECT request; it returns ""
// for another command.
func readSocksRequest(br *bufio.Reader, w io.Writer) (string, error) {
	var head [2]byte
	if _, err := io.ReadFull(br, head[:]); err != nil {
		return "", err
	}
	if head[0] != 5 {
		return "", errors.New("not SOCKS5")
	}
	if _, err := io.ReadFull(br, make([]byte, head[1])); err != nil {
		return "", err
	}
	if _, err := w.Write([]byte{5, 0}); err != nil { // no authentication
		return "", err
	}
	var req [4]byte
	if _, err := io.ReadFull(br, req[:]); err != nil {
		return "", err
	}
	var host string
	switch req[3] {
	case 1, 4: // IPv4, IPv6
		ip := make([]byte, 4)
		if req[3] == 4 {
			ip = make([]byte, 16)
		}
		if _, err := io.ReadFull(br, ip); err != nil {
			return "", err
		}
		host = net.IP(ip).String()
	case 3: // domain name
		n, err := br.ReadByte()
		if err != nil {
			return "", err
		}
		name := make([]byte, n)
		if _, err := io.ReadFull(br, name); err != nil {
			return "", err
		}
		host = string(name)
	default:
		return "", errors.New("bad address type")
	}
	var port [2]byte
	if _, err := io.ReadFull(br, port[:]); err != nil {
		return "", err
	}
	if req[1] != 1 { // CONNECT
		return "", nil
	}
	return net.JoinHostPort(host, strconv.Itoa(int(binary.BigEndian.Uint16(port[:])))), nil
}

func writeSocksReply(w io.Writer, code byte) error {
	_, err := w.Write([]byte{5, code, 0, 1, 0, 0, 0, 0, 0, 0})
	return err
}

// dial connects to hostPort directly or through the session's proxy.
func (r *socketRelay) dial(ctx context.Context, hostPort string) (net.Conn, error) {
	if r.upstream == nil {
		var d net.Dialer
		return d.DialContext(ctx, "tcp", hostPort)
	}
	return kit.DialProxy(ctx, r.upstream, hostPort)
}

package kit

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Proxies that ask for a login. Chromium takes no proxy credentials in its
// proxy settings (a 407 becomes an auth prompt that a headless browser never
// answers, and it has no SOCKS5 authentication at all), so a session whose
// proxy has a username or password goes through a forwarder of ours on
// 127.0.0.1 instead: the browser talks to it without credentials, and it
// talks to the session's proxy with them (Proxy-Authorization for an HTTP
// proxy, RFC 1929 for SOCKS5). The credentials never reach the browser, and
// both engines use the same path.

// proxyDialTimeout bounds connecting to the upstream proxy and its
// handshake.
const proxyDialTimeout = 30 * time.Second

// errProxyLogin is what the browser is told when the proxy refuses the
// session's login.
var errProxyLogin = errors.New("the proxy refused the login (407 Proxy Authentication Required)")

// AuthProxy returns opts ready for a browser: unchanged when the proxy
// needs no login, else with Proxy pointing at a forwarder that logs in to
// it. stop ends the forwarder and every connection it carries; call it when
// the session closes (it is never nil).
func AuthProxy(opts engine.SessionOptions) (out engine.SessionOptions, stop func(), err error) {
	if opts.ProxyUsername == "" && opts.ProxyPassword == "" {
		return opts, func() {}, nil
	}
	if err := opts.Validate(); err != nil {
		return opts, func() {}, err
	}
	up, _ := url.Parse(opts.Proxy)
	up.User = url.UserPassword(opts.ProxyUsername, opts.ProxyPassword)
	f, err := startForwarder(up)
	if err != nil {
		return opts, func() {}, err
	}
	opts.Proxy = "http://" + f.ln.Addr().String()
	opts.ProxyUsername, opts.ProxyPassword = "", ""
	return opts, f.close, nil
}

// forwarder is one session's authenticating HTTP proxy.
type forwarder struct {
	up  *url.URL
	ln  net.Listener
	srv *http.Server
	rp  *httputil.ReverseProxy

	conns Conns // hijacked tunnels
}

func startForwarder(up *url.URL) (*forwarder, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, engine.Wrap(engine.BrowserError, err, "could not start the proxy login forwarder: "+err.Error())
	}
	f := &forwarder{up: up, ln: ln}
	tr := &http.Transport{
		ResponseHeaderTimeout: proxyDialTimeout,
		TLSHandshakeTimeout:   proxyDialTimeout,
		IdleConnTimeout:       90 * time.Second,
	}
	if up.Scheme == "http" {
		// Go's transport sends the URL's user info as Proxy-Authorization.
		tr.Proxy = http.ProxyURL(up)
	} else {
		tr.DialContext = func(ctx context.Context, _, addr string) (net.Conn, error) { return DialProxy(ctx, up, addr) }
	}
	f.rp = &httputil.ReverseProxy{
		Transport: tr,
		Rewrite:   func(r *httputil.ProxyRequest) { r.Out.URL = r.In.URL; r.Out.Host = r.In.Host },
		ModifyResponse: func(r *http.Response) error {
			if r.StatusCode == http.StatusProxyAuthRequired {
				// The browser has no login to offer: say what happened.
				return errProxyLogin
			}
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			http.Error(w, "browsermcp proxy forwarder: "+err.Error(), http.StatusBadGateway)
		},
	}
	f.srv = &http.Server{Handler: f, ReadHeaderTimeout: proxyDialTimeout}
	go f.srv.Serve(ln)
	return f, nil
}

// ServeHTTP forwards one request of the browser: a CONNECT becomes a tunnel
// through the upstream proxy, anything else a request sent through it.
func (f *forwarder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodConnect {
		if !r.URL.IsAbs() {
			http.Error(w, "not a proxy request", http.StatusBadRequest)
			return
		}
		f.rp.ServeHTTP(w, r)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), proxyDialTimeout)
	up, err := DialProxy(ctx, f.up, r.Host)
	cancel()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "cannot tunnel", http.StatusInternalServerError)
		return
	}
	c, brw, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	if !f.conns.Track(c) || !f.conns.Track(up) {
		c.Close()
		up.Close()
		return
	}
	defer f.conns.Untrack(c)
	defer f.conns.Untrack(up)
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	// Either side ending ends both: the deferred untracks close them.
	Splice(c, brw, up)
}

// close stops the forwarder and its tunnels.
func (f *forwarder) close() {
	if !f.conns.Close() {
		return
	}
	f.srv.Close()
	if tr, ok := f.rp.Transport.(*http.Transport); ok {
		tr.CloseIdleConnections()
	}
}

// DialProxy connects to hostPort through the proxy up (http:// with
// CONNECT, or socks5://), logging in with up's user info when it has any.
// ctx bounds the connection and the handshake.
func DialProxy(ctx context.Context, up *url.URL, hostPort string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", up.Host)
	if err != nil {
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	if up.Scheme == "http" {
		err = httpConnect(c, up.User, hostPort)
	} else {
		err = socksConnect(c, up.User, hostPort)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	c.SetDeadline(time.Time{})
	return c, nil
}

// httpConnect opens a tunnel through an HTTP proxy.
func httpConnect(c net.Conn, user *url.Userinfo, hostPort string) error {
	auth := ""
	if user != nil {
		pw, _ := user.Password()
		auth = "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(user.Username()+":"+pw)) + "\r\n"
	}
	if _, err := fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n%s\r\n", hostPort, hostPort, auth); err != nil {
		return err
	}
	// Read the answer byte by byte up to its end, so that nothing the
	// destination sends after it is lost in a buffer.
	resp, err := http.ReadResponse(bufio.NewReaderSize(oneByteReader{c}, 16), nil)
	if err != nil {
		return err
	}
	if resp.StatusCode == http.StatusProxyAuthRequired {
		return errProxyLogin
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the proxy answered CONNECT with %s", resp.Status)
	}
	return nil
}

// oneByteReader reads one byte at a time.
type oneByteReader struct{ r io.Reader }

func (o oneByteReader) Read(p []byte) (int, error) {
	if len(p) > 1 {
		p = p[:1]
	}
	return o.r.Read(p)
}

// SOCKS5 (RFC 1928) reply code of success.
const socksOK = 0

// socksConnect opens a connection through a SOCKS5 proxy, with the
// username/password method (RFC 1929) when user is set.
func socksConnect(c net.Conn, user *url.Userinfo, hostPort string) error {
	host, portStr, err := net.SplitHostPort(hostPort)
	if err != nil {
		return err
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || len(host) > 255 {
		return fmt.Errorf("bad destination %q", hostPort)
	}
	method := byte(0)
	if user != nil {
		method = 2
	}
	if _, err := c.Write([]byte{5, 1, method}); err != nil {
		return err
	}
	var sel [2]byte
	if _, err := io.ReadFull(c, sel[:]); err != nil {
		return err
	}
	if sel[0] != 5 || sel[1] != method {
		if user == nil {
			return errors.New("the SOCKS proxy wants authentication")
		}
		return errors.New("the SOCKS proxy does not take a username and password")
	}
	if user != nil {
		pw, _ := user.Password()
		if len(user.Username()) > 255 || len(pw) > 255 {
			return errors.New("the SOCKS username and password must be at most 255 bytes each")
		}
		msg := append([]byte{1, byte(len(user.Username()))}, user.Username()...)
		msg = append(append(msg, byte(len(pw))), pw...)
		if _, err := c.Write(msg); err != nil {
			return err
		}
		var st [2]byte
		if _, err := io.ReadFull(c, st[:]); err != nil {
			return err
		}
		if st[1] != 0 {
			return errors.New("the SOCKS proxy refused the login")
		}
	}
	req := append([]byte{5, 1, 0, 3, byte(len(host))}, host...)
	req = binary.BigEndian.AppendUint16(req, uint16(port))
	if _, err := c.Write(req); err != nil {
		return err
	}
	var rep [4]byte
	if _, err := io.ReadFull(c, rep[:]); err != nil {
		return err
	}
	if rep[1] != socksOK {
		return fmt.Errorf("the SOCKS proxy refused the connection (code %d)", rep[1])
	}
	skip := 0
	switch rep[3] {
	case 1:
		skip = 4
	case 4:
		skip = 16
	case 3:
		var n [1]byte
		if _, err := io.ReadFull(c, n[:]); err != nil {
			return err
		}
		skip = int(n[0])
	}
	_, err = io.ReadFull(c, make([]byte, skip+2))
	return err
}

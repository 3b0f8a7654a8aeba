package testenv

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"
)

// LoginProxy starts an HTTP proxy that wants the login user:pass
// (Proxy-Authorization: Basic) and answers 407 without it. It answers a
// plain request itself, with a page titled "via proxy <host> as <user>",
// so that a host that does not exist loads through it and only through
// it. A CONNECT, to any host, is tunnelled to tunnelTo (host:port), so a
// made-up https host reaches a local TLS server. It stops when tb ends.
func LoginProxy(tb testing.TB, user, pass, tunnelTo string) *url.URL {
	tb.Helper()
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Proxy-Authorization") != want {
			w.Header().Set("Proxy-Authenticate", `Basic realm="test"`)
			http.Error(w, "login required", http.StatusProxyAuthRequired)
			return
		}
		if r.Method != http.MethodConnect {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<title>via proxy %s as %s</title>", r.Host, user)
			return
		}
		up, err := net.DialTimeout("tcp", tunnelTo, 10*time.Second)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		c, brw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			up.Close()
			return
		}
		io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
		splice(c, brw.Reader, up)
	}))
	tb.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	return u
}

// SocksProxy starts a SOCKS5 proxy that wants the login user:pass
// (RFC 1929) and refuses a client that offers none. Every CONNECT, to any
// host, goes to dialTo (host:port). It stops when tb ends.
func SocksProxy(tb testing.TB, user, pass, dialTo string) *url.URL {
	tb.Helper()
	addr := ServeTCP(tb, func(c net.Conn) { socksServe(c, user, pass, dialTo) })
	return &url.URL{Scheme: "socks5", Host: addr}
}

// ServeTCP serves each connection to a new listener on 127.0.0.1 with f,
// closing it after f, until tb ends; it returns the listener's host:port.
func ServeTCP(tb testing.TB, f func(net.Conn)) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); f(c) }()
		}
	}()
	return ln.Addr().String()
}

func socksServe(c net.Conn, user, pass, dialTo string) {
	c.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	var head [2]byte
	if _, err := io.ReadFull(br, head[:]); err != nil || head[0] != 5 {
		return
	}
	methods := make([]byte, head[1])
	if _, err := io.ReadFull(br, methods); err != nil {
		return
	}
	offered := false
	for _, m := range methods {
		offered = offered || m == 2
	}
	if !offered {
		c.Write([]byte{5, 0xff}) // no acceptable method
		return
	}
	c.Write([]byte{5, 2})
	readField := func() string {
		n, err := br.ReadByte()
		if err != nil {
			return ""
		}
		b := make([]byte, n)
		io.ReadFull(br, b)
		return string(b)
	}
	if v, err := br.ReadByte(); err != nil || v != 1 {
		return
	}
	if readField() != user || readField() != pass {
		c.Write([]byte{1, 1})
		return
	}
	c.Write([]byte{1, 0})
	var req [4]byte
	if _, err := io.ReadFull(br, req[:]); err != nil {
		return
	}
	switch req[3] {
	case 1:
		io.ReadFull(br, make([]byte, 4))
	case 4:
		io.ReadFull(br, make([]byte, 16))
	case 3:
		readField()
	}
	io.ReadFull(br, make([]byte, 2)) // the port: every connection goes to dialTo
	up, err := net.DialTimeout("tcp", dialTo, 10*time.Second)
	if err != nil {
		c.Write([]byte{5, 4, 0, 1, 0, 0, 0, 0, 0, 0})
		return
	}
	c.Write([]byte{5, 0, 0, 1, 0, 0, 0, 0, 0, 0})
	c.SetDeadline(time.Time{})
	splice(c, br, up)
}

// splice copies both ways until either side ends, then closes both.
func splice(c net.Conn, fromC io.Reader, up net.Conn) {
	done := make(chan struct{}, 2)
	go func() { io.Copy(up, fromC); done <- struct{}{} }()
	go func() { io.Copy(c, up); done <- struct{}{} }()
	<-done
	c.Close()
	up.Close()
}

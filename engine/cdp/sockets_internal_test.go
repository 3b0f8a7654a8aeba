package cdp

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// TestRelayChainsThroughSessionProxy checks that the WebSocket relay of a
// session with its own HTTP proxy connects through that proxy, and that
// what the policy refuses reaches neither the proxy nor the destination.
func TestRelayChainsThroughSessionProxy(t *testing.T) {
	echo := testenv.ServeTCP(t, func(c net.Conn) { io.Copy(c, c) })
	var mu sync.Mutex
	var connects []string
	proxy := testenv.ServeTCP(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		req, err := http.ReadRequest(br)
		if err != nil || req.Method != http.MethodConnect {
			return
		}
		mu.Lock()
		connects = append(connects, req.Host)
		mu.Unlock()
		up, err := net.Dial("tcp", req.Host)
		if err != nil {
			return
		}
		defer up.Close()
		io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
		go io.Copy(up, br)
		io.Copy(c, up)
	})
	_, echoPort, _ := net.SplitHostPort(echo)
	pol, err := engine.NewPolicy([]string{"127.0.0.1:" + echoPort}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	r, err := startRelay(pol, "http://"+proxy, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	if server, _ := r.proxyRules(nil); !strings.HasPrefix(server, "http=http://"+proxy+";https=http://"+proxy+";socks=socks5://") {
		t.Fatalf("proxy rules = %q", server)
	}
	through := func(dest string) (net.Conn, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, err := kit.DialProxy(ctx, &url.URL{Scheme: "socks5", Host: r.ln.Addr().String()}, dest)
		if err == nil {
			c.SetDeadline(time.Now().Add(10 * time.Second))
		}
		return c, err
	}
	c, err := through(echo)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "ping")
	buf := make([]byte, 4)
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "ping" {
		t.Fatalf("echo through the relay: %q, %v", buf, err)
	}
	if _, err := through("127.0.0.1:1"); err == nil || !strings.Contains(err.Error(), "code 2") {
		t.Fatalf("a refused destination: err = %v, want the SOCKS refusal (code 2)", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(connects) != 1 || connects[0] != echo {
		t.Fatalf("the session's proxy got CONNECT for %v, want only %s", connects, echo)
	}
}

// TestRelayRefusesOtherProxySchemes: a session proxy the relay cannot
// chain through is refused, naming the field, rather than bypassed.
func TestRelayRefusesOtherProxySchemes(t *testing.T) {
	pol, _ := engine.NewPolicy([]string{"example.com"}, nil, false)
	_, err := startRelay(pol, "https://proxy.example:8443", nil)
	var e *engine.Error
	if engine.CodeOf(err) != engine.InvalidParameters || !asError(err, &e) || e.Details["field"] != "proxy" {
		t.Fatalf("err = %v, want INVALID_PARAMETERS naming proxy", err)
	}
}

func asError(err error, e **engine.Error) bool {
	x, ok := err.(*engine.Error)
	*e = x
	return ok
}

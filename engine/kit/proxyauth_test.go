package kit_test

import (
	"context"
	"io"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// TestDialProxyLogin: DialProxy logs in to HTTP and SOCKS5 proxies with
// the URL's user info, and says so when the proxy refuses the login.
func TestDialProxyLogin(t *testing.T) {
	echo := testenv.ServeTCP(t, func(c net.Conn) { io.Copy(c, c) })
	for _, p := range []*url.URL{testenv.LoginProxy(t, "ada", "s3cret", echo), testenv.SocksProxy(t, "ada", "s3cret", echo)} {
		t.Run(p.Scheme, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			u := *p
			u.User = url.UserPassword("ada", "s3cret")
			c, err := kit.DialProxy(ctx, &u, "anywhere.invalid:80")
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(10 * time.Second))
			io.WriteString(c, "ping")
			buf := make([]byte, 4)
			if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "ping" {
				t.Fatalf("through the proxy: %q, %v", buf, err)
			}
			u.User = url.UserPassword("ada", "wrong")
			if _, err := kit.DialProxy(ctx, &u, "anywhere.invalid:80"); err == nil || !strings.Contains(err.Error(), "refused the login") {
				t.Fatalf("wrong password: %v", err)
			}
		})
	}
}

// TestAuthProxyOptions: a session without a login keeps its options; one
// with a login gets a forwarder on 127.0.0.1 in its place, and the login
// leaves the options the browser sees.
func TestAuthProxyOptions(t *testing.T) {
	in := engine.SessionOptions{Proxy: "http://127.0.0.1:3128"}
	out, stop, err := kit.AuthProxy(in)
	stop()
	if err != nil || out.Proxy != in.Proxy {
		t.Fatalf("without a login: %+v, %v", out, err)
	}
	in.ProxyUsername, in.ProxyPassword = "ada", "s3cret"
	out, stop, err = kit.AuthProxy(in)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	u, err := url.Parse(out.Proxy)
	if err != nil || u.Scheme != "http" || !strings.HasPrefix(u.Host, "127.0.0.1:") || out.ProxyUsername != "" || out.ProxyPassword != "" {
		t.Fatalf("with a login: %+v", out)
	}
	if _, _, err := kit.AuthProxy(engine.SessionOptions{ProxyUsername: "ada"}); engine.AsError(err).Code != engine.InvalidParameters {
		t.Fatalf("a login without a proxy: %v", err)
	}
}

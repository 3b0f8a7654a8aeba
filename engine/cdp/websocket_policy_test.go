package cdp_test

import (
	"context"
	"crypto/sha1"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// wsServer is a WebSocket server that accepts every handshake and records
// the paths of the handshakes it received.
func wsServer(t *testing.T) (srv *httptest.Server, handshakes func() []string) {
	t.Helper()
	var mu sync.Mutex
	var got []string
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			http.Error(w, "WebSocket only", http.StatusBadRequest)
			return
		}
		mu.Lock()
		got = append(got, r.URL.RequestURI())
		mu.Unlock()
		sum := sha1.Sum([]byte(r.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		w.Header().Set("Upgrade", "websocket")
		w.Header().Set("Connection", "Upgrade")
		w.Header().Set("Sec-WebSocket-Accept", base64.StdEncoding.EncodeToString(sum[:]))
		w.WriteHeader(http.StatusSwitchingProtocols)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), got...) }
}

func port(u string) string {
	p, _ := url.Parse(u)
	return p.Port()
}

// TestPolicyHoldsWebSockets checks that a WebSocket to a host the policy
// refuses never reaches it, from the page, a worker, a popup and a
// cross-site iframe, on the first try, while one to an allowed host opens.
// Chromium's request interception never sees WebSocket handshakes; before
// the relay (sockets.go) the refused server got every one of them.
func TestPolicyHoldsWebSockets(t *testing.T) {
	site, _ := hitServer(t)
	allowed, allowedHits := wsServer(t)
	refused, refusedHits := wsServer(t)
	// The site and the allowed WebSocket server are allowed by port; the
	// refused server is on the same host, on a port no rule names.
	pol, err := engine.NewPolicy([]string{"127.0.0.1:" + port(site.URL), "localhost:" + port(site.URL), "127.0.0.1:" + port(allowed.URL)}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	wsURL := func(srv *httptest.Server, path string) string {
		return strings.Replace(srv.URL, "http://", "ws://", 1) + path
	}
	page := func(ws, extra string) string {
		return site.URL + "/websocket.html?ws=" + url.QueryEscape(ws) + extra
	}
	defer func() {
		if hits := refusedHits(); len(hits) > 0 {
			t.Errorf("refused WebSocket handshakes reached the server: %v", hits)
		}
	}()

	s := newPolicySession(t, pol)
	wsTitle := func(t *testing.T, want string) {
		t.Helper()
		if title := waitTitle(t, s, func(t string) bool { return strings.HasPrefix(t, "ws=") }); title != want {
			t.Fatalf("title = %q, want %q", title, want)
		}
	}

	t.Run("page", func(t *testing.T) {
		if _, err := navigate(t, s, page(wsURL(refused, "/page"), "")); err != nil {
			t.Fatal(err)
		}
		wsTitle(t, "ws=error")
		waitBlocked(t, s, "the WebSocket to be recorded as refused", "//127.0.0.1:"+port(refused.URL))
	})

	t.Run("page by another name", func(t *testing.T) {
		if _, err := navigate(t, s, page(strings.Replace(wsURL(refused, "/localhost"), "127.0.0.1", "localhost", 1), "")); err != nil {
			t.Fatal(err)
		}
		wsTitle(t, "ws=error")
	})

	t.Run("allowed", func(t *testing.T) {
		if _, err := navigate(t, s, page(wsURL(allowed, "/page"), "")); err != nil {
			t.Fatal(err)
		}
		wsTitle(t, "ws=open")
		if hits := allowedHits(); len(hits) != 1 || hits[0] != "/page" {
			t.Fatalf("the allowed server got %v, want one handshake for /page", hits)
		}
	})

	t.Run("worker", func(t *testing.T) {
		if _, err := navigate(t, s, page(wsURL(refused, "/worker"), "&in=worker")); err != nil {
			t.Fatal(err)
		}
		wsTitle(t, "ws=error")
		if _, err := navigate(t, s, page(wsURL(allowed, "/worker"), "&in=worker")); err != nil {
			t.Fatal(err)
		}
		wsTitle(t, "ws=open")
	})

	t.Run("popup", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := navigate(t, s, site.URL+"/welcome.html"); err != nil {
			t.Fatal(err)
		}
		// The popup opens its WebSocket as it loads, before the session
		// has listed it as a tab.
		for _, ws := range []string{wsURL(refused, "/popup"), wsURL(allowed, "/popup")} {
			if _, err := s.Evaluate(ctx, engine.EvalRequest{Expression: `window.open(` + fmt.Sprintf("%q", page(ws, "")) + `); true`}); err != nil {
				t.Fatal(err)
			}
		}
		testenv.Eventually(t, "both popups to report", func() (bool, error) {
			res, err := s.Tabs(ctx, engine.TabsRequest{Action: "list"})
			if err != nil {
				return false, err
			}
			got := map[string]string{}
			for _, tb := range res.Tabs {
				if u, err := url.Parse(tb.URL); err == nil && strings.HasPrefix(tb.Title, "ws=") {
					got[u.Query().Get("ws")] = tb.Title
				}
			}
			return got[wsURL(refused, "/popup")] == "ws=error" && got[wsURL(allowed, "/popup")] == "ws=open", fmt.Errorf("the popups report %v", got)
		})
	})

	t.Run("cross-site iframe", func(t *testing.T) {
		// Full Chromium runs the frame out of process, as its own target.
		s := newPolicySessionOn(t, fullChromium(t), pol)
		frame := func(ws string) string {
			return site.URL + "/oopif.html?frame=" + url.QueryEscape(strings.Replace(page(ws, ""), "127.0.0.1", "localhost", 1))
		}
		for _, c := range []struct{ ws, want string }{{wsURL(refused, "/oopif"), "frame ws=error"}, {wsURL(allowed, "/oopif"), "frame ws=open"}} {
			if _, err := navigate(t, s, frame(c.ws)); err != nil {
				t.Fatal(err)
			}
			if title := waitTitle(t, s, func(t string) bool { return strings.HasPrefix(t, "frame ") }); title != c.want {
				t.Fatalf("%s: title = %q, want %q", c.ws, title, c.want)
			}
		}
	})
}

package cdp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/cdp"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// keepingProxy is a CDP proxy in front of a browser that never passes on
// the end of a client's connection: it keeps its own connection to the
// browser, with the client's sessions and Fetch interception, until the
// test ends. Selenium Grid's se:cdp does so when a client's TCP connection
// ends without a close frame (a server that exits before chromedp sends
// it); this proxy does so always, so that only what the client did before
// its connection ended counts.
type keepingProxy struct {
	*httptest.Server
	upstream string

	mu   sync.Mutex
	kept []*websocket.Conn
}

func newKeepingProxy(t *testing.T, devtools string) *keepingProxy {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ws, err := cdp.ResolveEndpoint(ctx, devtools)
	if err != nil {
		t.Fatal(err)
	}
	p := &keepingProxy{upstream: ws}
	p.Server = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(func() {
		p.Server.CloseClientConnections()
		p.Server.Close()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, c := range p.kept {
			c.CloseNow()
		}
	})
	return p
}

// url is the proxy's websocket, which the engine dials as it is.
func (p *keepingProxy) url() string {
	return strings.Replace(p.URL, "http://", "ws://", 1) + "/se/cdp"
}

func (p *keepingProxy) serve(w http.ResponseWriter, r *http.Request) {
	client, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	client.SetReadLimit(-1)
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	up, _, err := websocket.Dial(ctx, p.upstream, nil)
	cancel()
	if err != nil {
		client.CloseNow()
		return
	}
	up.SetReadLimit(-1)
	p.mu.Lock()
	p.kept = append(p.kept, up)
	p.mu.Unlock()
	// Both directions end with the client's connection; the browser's
	// stays open.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			typ, msg, err := up.Read(context.Background())
			if err != nil || client.Write(context.Background(), typ, msg) != nil {
				return
			}
		}
	}()
	for {
		typ, msg, err := client.Read(context.Background())
		if err != nil || up.Write(context.Background(), typ, msg) != nil {
			break
		}
	}
	client.CloseNow()
}

// TestLetGoLeavesNoInterception: a Shared engine attached through a proxy
// that keeps its connection to the browser (as the Grid's se:cdp does for
// a server that exited) lets go of its session under a domain policy, and
// another engine adopts the session and uses its page. Before: the first
// engine's Close only cancelled its contexts, so its page's and its
// browser-wide Fetch interception stayed in the browser for a client that
// was gone, which paused every request of the page: the adopting engine's
// navigation waited until its deadline. After: Close disables both and
// detaches before its connection ends.
func TestLetGoLeavesNoInterception(t *testing.T) {
	proxy := newKeepingProxy(t, testenv.PlainChromium(t))
	pol, err := engine.NewPolicy([]string{"127.0.0.1"}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	cfg := cdp.Config{Endpoint: proxy.url(), Shared: true, Policy: pol, Viewport: engine.Viewport{Width: 800, Height: 600}}
	call := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), 20*time.Second)
	}

	a := cdp.New(cfg)
	ctx, cancel := call()
	defer cancel()
	s, err := a.NewSession(ctx, engine.SessionOptions{Viewport: cfg.Viewport})
	if err != nil {
		t.Fatal(err)
	}
	s = engine.Bound(s) // as the Manager calls it
	if _, err := s.Navigate(ctx, engine.NavigateRequest{URL: site.URL + "/welcome.html"}); err != nil {
		t.Fatal(err)
	}
	// The session stays for another server; the engine lets go of it.
	a.Close()

	b := cdp.New(cfg)
	defer b.Close()
	ctx, cancel = call()
	defer cancel()
	adopted, err := b.Adopt(ctx, engine.SessionOptions{Viewport: cfg.Viewport})
	if err != nil {
		t.Fatalf("adopting the session: %v", err)
	}
	adopted = engine.Bound(adopted)
	defer adopted.Close(context.Background())
	ctx, cancel = call()
	defer cancel()
	if _, err := adopted.Navigate(ctx, engine.NavigateRequest{URL: site.URL + "/form.html"}); err != nil {
		t.Fatalf("navigating the adopted session: %v", err)
	}
	got, err := adopted.Evaluate(ctx, engine.EvalRequest{Expression: "location.pathname"})
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != `"/form.html"` {
		t.Fatalf("the adopted page is at %s, want /form.html", got)
	}
}

package cdp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"
)

// An endpoint (--cdp-endpoint) comes in three forms:
//
//   - a DevTools host, http://host:port (or ws://host:port with no path),
//     whose /json/version names the browser's websocket;
//   - a browser websocket, ws://host:port/devtools/browser/<id>;
//   - any other websocket, dialled as it is: a proxy in front of a browser
//     that has no /json/version, like Selenium Grid's se:cdp
//     (ws://grid/session/<id>/se/cdp), browserless or a hosted service.
//
// chromedp's remote.NewAllocator asks /json/version for every address
// without /devtools/browser/ in it, and panicked on the Grid's answer (a
// JSON error with no webSocketDebuggerUrl); ResolveEndpoint does the asking
// itself and the allocator is given the websocket with NoModifyURL.

// resolveTimeout bounds the /json/version request and the websocket dial.
const resolveTimeout = 10 * time.Second

// ResolveEndpoint returns the websocket address of the browser endpoint
// names, asking the host's /json/version when endpoint is a DevTools host.
func ResolveEndpoint(ctx context.Context, endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", fmt.Errorf("%q is not a URL: %w", endpoint, err)
	}
	if u.Host == "" {
		return "", fmt.Errorf("%q has no host; want http://host:port or ws://host:port/path", endpoint)
	}
	switch u.Scheme {
	case "http", "https":
	case "ws", "wss":
		if u.Path != "" && u.Path != "/" {
			if strings.Contains(u.Path, "/devtools/") {
				// Chromium accepts a Host header that is an IP address or
				// localhost only.
				if host, err := resolveHost(ctx, u); err == nil {
					u.Host = host
				}
			}
			return u.String(), nil
		}
	default:
		return "", fmt.Errorf("%q has scheme %q; want http(s):// for a DevTools host or ws(s):// for a websocket", endpoint, u.Scheme)
	}
	return versionURL(ctx, u)
}

// versionURL asks a DevTools host for its browser's websocket.
func versionURL(ctx context.Context, u *url.URL) (string, error) {
	q := *u
	q.Scheme = map[string]string{"ws": "http", "wss": "https"}[u.Scheme]
	if q.Scheme == "" {
		q.Scheme = u.Scheme
	}
	host, err := resolveHost(ctx, &q)
	if err != nil {
		return "", err
	}
	q.Host, q.Path, q.RawQuery = host, "/json/version", ""
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, q.String(), nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", q.String(), err)
	}
	var v struct {
		WebSocketDebuggerURL string `json:"webSocketDebuggerUrl"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &v) != nil || v.WebSocketDebuggerURL == "" {
		return "", fmt.Errorf("%s answered %s without a webSocketDebuggerUrl: is it a DevTools host? A proxied websocket (such as Grid's se:cdp) must be given as its ws:// address", q.String(), resp.Status)
	}
	return v.WebSocketDebuggerURL, nil
}

// resolveHost returns u's host:port with the host as an IP address (or
// localhost), which is what Chromium's DevTools server accepts in Host.
func resolveHost(ctx context.Context, u *url.URL) (string, error) {
	host, port := u.Hostname(), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "ws": "80", "https": "443", "wss": "443"}[u.Scheme]
	}
	if host != "localhost" && net.ParseIP(host) == nil {
		addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
		if err != nil {
			return "", err
		}
		if len(addrs) == 0 {
			return "", fmt.Errorf("%s has no address", host)
		}
		host = addrs[0].IP.String()
	}
	return net.JoinHostPort(host, port), nil
}

// endpointAllocator attaches to the browser at an endpoint of any of the
// three forms: it resolves the endpoint on each Allocate (a DevTools host's
// websocket changes when its browser restarts), then dials it as it is.
type endpointAllocator struct {
	endpoint string

	mu     sync.Mutex
	inner  chromedp.Allocator
	cancel context.CancelFunc
}

// Allocate satisfies chromedp.Allocator.
func (a *endpointAllocator) Allocate(ctx context.Context, opts ...chromedp.BrowserOption) (*chromedp.Browser, error) {
	rctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	ws, err := ResolveEndpoint(rctx, a.endpoint)
	cancel()
	if err != nil {
		return nil, err
	}
	actx, acancel := remote.NewAllocator(context.Background(), ws, remote.NoModifyURL, remote.WithDialTimeout(resolveTimeout))
	inner := chromedp.FromContext(actx).Allocator
	a.mu.Lock()
	a.inner, a.cancel = inner, acancel
	a.mu.Unlock()
	return inner.Allocate(ctx, opts...)
}

// Wait satisfies chromedp.Allocator.
func (a *endpointAllocator) Wait() {
	a.mu.Lock()
	inner, cancel := a.inner, a.cancel
	a.mu.Unlock()
	if inner != nil {
		inner.Wait()
	}
	if cancel != nil {
		cancel()
	}
}

// Attaches satisfies chromedp.Attacher: the browser is not ours, and
// cancelling detaches from it rather than closing it.
func (a *endpointAllocator) Attaches() bool { return true }

// CheckEndpoint connects to the browser at endpoint, asks its version and
// detaches: the startup check of --cdp-endpoint, so that a wrong or
// unreachable endpoint fails at once, naming itself, rather than at the
// first session. It returns the browser's product, e.g. "Chrome/126.0...".
func CheckEndpoint(ctx context.Context, endpoint string) (string, error) {
	alloc, cancelAlloc := chromedp.NewAllocatorContext(context.Background(), &endpointAllocator{endpoint: endpoint})
	defer cancelAlloc()
	root, cancelRoot := chromedp.NewContext(alloc)
	defer cancelRoot()
	type answer struct {
		product string
		err     error
	}
	done := make(chan answer, 1)
	go func() {
		v, err := chromedp.CallBrowser(root, browser.GetVersion, cdp.Empty{})
		if err != nil {
			done <- answer{err: err}
			return
		}
		done <- answer{product: v.Product}
	}()
	select {
	case a := <-done:
		return a.product, a.err
	case <-ctx.Done():
		cancelRoot()
		return "", fmt.Errorf("no answer within the deadline: %w", ctx.Err())
	}
}

package cdp

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testenv/mcpcheck"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
	"github.com/seed4af8c199/browsermcp/tools"
)

// TestChurn runs create_session / navigate / close_session cycles from 4
// MCP clients (in-process, on one server and one browser) and compares the
// server's and the browser's memory (RSS; the browser's summed over its
// processes), the goroutines and the open targets
// before and after. It is long, so it runs only with BROWSERMCP_CHURN set
// to the number of cycles (2000 for BENCHMARKS.md). It fails on more than
// 5 MB of growth of either process or any leaked target.
func TestChurn(t *testing.T) {
	cycles, _ := strconv.Atoi(os.Getenv("BROWSERMCP_CHURN"))
	if cycles <= 0 {
		t.Skip("set BROWSERMCP_CHURN=<cycles> to run the churn test")
	}
	const clients = 4
	site := testsite.Start()
	defer site.Close()
	eng := New(Config{ExecPath: testenv.Chromium(t), Headless: true, Viewport: engine.Viewport{Width: 1280, Height: 720}})
	eng.Start()
	defer eng.Close()
	mgr := sessions.New(eng, sessions.Config{Timeout: time.Minute, MaxSessions: clients,
		Defaults: engine.SessionOptions{Viewport: engine.Viewport{Width: 1280, Height: 720}}})
	defer mgr.Shutdown(context.Background())
	srv := tools.NewServer(mgr, tools.Options{Version: "churn"})
	cs := make([]*mcpcheck.Client, clients)
	for i := range cs {
		c, err := client.NewInProcessClient(srv)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Initialize(context.Background(), mcp.InitializeRequest{}); err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		cs[i] = mcpcheck.Wrap(t, c)
	}
	call := func(c *mcpcheck.Client, name string, args map[string]any) (map[string]any, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		res, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
		if err != nil {
			return nil, err
		}
		out := mcpcheck.Body(res)
		if res.IsError {
			return nil, fmt.Errorf("%s: %v", name, out)
		}
		return out, nil
	}
	cycle := func(c *mcpcheck.Client, i int) error {
		out, err := call(c, "create_session", nil)
		if err != nil {
			return err
		}
		id := out["sessionId"]
		if _, err := call(c, "navigate", map[string]any{"sessionId": id, "url": fmt.Sprintf("%s/form.html?cycle=%d", site.URL, i)}); err != nil {
			return err
		}
		_, err = call(c, "close_session", map[string]any{"sessionId": id})
		return err
	}
	run := func(n int) {
		var wg sync.WaitGroup
		errs := make(chan error, clients)
		for k, c := range cs {
			wg.Go(func() {
				for i := k; i < n; i += clients {
					if err := cycle(c, i); err != nil {
						errs <- fmt.Errorf("cycle %d: %w", i, err)
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}
	b, release, err := eng.browser(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	browserPID := chromedp.FromContext(b.ctx).Browser.Process().Pid
	// The browser's own first page (about:blank, no session's) is the
	// one page target that stays.
	measure := func() churnSample {
		runtime.GC()
		// Closed sessions' goroutines and targets go away asynchronously.
		var s churnSample
		testenv.Eventually(t, "the closed sessions' targets to go", func() (bool, error) {
			s = churnSample{serverRSS: testenv.RSS(os.Getpid()), goroutines: runtime.NumGoroutine(), targets: pageTargets(t, b)}
			s.browserRSS, s.processes = treeRSS(browserPID)
			s.byType = rssByType(browserPID)
			return s.targets <= 1, fmt.Errorf("%d page targets", s.targets)
		})
		return s
	}
	// A warm-up, so that what the first sessions load once (the browser's
	// caches, the server's pools) does not count as growth.
	run(40)
	before := measure()
	start := time.Now()
	run(cycles)
	took := time.Since(start)
	after := measure()
	t.Logf("churn: %d cycles with %d clients in %s (%.1f cycles/s)", cycles, clients, took.Round(time.Second), float64(cycles)/took.Seconds())
	t.Logf("| | before | after | growth |")
	t.Logf("| server RSS | %.1f MB | %.1f MB | %+.1f MB |", mb(before.serverRSS), mb(after.serverRSS), mb(after.serverRSS-before.serverRSS))
	t.Logf("| browser RSS (sum of its processes) | %.1f MB | %.1f MB | %+.1f MB |", mb(before.browserRSS), mb(after.browserRSS), mb(after.browserRSS-before.browserRSS))
	t.Logf("| goroutines | %d | %d | %+d |", before.goroutines, after.goroutines, after.goroutines-before.goroutines)
	t.Logf("| open page targets | %d | %d | %+d |", before.targets, after.targets, after.targets-before.targets)
	t.Logf("| browser processes | %d | %d | %+d |", before.processes, after.processes, after.processes-before.processes)
	t.Logf("browser RSS by process type, before: %v; after: %v (KiB)", before.byType, after.byType)
	if g := after.serverRSS - before.serverRSS; g > 5*1024 {
		t.Errorf("the server grew by %.1f MB", mb(g))
	}
	if g := after.browserRSS - before.browserRSS; g > 5*1024 {
		t.Errorf("the browser grew by %.1f MB", mb(g))
	}
	if after.targets != before.targets {
		t.Errorf("%d page targets leaked", after.targets-before.targets)
	}
}

type churnSample struct {
	serverRSS, browserRSS int64 // KiB
	goroutines, targets   int
	processes             int              // the browser's processes
	byType                map[string]int64 // RSS in KiB by process type (browser, renderer, gpu-process, ...)
}

// treeRSS sums the resident set sizes of pid's tree, in KiB. Unlike PSS,
// it does not change when other browsers on the machine share pages with
// it (other tests' Chromiums).
func treeRSS(pid int) (kib int64, processes int) {
	ps := testenv.Tree(pid)
	for _, p := range ps {
		kib += testenv.RSS(p)
	}
	return kib, len(ps)
}

func mb(kib int64) float64 { return float64(kib) / 1024 }

// pageTargets counts the browser's page targets.
func pageTargets(t *testing.T, b *browserProc) int {
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	res, err := chromedp.CallBrowser(ctx, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ti := range res.TargetInfos {
		if ti.Type == "page" {
			n++
		}
	}
	return n
}

// rssByType sums RSS (KiB) over pid's tree by Chromium process type.
func rssByType(pid int) map[string]int64 {
	out := map[string]int64{}
	for _, p := range testenv.Tree(pid) {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
		typ := "browser"
		for _, a := range strings.FieldsFunc(string(b), func(r rune) bool { return r == 0 || r == ' ' }) {
			if v, ok := strings.CutPrefix(a, "--type="); ok {
				typ = v
			}
		}
		out[typ] += testenv.RSS(p)
	}
	return out
}

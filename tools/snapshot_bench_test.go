package tools_test

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/page"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/internal/testenv/mcpcheck"
	"github.com/seed4af8c199/browsermcp/tools"
)

// benchEnv is an MCP client on the shared browser for benchmarks.
type benchEnv struct {
	b *testing.B
	c *mcpcheck.Client
}

func newBench(b *testing.B) *benchEnv {
	b.Helper()
	mgr := sessions.New(sharedBrowser(b), sessions.Config{Timeout: time.Hour, MaxSessions: 5,
		Defaults: engine.SessionOptions{Viewport: engine.Viewport{Width: 1280, Height: 720}}})
	c, err := client.NewInProcessClient(tools.NewServer(mgr, tools.Options{Version: "bench"}))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { mgr.Shutdown(context.Background()); c.Close() })
	return &benchEnv{b: b, c: mcpcheck.Wrap(b, c)}
}

// call runs a tool that must succeed and returns the text the model reads.
func (e *benchEnv) call(name string, args map[string]any) string {
	res, err := e.c.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		e.b.Fatal(err)
	}
	text := ""
	if tc, ok := mcp.AsTextContent(res.Content[0]); ok {
		text = tc.Text
	}
	if res.IsError {
		e.b.Fatalf("%s: %s", name, text)
	}
	return text
}

func (e *benchEnv) open(path string) string {
	sc := regexp.MustCompile(`"sessionId":"([^"]+)"`).FindStringSubmatch(e.call("create_session", nil))
	e.call("navigate", map[string]any{"sessionId": sc[1], "url": site.URL + path})
	return sc[1]
}

var o200k = func() *tiktoken.Tiktoken {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding("o200k_base")
	if err != nil {
		panic(err)
	}
	return enc
}()

// BenchmarkSnapshotTokens measures what the snapshot of peerbench's two
// large pages costs an agent, in bytes and o200k tokens of the text the
// model reads, and fails above the budget (the better peer's count times
// 0.6 on the generated page, playwright-mcp's times 0.56 on Wikipedia).
// That every interactive element keeps its ref is checked by
// engine/cdp's TestSnapshotRefsEveryInteractive.
func BenchmarkSnapshotTokens(b *testing.B) {
	for _, c := range []struct {
		name, path string
		budget     int
	}{
		{"wikipedia", "/peerbench/large.html", 32800},
		{"generated", "/peerbench/large-gen.html", 15700},
	} {
		b.Run(c.name, func(b *testing.B) {
			e := newBench(b)
			id := e.open(c.path)
			var text string
			for b.Loop() {
				text = e.call("snapshot", map[string]any{"sessionId": id})
			}
			tokens := len(o200k.Encode(text, nil, nil))
			refs := page.CountRefs(text)
			b.ReportMetric(float64(len(text)), "bytes")
			b.ReportMetric(float64(tokens), "o200k-tokens")
			b.ReportMetric(float64(refs), "refs")
			if tokens > c.budget {
				b.Errorf("snapshot of %s costs %d o200k tokens, budget %d", c.path, tokens, c.budget)
			}
		})
	}
}

// BenchmarkFindTokens measures what find costs an agent looking for its
// next target on peerbench's two large pages, in o200k tokens of the text
// the model reads, beside the whole outline's; it fails when a find costs
// a tenth of the outline or finds nothing.
func BenchmarkFindTokens(b *testing.B) {
	for _, c := range []struct {
		name, path string
		args       map[string]any
	}{
		{"wikipedia/search-button", "/peerbench/large.html", map[string]any{"text": "Search", "role": "button"}},
		{"wikipedia/firefox-os-links", "/peerbench/large.html", map[string]any{"text": "Firefox OS", "role": "link", "limit": 3}},
		{"wikipedia/thunderbird-links", "/peerbench/large.html", map[string]any{"text": "Thunderbird", "role": "link"}},
		{"wikipedia/edit-links", "/peerbench/large.html", map[string]any{"regex": "^edit$", "role": "link"}},
		{"generated/send-button", "/peerbench/large-gen.html", map[string]any{"text": "send", "role": "button"}},
		{"generated/item-link", "/peerbench/large-gen.html", map[string]any{"text": "Item 3.2.1", "role": "link"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			e := newBench(b)
			id := e.open(c.path)
			full := len(o200k.Encode(e.call("snapshot", map[string]any{"sessionId": id}), nil, nil))
			c.args["sessionId"] = id
			var text string
			for b.Loop() {
				text = e.call("find", c.args)
			}
			tokens := len(o200k.Encode(text, nil, nil))
			b.ReportMetric(float64(tokens), "o200k-tokens")
			b.ReportMetric(float64(full), "outline-o200k-tokens")
			b.ReportMetric(float64(page.CountRefs(text)), "refs")
			if strings.HasPrefix(text, "No line matches") || tokens*10 > full {
				b.Errorf("find %v costs %d o200k tokens, the whole outline %d:\n%s", c.args, tokens, full, text)
			}
		})
	}
}

// p50 reports the median of ds in ms.
func p50(b *testing.B, ds []time.Duration) {
	slices.Sort(ds)
	if len(ds) > 0 {
		b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
	}
}

// BenchmarkSnapshotSmall times the snapshot of peerbench's small page
// (login.html, 28 elements) through MCP: warm, and first after a
// navigation (a new document: its world, accessibility tree and walk
// function are made on the way), as peerbench's steps take it.
func BenchmarkSnapshotSmall(b *testing.B) {
	for _, fresh := range []bool{false, true} {
		name := "warm"
		if fresh {
			name = "after-navigate"
		}
		b.Run(name, func(b *testing.B) {
			e := newBench(b)
			id := e.open("/peerbench/login.html")
			var ds []time.Duration
			for b.Loop() {
				if fresh {
					b.StopTimer()
					e.call("navigate", map[string]any{"sessionId": id, "url": site.URL + "/peerbench/login.html"})
					b.StartTimer()
				}
				t0 := time.Now()
				e.call("snapshot", map[string]any{"sessionId": id})
				ds = append(ds, time.Since(t0))
			}
			p50(b, ds)
		})
	}
}

// BenchmarkSnapshotLatency times the Wikipedia snapshot through MCP: warm
// (the page's accessibility tree exists) and first after a navigation
// (Chromium builds the tree).
func BenchmarkSnapshotLatency(b *testing.B) {
	b.Run("warm", func(b *testing.B) {
		e := newBench(b)
		id := e.open("/peerbench/large.html")
		e.call("snapshot", map[string]any{"sessionId": id})
		var ds []time.Duration
		for b.Loop() {
			t0 := time.Now()
			e.call("snapshot", map[string]any{"sessionId": id})
			ds = append(ds, time.Since(t0))
		}
		p50(b, ds)
	})
	b.Run("after-navigate", func(b *testing.B) {
		e := newBench(b)
		id := e.open("/peerbench/large.html")
		var ds []time.Duration
		for b.Loop() {
			b.StopTimer()
			e.call("navigate", map[string]any{"sessionId": id, "url": site.URL + "/peerbench/large.html"})
			b.StartTimer()
			t0 := time.Now()
			e.call("snapshot", map[string]any{"sessionId": id})
			ds = append(ds, time.Since(t0))
		}
		p50(b, ds)
	})
}

// BenchmarkClick times a click on a static page (nothing to wait for) by
// ref and by selector, through MCP.
func BenchmarkClick(b *testing.B) {
	for _, by := range []string{"ref", "selector"} {
		b.Run(by, func(b *testing.B) {
			e := newBench(b)
			id := e.open("/form.html")
			args := map[string]any{"sessionId": id, "selector": "#count"}
			if by == "ref" {
				s := e.call("snapshot", map[string]any{"sessionId": id})
				args = map[string]any{"sessionId": id, "ref": regexp.MustCompile(`button "Count" \[ref=(e\d+)\]`).FindStringSubmatch(s)[1]}
			}
			var ds []time.Duration
			for b.Loop() {
				t0 := time.Now()
				e.call("click", args)
				ds = append(ds, time.Since(t0))
			}
			p50(b, ds)
		})
	}
}

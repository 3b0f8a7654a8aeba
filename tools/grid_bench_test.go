package tools_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/grid"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testenv/mcpcheck"
	"github.com/seed4af8c199/browsermcp/tools"
)

// BenchmarkGrid compares sessions on a local Selenium Grid (engine/grid,
// driving each browser over the Grid's se:cdp proxy) with the local engine,
// in one run: create_session, and the 7 steps of peerbench's iteration
// (navigate, snapshot, type, click, screenshot on a small page; navigate
// and snapshot on a large one).
//
//	go test -run '^$' -bench 'Grid$' -benchtime 10x ./tools/
func BenchmarkGrid(b *testing.B) {
	g := testenv.StartGrid(b, "--max-sessions", "2")
	ge := gridEngine(b, g)
	for _, en := range localAndGrid(b, ge) {
		b.Run(en.name+"/create_session", func(b *testing.B) {
			e := newEnvOn(b, en.eng())
			e.ok("close_session", map[string]any{"sessionId": e.session()}) // warm up
			for b.Loop() {
				id := e.session()
				b.StopTimer()
				e.ok("close_session", map[string]any{"sessionId": id})
				b.StartTimer()
			}
		})
		b.Run(en.name+"/iteration7", func(b *testing.B) {
			e := newEnvOn(b, en.eng())
			id := e.session()
			for b.Loop() {
				e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/peerbench/login.html"})
				snapshotOK(e, id)
				e.ok("type", map[string]any{"sessionId": id, "selector": "#user", "text": "alice", "clear": true})
				e.ok("click", map[string]any{"sessionId": id, "selector": "#remember"})
				e.ok("screenshot", map[string]any{"sessionId": id})
				e.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/peerbench/large.html"})
				snapshotOK(e, id)
			}
		})
	}
	// A session created through one replica (engine and Manager) and used
	// through another: the first call on the other replica finds the
	// session in the Grid's GraphQL API and attaches to its page; the
	// metric call-ms is a call that follows on the same replica.
	b.Run("grid/reattach", func(b *testing.B) {
		other := gridEngine(b, g)
		// A keeps holding what B closes on the Grid (as a killed replica
		// would), hence its room.
		ea, eb := newEnvOnMax(b, ge, 1000), newEnvOn(b, other)
		get := map[string]any{"selector": "h1"}
		var follow time.Duration
		for b.Loop() {
			b.StopTimer()
			id := ea.session()
			ea.ok("navigate", map[string]any{"sessionId": id, "url": site.URL + "/peerbench/login.html"})
			get["sessionId"] = id
			b.StartTimer()
			eb.ok("get_text", get) // the re-attach
			b.StopTimer()
			t0 := time.Now()
			eb.ok("get_text", get)
			follow += time.Since(t0)
			eb.ok("close_session", map[string]any{"sessionId": id})
			b.StartTimer()
		}
		b.ReportMetric(float64(follow.Microseconds())/1000/float64(b.N), "call-ms")
	})
}

// snapshotOK takes a snapshot, whose text is the outline rather than JSON.
func snapshotOK(e *env, id string) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := e.c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "snapshot", Arguments: map[string]any{"sessionId": id}}})
	if err != nil || res.IsError {
		e.t.Fatalf("snapshot: %v %v", err, res)
	}
}

// newEnvOn is newEnv on another engine than the shared browser.
func newEnvOn(t testing.TB, eng engine.Engine) *env {
	t.Helper()
	return newEnvOnMax(t, eng, 2)
}

// newEnvOnMax is newEnvOn with room for max sessions.
func newEnvOnMax(t testing.TB, eng engine.Engine, max int) *env {
	t.Helper()
	return newEnvOnWith(t, eng, sessions.Config{MaxSessions: max}, tools.Options{Version: "test", Caps: []tools.Group{tools.All}})
}

// BenchmarkGridAgents runs 8 agents at once, each an MCP client of its own
// (in-process) on one server with a session of its own, each doing
// navigate, snapshot and click on a small page b.N times: locally (8
// browser contexts of one browser) and on a hub with 2 nodes of 4 slots (8
// browsers, 4 per node), in one run. It reports the tool calls per second
// of the whole run (ops/s) and the median and 95th percentile of one call.
//
//	go test -run '^$' -bench GridAgents -benchtime 10x ./tools/
func BenchmarkGridAgents(b *testing.B) {
	const agents = 8
	g := testenv.StartGridHub(b, 2, agents/2)
	ge := gridEngine(b, g)
	for _, en := range localAndGrid(b, ge) {
		b.Run(en.name, func(b *testing.B) {
			mgr := sessions.New(en.eng(), sessions.Config{Timeout: time.Minute, MaxSessions: agents,
				Defaults: engine.SessionOptions{Viewport: engine.Viewport{Width: 1280, Height: 720}}})
			b.Cleanup(func() { mgr.Shutdown(context.Background()) })
			srv := tools.NewServer(mgr, tools.Options{Version: "test", Caps: []tools.Group{tools.All}})
			clients, ids := make([]*mcpcheck.Client, agents), make([]string, agents)
			for i := range clients {
				c, err := client.NewInProcessClient(srv)
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { c.Close() })
				if err := c.Start(context.Background()); err != nil {
					b.Fatal(err)
				}
				if _, err := c.Initialize(context.Background(), mcp.InitializeRequest{}); err != nil {
					b.Fatal(err)
				}
				clients[i] = mcpcheck.Wrap(b, c)
				e := &env{t: b, c: clients[i], mgr: mgr}
				ids[i] = e.session()
			}
			if en.name == "grid" {
				perNode := map[*testenv.GridNode]int{}
				for _, s := range g.Sessions(b) {
					perNode[g.NodeOf(b, s.ID)]++
				}
				if len(perNode) != 2 {
					b.Fatalf("the %d sessions are not on both nodes: %v", agents, perNode)
				}
			}
			steps := []struct {
				tool string
				args map[string]any
			}{
				{"navigate", map[string]any{"url": site.URL + "/peerbench/login.html"}},
				{"snapshot", map[string]any{}},
				{"click", map[string]any{"selector": "#remember"}},
			}
			lat := make([][]time.Duration, agents)
			errs := make(chan error, agents)
			var wg sync.WaitGroup
			b.ResetTimer()
			start := time.Now()
			for i := range agents {
				wg.Go(func() {
					for range b.N {
						for _, st := range steps {
							args := maps.Clone(st.args)
							args["sessionId"] = ids[i]
							ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
							t0 := time.Now()
							res, err := clients[i].CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: st.tool, Arguments: args}})
							lat[i] = append(lat[i], time.Since(t0))
							cancel()
							if err == nil && res.IsError {
								err = fmt.Errorf("%s: %v", st.tool, res.Content)
							}
							if err != nil {
								errs <- err
								return
							}
						}
					}
				})
			}
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			close(errs)
			for err := range errs {
				b.Fatal(err)
			}
			// Shutdown would leave the Grid sessions to another server.
			for i, c := range clients {
				(&env{t: b, c: c, mgr: mgr}).ok("close_session", map[string]any{"sessionId": ids[i]})
			}
			all := slices.Concat(lat...)
			slices.Sort(all)
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			b.ReportMetric(float64(len(all))/elapsed.Seconds(), "ops/s")
			b.ReportMetric(ms(all[len(all)/2]), "p50-ms")
			b.ReportMetric(ms(all[(len(all)*95+99)/100-1]), "p95-ms")
		})
	}
}

// gridEngine is a Grid engine on g for a benchmark, closed at its end.
func gridEngine(b *testing.B, g *testenv.Grid) *grid.Engine {
	ge, err := grid.New(grid.Config{URL: g.URL, Headless: true, ExecPath: testenv.Chromium(b), Viewport: engine.Viewport{Width: 1280, Height: 720}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ge.Close() })
	return ge
}

// engineCase is one engine a benchmark compares.
type engineCase struct {
	name string
	eng  func() engine.Engine
}

// localAndGrid are the shared local browser and ge, compared in one run.
func localAndGrid(b *testing.B, ge *grid.Engine) []engineCase {
	return []engineCase{{"local", func() engine.Engine { return sharedBrowser(b) }}, {"grid", func() engine.Engine { return ge }}}
}

// Command harness runs browsermcp and its peers (playwright-mcp,
// chrome-devtools-mcp and agent-browser, installed from npm at the
// versions bench/peers pins) side by side over MCP stdio, and measures
// what a whole task costs an agent in tokens.
//
// The task scenario: for every server and every task (tasks.go), a fresh
// server process, a scripted agent (agent.go) that reads tools/list once
// and then every answer it gets, and that reads the page's outline only
// when an answer does not show what it needs next. A task counts as
// completed when the agent saw every success text and the page itself
// reported the outcome to the harness's site (site.go), which the agent
// does not pay for.
//
//	make bench-deps                       # npm ci in bench/peers
//	go build -o bin/browsermcp .
//	go run ./bench/harness -scenario tasks -servers ours,playwright-mcp -tasks login,cart
//	go run ./bench/harness -update BENCHMARKS.md   # every scenario, server and task
//
// The steps and coldstart scenarios are peerbench's: the latency and the
// answer's tokens of seven warm steps on the small and the large page,
// and the phases of a cold start up to the first navigate, with the size
// of tools/list.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// run is one task done by one server.
type run struct {
	Server      string `json:"server"`
	Task        string `json:"task"`
	Find        bool   `json:"find,omitempty"` // the tasks-find scenario
	Tokens      int    `json:"tokens"`
	ToolsTokens int    `json:"tools_list_tokens"`
	Tools       int    `json:"tools"`
	Calls       int    `json:"calls"`
	Outlines    int    `json:"outlines"` // snapshots taken and linked outlines read
	// OutlineTokens are what the outlines cost, AnswerTokens every other
	// answer (tools/list aside).
	OutlineTokens int      `json:"outline_tokens"`
	AnswerTokens  int      `json:"answer_tokens"`
	Completed     bool     `json:"completed"`
	Error         string   `json:"error,omitempty"`
	Events        []string `json:"events"`
	Seconds       float64  `json:"seconds"`
	Trace         []step   `json:"trace"`
}

// report is a whole run of the harness.
type report struct {
	Started  time.Time         `json:"started"`
	Machine  string            `json:"machine"`
	Versions map[string]string `json:"versions"`
	Runs     []run             `json:"runs,omitempty"`
	Steps    []stepsRun        `json:"steps,omitempty"`
	Cold     []coldRun         `json:"coldstart,omitempty"`
}

// config is the command line.
type config struct {
	servers, tasks, scenarios string
	peers, chromium, ours     string
	root                      string
	timeout                   time.Duration
	n, warmup, cold           int
	json, update              string
}

func main() {
	var c config
	flag.StringVar(&c.scenarios, "scenario", "tasks,tasks-find,steps,coldstart", "scenarios, comma-separated: tasks, tasks-find, steps, coldstart")
	flag.StringVar(&c.servers, "servers", "ours,playwright-mcp,chrome-devtools-mcp,agent-browser", "servers, comma-separated")
	flag.StringVar(&c.tasks, "tasks", "all", "tasks, comma-separated, or all")
	flag.StringVar(&c.peers, "peers", "bench/peers", "directory of the npm install of the peers (make bench-deps)")
	flag.StringVar(&c.chromium, "chromium", "/usr/bin/chromium", "browser the peers drive")
	flag.StringVar(&c.ours, "ours", "bin/browsermcp --headless", "browsermcp's command line")
	flag.StringVar(&c.root, "root", ".", "the repository (bench/site, testdata/site/peerbench)")
	flag.DurationVar(&c.timeout, "timeout", 60*time.Second, "bound of each call")
	flag.IntVar(&c.n, "n", 10, "timed iterations of the steps scenario")
	flag.IntVar(&c.warmup, "warmup", 2, "untimed iterations before them")
	flag.IntVar(&c.cold, "cold", 5, "cold starts per server")
	flag.StringVar(&c.json, "json", "", "write every run, with the task traces, as JSON to this file")
	flag.StringVar(&c.update, "update", "", "write the results into their sections of this markdown file (BENCHMARKS.md)")
	flag.Parse()
	if err := mainErr(c); err != nil {
		fmt.Fprintln(os.Stderr, "harness:", err)
		os.Exit(1)
	}
}

func mainErr(c config) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	peers, err := filepath.Abs(c.peers)
	if err != nil {
		return err
	}
	oursCmd := c.ours
	if f := strings.Fields(oursCmd); len(f) > 0 && strings.Contains(f[0], "/") {
		abs, err := filepath.Abs(f[0])
		if err != nil {
			return err
		}
		oursCmd = strings.Join(append([]string{abs}, f[1:]...), " ")
	}
	o := options{peers: peers, chromium: c.chromium, ours: oursCmd}
	var srvs []*server
	for _, n := range strings.Split(c.servers, ",") {
		s := byName(strings.TrimSpace(n))
		if s == nil {
			return fmt.Errorf("unknown server %q", n)
		}
		srvs = append(srvs, s)
	}
	var ts []task
	for _, t := range tasks {
		if c.tasks == "all" || slices.Contains(strings.Split(c.tasks, ","), t.name) {
			ts = append(ts, t)
		}
	}
	if len(ts) == 0 {
		return fmt.Errorf("no task named in %q", c.tasks)
	}
	scen := strings.Split(c.scenarios, ",")
	for _, sc := range scen {
		if !slices.Contains([]string{"tasks", "tasks-find", "steps", "coldstart"}, sc) {
			return fmt.Errorf("unknown scenario %q", sc)
		}
	}
	st, err := newSite(c.root)
	if err != nil {
		return err
	}
	defer st.close()
	rep := report{Started: time.Now().UTC(), Machine: machine(c.chromium), Versions: map[string]string{}}
	for _, s := range srvs {
		rep.Versions[s.name] = s.version(o)
	}
	logf := func(format string, a ...any) { fmt.Fprintf(os.Stderr, format+"\n", a...) }
	// Server after server within each round, so that a noisy minute of the
	// shared machine falls on every server alike.
	if slices.Contains(scen, "coldstart") {
		for i := 0; i < c.cold; i++ {
			for _, s := range srvs {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				r := runCold(ctx, s, o, st, c.timeout)
				logf("coldstart %-20s %7.0f ms %s", s.name, r.Ms["total"], r.Error)
				rep.Cold = append(rep.Cold, r)
			}
		}
	}
	if slices.Contains(scen, "steps") {
		for _, s := range srvs {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			r := runSteps(ctx, s, o, st, c.n, c.warmup, c.timeout)
			var sum float64
			for _, name := range stepNames {
				sum += median(slices.Clone(r.Ms[name]))
			}
			logf("steps     %-20s %7.1f ms per iteration %s", s.name, sum, r.Error)
			rep.Steps = append(rep.Steps, r)
		}
	}
	for _, sc := range []string{"tasks", "tasks-find"} {
		if !slices.Contains(scen, sc) {
			continue
		}
		useFind := sc == "tasks-find"
		for _, t := range ts {
			for _, s := range srvs {
				if useFind && s.find == nil {
					continue
				}
				if ctx.Err() != nil {
					return ctx.Err()
				}
				r := runTask(ctx, s, o, st, t, useFind, c.timeout)
				status := "completed"
				if !r.Completed {
					status = "FAILED: " + r.Error
				}
				logf("%-10s %-20s %-7s %6d tokens %3d calls %2d outlines %5.1fs  %s",
					sc, s.name, t.name, r.Tokens, r.Calls, r.Outlines, r.Seconds, status)
				rep.Runs = append(rep.Runs, r)
			}
		}
	}
	if c.json != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.MkdirAll(filepath.Dir(c.json), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(c.json, b, 0o644); err != nil {
			return err
		}
	}
	var sections [][2]string
	if len(rep.Runs) > 0 {
		sections = append(sections, [2]string{"tasks", markdown(rep, ts, srvs)})
	}
	if len(rep.Steps) > 0 || len(rep.Cold) > 0 {
		sections = append(sections, [2]string{"steps", stepsMarkdown(rep, srvs)})
	}
	if c.update == "" {
		for _, sec := range sections {
			fmt.Println(sec[1])
		}
		return nil
	}
	return updateSections(c.update, sections)
}

// runTask starts a fresh server and lets the agent do t on it.
func runTask(ctx context.Context, s *server, o options, st *site, t task, useFind bool, timeout time.Duration) (r run) {
	r = run{Server: s.name, Task: t.name, Find: useFind}
	t0 := time.Now()
	defer func() { r.Seconds = time.Since(t0).Seconds() }()
	p, err := start(ctx, s.launch(o), timeout)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer p.stop()
	a := newAgent(s, p, timeout)
	a.useFind = useFind
	id := fmt.Sprintf("%s-%s-%d", s.name, t.name, time.Now().UnixNano())
	err = seq(
		func() error { return a.listTools(ctx) },
		func() error { return a.open(ctx) },
		func() error { return a.navigate(ctx, st.url(t.page, id)) },
		func() error { return t.run(ctx, a) },
	)
	if len(a.trace) > 0 && a.trace[0].What == "tools/list" {
		r.ToolsTokens = a.trace[0].Tokens
	}
	r.Tokens, r.Calls, r.Trace, r.Tools = a.tokens, a.calls, a.trace, a.tools
	for i, st := range a.trace {
		switch {
		case st.What == s.snapshot.tool || strings.HasPrefix(st.What, "read "):
			r.Outlines++
			r.OutlineTokens += st.Tokens
		case i > 0 || st.What != "tools/list":
			r.AnswerTokens += st.Tokens
		}
	}
	// The page's own word, which the agent does not pay for.
	seen, events := st.reported(id, t.event, 3*time.Second)
	r.Events = events
	switch {
	case err != nil && errors.Is(err, errNotSeen):
		r.Error = "the agent did not see " + err.Error()
	case err != nil:
		r.Error = err.Error()
	case !seen:
		r.Error = fmt.Sprintf("the page did not report %q (it reported %q)", t.event, events)
	default:
		r.Completed = true
	}
	if s.close != nil {
		_, _ = p.call(ctx, 10*time.Second, s.close.tool, expandAll(a, s.close.args))
	}
	return r
}

func expandAll(a *agent, args map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range args {
		out[k] = a.expand(v, nil)
	}
	return out
}

// machine names the kernel, the CPUs and the browser.
func machine(chromium string) string {
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	out := strings.TrimSpace(string(kernel)) + fmt.Sprintf(", %d CPUs", numCPU())
	if v, err := execOut(chromium, "--version"); err == nil {
		out += ", " + v
	}
	return out
}

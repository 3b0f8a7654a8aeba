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
//	go run ./bench/harness -servers ours,playwright-mcp -tasks login,cart
//	go run ./bench/harness -update BENCHMARKS.md   # every server and task
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
	Server      string   `json:"server"`
	Task        string   `json:"task"`
	Tokens      int      `json:"tokens"`
	ToolsTokens int      `json:"tools_list_tokens"`
	Tools       int      `json:"tools"`
	Calls       int      `json:"calls"`
	Outlines    int      `json:"outlines"` // snapshots taken and linked outlines read
	Completed   bool     `json:"completed"`
	Error       string   `json:"error,omitempty"`
	Events      []string `json:"events"`
	Seconds     float64  `json:"seconds"`
	Trace       []step   `json:"trace"`
}

// report is a whole run of the harness.
type report struct {
	Started  time.Time         `json:"started"`
	Machine  string            `json:"machine"`
	Versions map[string]string `json:"versions"`
	Runs     []run             `json:"runs"`
}

func main() {
	var (
		names    = flag.String("servers", "ours,playwright-mcp,chrome-devtools-mcp,agent-browser", "servers, comma-separated")
		taskList = flag.String("tasks", "all", "tasks, comma-separated, or all")
		peers    = flag.String("peers", "bench/peers", "directory of the npm install of the peers (make bench-deps)")
		chromium = flag.String("chromium", "/usr/bin/chromium", "browser the peers drive")
		oursCmd  = flag.String("ours", "bin/browsermcp --headless", "browsermcp's command line")
		root     = flag.String("root", ".", "the repository (bench/site, testdata/site/peerbench)")
		timeout  = flag.Duration("timeout", 60*time.Second, "bound of each call")
		jsonOut  = flag.String("json", "", "write every run, with its trace, as JSON to this file")
		update   = flag.String("update", "", "write the results into this markdown file's task section (BENCHMARKS.md)")
	)
	flag.Parse()
	if err := mainErr(*names, *taskList, *peers, *chromium, *oursCmd, *root, *timeout, *jsonOut, *update); err != nil {
		fmt.Fprintln(os.Stderr, "harness:", err)
		os.Exit(1)
	}
}

func mainErr(names, taskList, peers, chromium, oursCmd, root string, timeout time.Duration, jsonOut, update string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	peers, err := filepath.Abs(peers)
	if err != nil {
		return err
	}
	if f := strings.Fields(oursCmd); len(f) > 0 && strings.Contains(f[0], "/") {
		abs, err := filepath.Abs(f[0])
		if err != nil {
			return err
		}
		oursCmd = strings.Join(append([]string{abs}, f[1:]...), " ")
	}
	o := options{peers: peers, chromium: chromium, ours: oursCmd}
	var srvs []*server
	for _, n := range strings.Split(names, ",") {
		s := byName(strings.TrimSpace(n))
		if s == nil {
			return fmt.Errorf("unknown server %q", n)
		}
		srvs = append(srvs, s)
	}
	var ts []task
	for _, t := range tasks {
		if taskList == "all" || slices.Contains(strings.Split(taskList, ","), t.name) {
			ts = append(ts, t)
		}
	}
	if len(ts) == 0 {
		return fmt.Errorf("no task named in %q", taskList)
	}
	st, err := newSite(root)
	if err != nil {
		return err
	}
	defer st.close()
	rep := report{Started: time.Now().UTC(), Machine: machine(chromium), Versions: map[string]string{}}
	for _, s := range srvs {
		rep.Versions[s.name] = s.version(o)
	}
	// Task by task, every server in turn, so that a noisy minute of the
	// shared machine falls on every server alike.
	for _, t := range ts {
		for _, s := range srvs {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			r := runTask(ctx, s, o, st, t, timeout)
			status := "completed"
			if !r.Completed {
				status = "FAILED: " + r.Error
			}
			fmt.Fprintf(os.Stderr, "%-20s %-7s %6d tokens %3d calls %2d outlines %5.1fs  %s\n",
				s.name, t.name, r.Tokens, r.Calls, r.Outlines, r.Seconds, status)
			rep.Runs = append(rep.Runs, r)
		}
	}
	if jsonOut != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.MkdirAll(filepath.Dir(jsonOut), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(jsonOut, b, 0o644); err != nil {
			return err
		}
	}
	md := markdown(rep, ts, srvs)
	if update == "" {
		fmt.Print(md)
		return nil
	}
	return updateSection(update, md)
}

// runTask starts a fresh server and lets the agent do t on it.
func runTask(ctx context.Context, s *server, o options, st *site, t task, timeout time.Duration) (r run) {
	r = run{Server: s.name, Task: t.name}
	t0 := time.Now()
	defer func() { r.Seconds = time.Since(t0).Seconds() }()
	p, err := start(ctx, s.launch(o), timeout)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer p.stop()
	a := newAgent(s, p, timeout)
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
	for _, st := range a.trace {
		if st.What == s.snapshot.tool || strings.HasPrefix(st.What, "read ") {
			r.Outlines++
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

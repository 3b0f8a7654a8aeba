// Command cli measures browsermcp's command line as a shell agent uses it,
// next to agent-browser's when -agent-browser names its binary: the wall
// time of each command from process start to exit (open, snapshot -i,
// click, fill, screenshot on peerbench's login page), the o200k tokens
// each prints, the cold first command (which starts the daemon and its
// browser), the process alone (--version), and the daemon's memory (PSS)
// with 1 and with 10 sessions.
//
//	go build -o bin/browsermcp . && go run ./bench/cli -bin bin/browsermcp \
//	    -agent-browser /tmp/ab/node_modules/agent-browser/bin/agent-browser-linux-x64
//
// It prints a Markdown table. The machine is shared: compare the two
// columns of one run, not runs.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
	"github.com/seed4af8c199/browsermcp/internal/tokens"
)

// cli is one command line under test.
type cli struct {
	name string
	bin  string
	env  []string
	// session returns the flags that run a command in session n.
	session func(n int) []string
	stop    []string // the command that stops everything
	// daemons finds the processes that hold its sessions.
	daemons func() []int
}

func (c *cli) run(args ...string) (string, time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bin, args...)
	cmd.Env = c.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return out.String(), d, fmt.Errorf("%s %q: %v: %s%s", c.name, args, err, out.String(), errb.String())
	}
	return out.String(), d, nil
}

var buttonRef = regexp.MustCompile(`button "Sign in"[^\n]*\[ref=(e[0-9]+)\]`)
var userRef = regexp.MustCompile(`textbox "Username"[^\n]*\[ref=(e[0-9]+)\]`)

type sample struct {
	ms     []float64
	tokens []int
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

func main() {
	bin := flag.String("bin", "bin/browsermcp", "browsermcp binary")
	ab := flag.String("agent-browser", "", "agent-browser's native binary (optional)")
	n := flag.Int("n", 10, "iterations of the steps")
	flag.Parse()
	log.SetFlags(0)

	site := httptest.NewServer(testsite.Handler())
	defer site.Close()
	url := site.URL + "/peerbench/login.html"
	tmp, err := os.MkdirTemp("", "clibench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)

	absBin, _ := filepath.Abs(*bin)
	rt := filepath.Join(tmp, "rt")
	ours := &cli{name: "browsermcp", bin: absBin, env: append(os.Environ(), "BROWSERMCP_RUNTIME_DIR="+rt),
		session: func(n int) []string { return []string{"--session", "s" + strconv.Itoa(n)} },
		stop:    []string{"close", "--all"},
		daemons: func() []int { return procsWith(absBin, "daemon") }}
	clis := []*cli{ours}
	if *ab != "" {
		absAB, _ := filepath.Abs(*ab)
		clis = append(clis, &cli{name: "agent-browser", bin: absAB,
			env: append(os.Environ(), "AGENT_BROWSER_EXECUTABLE_PATH=/usr/bin/chromium", "AGENT_BROWSER_ARGS=--no-sandbox",
				"AGENT_BROWSER_NAMESPACE=clibench"+strconv.Itoa(os.Getpid())),
			session: func(n int) []string { return []string{"--session", "s" + strconv.Itoa(n)} },
			stop:    []string{"close", "--all"},
			daemons: func() []int { return procsWith(absAB, "") }})
	}

	steps := []string{"open", "snapshot -i", "click", "fill", "screenshot"}
	res := map[string]map[string]*sample{}
	cold := map[string]*sample{}
	mem := map[string][4]float64{}
	for _, c := range clis {
		res[c.name] = map[string]*sample{}
		for _, s := range steps {
			res[c.name][s] = &sample{}
		}
		cold[c.name] = &sample{}
	}
	for _, c := range clis {
		c.run(c.stop...)
		time.Sleep(500 * time.Millisecond)
	}
	// Cold first commands, interleaved: each starts the daemon.
	for i := 0; i < 3; i++ {
		for _, c := range clis {
			out, d, err := c.run("open", url)
			if err != nil {
				log.Fatal(err)
			}
			cold[c.name].ms = append(cold[c.name].ms, float64(d.Microseconds())/1000)
			cold[c.name].tokens = append(cold[c.name].tokens, count(out))
			if _, _, err := c.run(c.stop...); err != nil {
				log.Print(err)
			}
			waitGone(c)
		}
	}
	// The process alone: start, print the version, exit.
	start := map[string]*sample{}
	for _, c := range clis {
		start[c.name] = &sample{}
	}
	for i := 0; i < 20; i++ {
		for _, c := range clis {
			_, d, err := c.run("--version")
			if err != nil {
				log.Fatal(err)
			}
			start[c.name].ms = append(start[c.name].ms, float64(d.Microseconds())/1000)
		}
	}
	// Warm steps, interleaved step by step.
	shotDir := filepath.Join(tmp, "shots")
	os.MkdirAll(shotDir, 0o755)
	for _, c := range clis {
		if _, _, err := c.run("open", url); err != nil {
			log.Fatal(err)
		}
	}
	for i := 0; i < *n; i++ {
		for _, c := range clis {
			r := res[c.name]
			step := func(name string, args ...string) string {
				out, d, err := c.run(args...)
				if err != nil {
					log.Fatal(err)
				}
				r[name].ms = append(r[name].ms, float64(d.Microseconds())/1000)
				r[name].tokens = append(r[name].tokens, count(out))
				return out
			}
			step("open", "open", url)
			snap := step("snapshot -i", "snapshot", "-i")
			b, u := buttonRef.FindStringSubmatch(snap), userRef.FindStringSubmatch(snap)
			if b == nil || u == nil {
				log.Fatalf("%s: no refs in the snapshot:\n%s", c.name, snap)
			}
			step("fill", "fill", "@"+u[1], "alice")
			step("click", "click", "@"+b[1])
			step("screenshot", "screenshot", filepath.Join(shotDir, fmt.Sprintf("%s-%d.png", c.name, i)))
		}
	}
	// Memory: the daemon with one session, then with ten.
	for _, c := range clis {
		time.Sleep(time.Second)
		one, oneOwn := pss(c)
		for k := 1; k < 10; k++ {
			if _, _, err := c.run(append(c.session(k), "open", url)...); err != nil {
				log.Fatal(err)
			}
		}
		time.Sleep(time.Second)
		ten, tenOwn := pss(c)
		mem[c.name] = [4]float64{one, ten, oneOwn, tenOwn}
		c.run(c.stop...)
		waitGone(c)
	}

	fmt.Printf("| command | %s |\n|---|%s\n", strings.Join(names(clis), " | "), strings.Repeat("---|", len(clis)))
	row := func(label string, f func(c *cli) string) {
		var cells []string
		for _, c := range clis {
			cells = append(cells, f(c))
		}
		fmt.Printf("| %s | %s |\n", label, strings.Join(cells, " | "))
	}
	row("cold first command: `open` with the daemon start (median ms, n=3)", func(c *cli) string {
		return fmt.Sprintf("%.0f", median(cold[c.name].ms))
	})
	row("process start to exit: `--version` (median ms, n=20)", func(c *cli) string {
		return fmt.Sprintf("%.1f", median(start[c.name].ms))
	})
	for _, s := range steps {
		row(fmt.Sprintf("`%s` (median ms, n=%d)", s, *n), func(c *cli) string { return fmt.Sprintf("%.1f", median(res[c.name][s].ms)) })
	}
	for _, s := range steps {
		row(fmt.Sprintf("`%s` printed (o200k tokens)", s), func(c *cli) string {
			t := res[c.name][s].tokens
			return strconv.Itoa(t[len(t)-1])
		})
	}
	row("daemon PSS with 1 session (MiB, daemon and browser)", func(c *cli) string { return fmt.Sprintf("%.0f", mem[c.name][0]) })
	row("daemon PSS with 10 sessions (MiB, daemon and browser)", func(c *cli) string { return fmt.Sprintf("%.0f", mem[c.name][1]) })
	row("daemon process alone, 1 session (PSS MiB)", func(c *cli) string { return fmt.Sprintf("%.1f", mem[c.name][2]) })
	row("daemon process alone, 10 sessions (PSS MiB)", func(c *cli) string { return fmt.Sprintf("%.1f", mem[c.name][3]) })
}

func names(cs []*cli) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.name)
	}
	return out
}

func count(s string) int {
	n, err := tokens.O200k(s)
	if err != nil {
		log.Fatal(err)
	}
	return n
}

// pss sums the PSS of the daemons' process trees, and of the daemon
// processes alone, in MiB.
func pss(c *cli) (tree, own float64) {
	var t, o int64
	for _, p := range c.daemons() {
		t += testenv.TreePSS(p)
		o += testenv.PSS(p)
	}
	return float64(t) / 1024, float64(o) / 1024
}

func waitGone(c *cli) {
	deadline := time.Now().Add(30 * time.Second)
	for len(c.daemons()) > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	for _, p := range c.daemons() {
		syscall.Kill(p, syscall.SIGKILL)
	}
}

// procsWith are the processes running exe with arg as their first
// argument ("" for any), whose parent is not another of them.
func procsWith(exe, arg string) []int {
	var pids []int
	parents := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		target, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err != nil || target != exe {
			continue
		}
		b, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		args := strings.Split(string(b), "\x00")
		if arg != "" && (len(args) < 2 || args[1] != arg) {
			continue
		}
		st, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		_, rest, _ := strings.Cut(string(st), ") ")
		f := strings.Fields(rest)
		if len(f) > 1 && f[0] != "Z" {
			pp, _ := strconv.Atoi(f[1])
			parents[pid] = pp
			pids = append(pids, pid)
		}
	}
	var roots []int
	for _, p := range pids {
		if _, child := parents[parents[p]]; !child {
			roots = append(roots, p)
		}
	}
	return roots
}

// Command sessions measures where the cost of an op goes as the sessions in
// one server grow, per process type (our server, Chromium's browser, GPU,
// network and renderer processes): peerbench's concurrent scenario (K
// agents, each M x [navigate, snapshot, type, click] in a session of its
// own) is run twice per K, with M1 and M2 rounds, while every process of
// the tree is sampled from /proc; the difference between the two runs is
// the marginal CPU per op, without the launch and session set-up that a
// short run (peerbench's K=5, M=3 lasts under a second) mixes in. Memory
// is each type's PSS per session when the tree's total peaked in the longer
// run.
//
//	go run ./bench/sessions > bench/sessions.md
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// kinds are the process types reported, in order.
var kinds = []string{"server", "browser", "gpu-process", "network", "renderer", "zygote"}

// sample is one run: ops done, CPU ms and peak PSS MiB per process type.
type sample struct {
	ops int
	cpu map[string]float64
	pss map[string]float64
}

func main() {
	peerbench := flag.String("peerbench", ".cache/peerbench", "peerbench binary")
	peers := flag.String("peers", ".cache/peers", "peerbench's peers directory")
	server := flag.String("server", "bin/browsermcp", "browsermcp binary")
	flag.Parse()
	bin, err := filepath.Abs(*server)
	if err != nil {
		fatal(err)
	}
	// The command line identifies our server among the machine's processes.
	cmd := bin + " --headless --maxSessions 60"
	type plan struct{ k, m1, m2 int }
	// Both K make 600 more ops in the longer run.
	plans := []plan{{5, 3, 33}, {50, 1, 4}}
	started := time.Now().UTC()
	load := func() string {
		b, _ := os.ReadFile("/proc/loadavg")
		return strings.Join(strings.Fields(string(b))[:3], " ")
	}
	before := load()
	type result struct {
		k     int
		ops   int
		cpu   map[string]float64
		pss   map[string]float64
		total float64
	}
	var rs []result
	for _, p := range plans {
		a, err := run(*peerbench, *peers, cmd, p.k, p.m1)
		if err != nil {
			fatal(err)
		}
		b, err := run(*peerbench, *peers, cmd, p.k, p.m2)
		if err != nil {
			fatal(err)
		}
		r := result{k: p.k, ops: b.ops - a.ops, cpu: map[string]float64{}, pss: map[string]float64{}}
		if r.ops <= 0 {
			fatal(fmt.Errorf("with %d agents, the run of %d rounds did no more ops than that of %d", p.k, p.m2, p.m1))
		}
		for _, k := range kinds {
			// A process that did nothing can sample a tick less in the
			// longer run.
			r.cpu[k] = max((b.cpu[k]-a.cpu[k])/float64(r.ops), 0)
			r.total += r.cpu[k]
			r.pss[k] = b.pss[k]
		}
		rs = append(rs, r)
	}
	fmt.Println("## Where an op's cost goes as sessions grow")
	fmt.Println()
	fmt.Printf("`go run ./bench/sessions` (bench/sessions), run %s, load average %s before and %s after, %d CPUs.\n",
		started.Format("2006-01-02 15:04 UTC"), before, load(), runtime.NumCPU())
	fmt.Println("peerbench's concurrent scenario on one server, run twice per K (5 agents: 3 and 33 rounds; 50 agents:")
	fmt.Println("1 and 4 rounds; each round is navigate, snapshot, type, click), the server and every process under it")
	fmt.Println("sampled from /proc every 50 ms: the difference of the two runs is the CPU of 600 ops, without the")
	fmt.Println("browser's launch and the sessions' set-up. PSS is each process type's when the tree's total peaked in the")
	fmt.Println("longer run (sampled once a second); per session is the growth from K=5 to K=50 over the 45 sessions more.")
	fmt.Println()
	fmt.Println("| CPU ms per op | " + strings.Join(kinds, " | ") + " | total |")
	fmt.Println("|---" + strings.Repeat("|---", len(kinds)+1) + "|")
	for _, r := range rs {
		row := fmt.Sprintf("| K=%d |", r.k)
		for _, k := range kinds {
			row += fmt.Sprintf(" %.1f |", r.cpu[k])
		}
		fmt.Printf("%s %.1f |\n", row, r.total)
	}
	fmt.Println()
	fmt.Println("| peak PSS MiB | " + strings.Join(kinds, " | ") + " | total |")
	fmt.Println("|---" + strings.Repeat("|---", len(kinds)+1) + "|")
	lo, hi := rs[0], rs[len(rs)-1]
	for _, r := range []result{lo, hi} {
		row := fmt.Sprintf("| K=%d |", r.k)
		total := 0.0
		for _, k := range kinds {
			row += fmt.Sprintf(" %.1f |", r.pss[k])
			total += r.pss[k]
		}
		fmt.Printf("%s %.1f |\n", row, total)
	}
	row, total := "| per session |", 0.0
	for _, k := range kinds {
		d := (hi.pss[k] - lo.pss[k]) / float64(hi.k-lo.k)
		row += fmt.Sprintf(" %.2f |", d)
		total += d
	}
	fmt.Printf("%s %.2f |\n", row, total)
	fmt.Println()
	fmt.Println("The server column is browsermcp's own process; the rest is Chromium.")
	fmt.Println()
}

// run runs peerbench's concurrent scenario with k agents and m rounds and
// samples the server's process tree until it ends.
func run(peerbench, peers, cmd string, k, m int) (sample, error) {
	out := filepath.Join(os.TempDir(), fmt.Sprintf("bench-sessions-%d.json", os.Getpid()))
	defer os.Remove(out)
	pb := exec.Command(peerbench, "-peers", peers, "-ours-cmd", cmd, "-server", "ours", "-scenario", "concurrent",
		"-k", strconv.Itoa(k), "-m", strconv.Itoa(m), "-modes", "shared", "-json", out)
	if err := pb.Start(); err != nil {
		return sample{}, err
	}
	done := make(chan error, 1)
	go func() { done <- pb.Wait() }()
	ticks := map[int]float64{} // pid -> highest CPU ticks seen
	kind := map[int]string{}
	pss := map[string]float64{} // per type, at the sample with the highest total
	peak := 0.0
	nextPSS := time.Now()
	timeout := time.After(10 * time.Minute)
	for {
		select {
		case err := <-done:
			if err != nil {
				return sample{}, fmt.Errorf("peerbench -k %d -m %d: %w", k, m, err)
			}
			var res struct {
				Concurrent []struct {
					Ops int `json:"ops"`
				} `json:"concurrent"`
			}
			b, err := os.ReadFile(out)
			if err != nil {
				return sample{}, err
			}
			if err := json.Unmarshal(b, &res); err != nil || len(res.Concurrent) == 0 {
				return sample{}, fmt.Errorf("peerbench -k %d -m %d wrote no concurrent result (%v)", k, m, err)
			}
			s := sample{ops: res.Concurrent[0].Ops, cpu: map[string]float64{}, pss: pss}
			hz := 100.0 // USER_HZ on Linux
			for pid, t := range ticks {
				s.cpu[kind[pid]] += t * 1000 / hz
			}
			return s, nil
		case <-timeout:
			_ = pb.Process.Kill()
			return sample{}, fmt.Errorf("peerbench -k %d -m %d did not end within 10 minutes", k, m)
		case <-time.After(50 * time.Millisecond):
		}
		// PSS walks the page tables: once a second, not on every CPU sample.
		readPSS := time.Now().After(nextPSS)
		if readPSS {
			nextPSS = time.Now().Add(time.Second)
		}
		now, total := map[string]float64{}, 0.0
		// peerbench starts our server, which starts the browser: the
		// processes under peerbench are the server's tree and nothing
		// else on the machine, and each starts during the run, so that
		// its CPU time since it started is its time in the run.
		for _, pid := range testenv.Tree(pb.Process.Pid) {
			k := kindOf(pid, cmd)
			if k == "" {
				continue
			}
			if t, ok := cpuTicks(pid); ok && t >= ticks[pid] {
				ticks[pid], kind[pid] = t, k
			}
			if readPSS {
				v := float64(testenv.PSS(pid)) / 1024
				now[k] += v
				total += v
			}
		}
		if total > peak {
			peak, pss = total, now
		}
	}
}

// statFields are the fields of /proc/PID/stat after the command name.
func statFields(pid int) ([]string, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, false
	}
	return strings.Fields(s[i+1:]), true
}

// kindOf says which of our process types pid is, "" for none.
func kindOf(pid int, server string) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return ""
	}
	return kindOfCmdline(string(b), server)
}

// kindOfCmdline says which of our process types a process with the command
// line c (from /proc/PID/cmdline) is, "" for none; server is our server's
// command.
func kindOfCmdline(c, server string) string {
	// Chromium rewrites its command line, separated by spaces, not NULs.
	c = strings.ReplaceAll(c, "\x00", " ")
	switch {
	case strings.HasPrefix(c, server) && !strings.Contains(c, "-ours-cmd"):
		return "server"
	case !strings.Contains(c, "chromium"):
		return ""
	case strings.Contains(c, "--utility-sub-type=network"):
		return "network"
	}
	for _, f := range strings.Fields(c) {
		if t, ok := strings.CutPrefix(f, "--type="); ok {
			switch t {
			case "gpu-process", "renderer", "zygote":
				return t
			}
			return ""
		}
	}
	// Chromium's main process is the one without a --type.
	return "browser"
}

// cpuTicks is pid's user + system time in clock ticks.
func cpuTicks(pid int) (float64, bool) {
	f, ok := statFields(pid)
	if !ok || len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseFloat(f[11], 64)
	st, err2 := strconv.ParseFloat(f[12], 64)
	return u + st, err1 == nil && err2 == nil
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "sessions:", err)
	os.Exit(1)
}

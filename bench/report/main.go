// Command report turns peerbench result files into BENCHMARKS.md: the
// headline ratios of browsermcp to the best peer measured in the same run,
// against the project's targets, followed by peerbench's own tables.
//
//	go run ./bench/report -dir .cache/bench -compare compare.md > BENCHMARKS.md
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// The parts of peerbench's report this command reads.
type stat struct {
	N      int     `json:"n"`
	Median float64 `json:"median"`
	P95    float64 `json:"p95"`
}

type mem struct {
	PSSkB  int64 `json:"pss_kb"`
	RSSkB  int64 `json:"rss_kb"`
	ByKind map[string]struct {
		PSSkB int64 `json:"pss_kb"`
	} `json:"by_kind"`
}

type report struct {
	Meta struct {
		Server  string            `json:"server"`
		Label   string            `json:"label"`
		Version string            `json:"version"`
		Host    map[string]string `json:"host"`
		Started time.Time         `json:"started"`
	} `json:"meta"`
	Coldstart *struct {
		Total      stat `json:"total_to_first_navigate_ms"`
		ToolsO200k int  `json:"tools_list_tokens_o200k"`
		Tools      int  `json:"tools"`
	} `json:"coldstart"`
	Steps *struct {
		Steps map[string]*struct {
			Latency stat `json:"latency_ms"`
		} `json:"steps"`
		Verified bool `json:"verified"`
	} `json:"steps"`
	Tokens *struct {
		Pages []struct {
			Page      string  `json:"page"`
			SnapO200k int     `json:"snapshot_tokens_o200k"`
			SnapMs    float64 `json:"snapshot_ms"`
			SnapBytes int     `json:"snapshot_bytes"`
			Refs      int     `json:"refs"`
		} `json:"pages"`
		ToolsO200k int `json:"tools_list_tokens_o200k"`
		Tools      int `json:"tools"`
	} `json:"tokens"`
	Memory *struct {
		AfterWarm mem `json:"after_warmup"`
		AfterIdle mem `json:"after_warmup_idle_3s"`
	} `json:"memory"`
	Concurrent []struct {
		Mode       string          `json:"mode"`
		K          int             `json:"k"`
		OpsPerSec  float64         `json:"ops_per_sec"`
		Errors     int             `json:"errors"`
		MemPeak    mem             `json:"mem_peak"`
		CPUPerOpMs float64         `json:"cpu_per_op_ms"`
		OpLatency  map[string]stat `json:"op_latency_ms"`
	} `json:"concurrent"`
	Compat []struct {
		Name string  `json:"name"`
		OK   bool    `json:"ok"`
		Ms   float64 `json:"ms"`
	} `json:"compat"`
}

var peers = []string{"playwright-mcp", "chrome-devtools-mcp", "agent-browser"}

// floors is what bench/floor measured in the same run (floor.*.json): the
// raw-CDP cost of a cold start, of a click and of the other steps, nothing
// of ours in between.
type floors struct {
	Browser   string           `json:"browser"`
	Coldstart *stat            `json:"coldstart_ms"`
	Click     *stat            `json:"click_ms"`
	ClickMove *stat            `json:"click_move_ms"`
	Steps     map[string]*stat `json:"steps_ms"`
}

func main() {
	dir := flag.String("dir", ".cache/bench", "directory with <server>.<scenario>.json files")
	compare := flag.String("compare", "", "markdown from peerbench -compare to append")
	// The churn figures come from a test of our own (engine/cdp's
	// TestChurn), not from this run: they are kept in their own file so
	// that regenerating this report keeps them.
	churn := flag.String("churn", "bench/churn.md", "markdown of the churn test to append")
	// Why our ref counts are lower than the peers': a role-by-role reading
	// of their snapshots, kept by hand.
	refsDoc := flag.String("refs", "bench/refs.md", "markdown on ref counts to append")
	// Where the CPU and memory of an op go as sessions grow, per process
	// type: bench/sessions (its own run of peerbench).
	sessionsDoc := flag.String("sessions", "bench/sessions.md", "markdown on the cost of an op per process type to append")
	flag.Parse()
	rs := map[string]*report{} // server -> merged report
	files, _ := filepath.Glob(filepath.Join(*dir, "*.json"))
	sort.Strings(files)
	var fl floors
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "floor.") {
			b, err := os.ReadFile(f)
			if err != nil {
				fatal(err)
			}
			var one floors
			if err := json.Unmarshal(b, &one); err != nil {
				fatal(fmt.Errorf("%s: %w", f, err))
			}
			fl.Browser = one.Browser
			if one.Coldstart != nil {
				fl.Coldstart = one.Coldstart
			}
			if one.Click != nil {
				fl.Click, fl.ClickMove = one.Click, one.ClickMove
			}
			if one.Steps != nil {
				fl.Steps = one.Steps
			}
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			fatal(err)
		}
		var r report
		if err := json.Unmarshal(b, &r); err != nil {
			fatal(fmt.Errorf("%s: %w", f, err))
		}
		server := strings.SplitN(filepath.Base(f), ".", 2)[0]
		merge(rs, server, &r)
	}
	if rs["ours"] == nil {
		fatal(fmt.Errorf("no ours.*.json in %s", *dir))
	}
	var rows []row
	// vsFloor compares ours with a floor of bench/floor.
	vsFloor := func(name string, get func(*report) (float64, bool), f *stat, target float64) {
		ours, ok := get(rs["ours"])
		if !ok || f == nil {
			rows = append(rows, row{name: name, missing: true, target: target})
			return
		}
		rows = append(rows, row{name: name, ours: ours, best: f.Median, bestName: "floor", target: target})
	}
	add := func(name string, better lowerOrHigher, target float64, get func(*report) (float64, bool), onlyPeer string) {
		ours, ok := get(rs["ours"])
		if !ok {
			rows = append(rows, row{name: name, missing: true, target: target, better: better})
			return
		}
		best, bestName := math.NaN(), ""
		for _, p := range peers {
			if onlyPeer != "" && p != onlyPeer {
				continue
			}
			if r := rs[p]; r != nil {
				if v, ok := get(r); ok && (math.IsNaN(best) || better.wins(v, best)) {
					best, bestName = v, p
				}
			}
		}
		rows = append(rows, row{name: name, ours: ours, best: best, bestName: bestName, target: target, better: better})
	}
	step := func(name string) func(*report) (float64, bool) {
		return func(r *report) (float64, bool) {
			if r.Steps == nil || r.Steps.Steps[name] == nil {
				return 0, false
			}
			return r.Steps.Steps[name].Latency.Median, true
		}
	}
	add("whole 7-step iteration (sum of step medians, ms)", lower, 0.3, func(r *report) (float64, bool) {
		if r.Steps == nil || len(r.Steps.Steps) == 0 {
			return 0, false
		}
		var sum float64
		for _, s := range r.Steps.Steps {
			sum += s.Latency.Median
		}
		return sum, true
	}, "")
	add("snapshot, small page (median ms)", lower, 0.8, step("snapshot_small"), "")
	vsFloor("snapshot, small page (median ms) vs raw Accessibility.getFullAXTree", step("snapshot_small"), fl.Steps["snapshot_small"], 0)
	add("screenshot (median ms)", lower, 0.5, step("screenshot"), "")
	vsFloor("screenshot (median ms) vs raw Page.captureScreenshot", step("screenshot"), fl.Steps["screenshot"], 0)
	add("click (median ms)", lower, 0.1, step("click"), "")
	vsFloor("click (median ms) vs raw CDP press+release", step("click"), fl.Click, 1.3)
	vsFloor("click (median ms) vs raw CDP move+press+release", step("click"), fl.ClickMove, 1.3)
	add("type (median ms)", lower, 0, step("type"), "")
	coldstart := func(r *report) (float64, bool) {
		if r.Coldstart == nil {
			return 0, false
		}
		return r.Coldstart.Total.Median, true
	}
	add("cold start to end of first navigate (median ms)", lower, 0.25, coldstart, "")
	vsFloor("cold start (median ms) vs raw launch + context + navigate", coldstart, fl.Coldstart, 1.5)
	add("Wikipedia snapshot latency (median ms)", lower, 0.5, step("snapshot_large"), "")
	for _, page := range []string{"large", "large-gen"} {
		add("snapshot tokens, "+page+" (o200k)", lower, 0.6, func(r *report) (float64, bool) {
			if r.Tokens == nil {
				return 0, false
			}
			for _, p := range r.Tokens.Pages {
				if p.Page == page {
					return float64(p.SnapO200k), true
				}
			}
			return 0, false
		}, "")
	}
	add("server process PSS after warm-up (MiB, without the browser)", lower, 0.2, func(r *report) (float64, bool) {
		if r.Memory == nil {
			return 0, false
		}
		return float64(r.Memory.AfterWarm.ByKind["server"].PSSkB) / 1024, true
	}, "")
	conc := func(k int, f func(c *report, i int) float64) func(*report) (float64, bool) {
		return func(r *report) (float64, bool) {
			for i, c := range r.Concurrent {
				if c.Mode == "shared" && c.K == k && c.Errors == 0 && c.OpsPerSec > 0 {
					return f(r, i), true
				}
			}
			return 0, false
		}
	}
	add("10 agents in one process (ops/s)", higher, 1.5, conc(10, func(r *report, i int) float64 { return r.Concurrent[i].OpsPerSec }), "")
	add("10 agents in one process, peak PSS (MiB) vs playwright-mcp shared", lower, 0.7,
		conc(10, func(r *report, i int) float64 { return float64(r.Concurrent[i].MemPeak.PSSkB) / 1024 }), "playwright-mcp")
	add("marginal PSS per extra session, K=5 to 10 in one process (MiB)", lower, 0, func(r *report) (float64, bool) {
		pss := map[int]float64{}
		for _, c := range r.Concurrent {
			if c.Mode == "shared" && c.Errors == 0 {
				pss[c.K] = float64(c.MemPeak.PSSkB) / 1024
			}
		}
		if pss[5] == 0 || pss[10] == 0 {
			return 0, false
		}
		return (pss[10] - pss[5]) / 5, true
	}, "")
	add("tools/list, default capabilities (o200k tokens) vs playwright-mcp", lower, 1.0, func(r *report) (float64, bool) {
		if r.Tokens != nil && r.Tokens.ToolsO200k > 0 {
			return float64(r.Tokens.ToolsO200k), true
		}
		if r.Coldstart != nil && r.Coldstart.ToolsO200k > 0 {
			return float64(r.Coldstart.ToolsO200k), true
		}
		return 0, false
	}, "playwright-mcp")

	fmt.Println("# Benchmarks: browsermcp next to playwright-mcp, chrome-devtools-mcp and agent-browser")
	fmt.Println()
	fmt.Println("\"Tokens per task\" is generated by `make bench-peers`, which runs `bench/harness`, in this repository, with the")
	fmt.Println("peers `bench/peers` pins. The other sections are generated by `make bench-peerbench`, which runs the older")
	fmt.Println("side-by-side harness ([peerbench](../shared/peerbench)), outside the repository, for browsermcp and the")
	fmt.Println("three peers in one run, interleaving the servers scenario by scenario, on the same")
	fmt.Println("machine, browser and test site. Ratios are browsermcp / best peer **in this run** (the best of the three")
	fmt.Println("for each row), or browsermcp / the raw-CDP floor that `bench/floor` measured in the same run; the machine")
	fmt.Println("is shared and noisy, so compare ratios, not absolute times.")
	fmt.Println()
	h := rs["ours"].Meta.Host
	fmt.Printf("Machine: %s, %s CPUs, Chromium %s. Run started %s.\n\n", h["kernel"], h["cpus"], h["chromium"], rs["ours"].Meta.Started.Format(time.RFC3339))
	fmt.Println("Versions:")
	for _, s := range append([]string{"ours"}, peers...) {
		if r := rs[s]; r != nil {
			fmt.Printf("- %s: %s\n", s, r.Meta.Version)
		}
	}
	fmt.Println()
	fmt.Println("## Headline ratios")
	fmt.Println()
	fmt.Println("| metric | browsermcp | best peer | ratio | target | met |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, r := range rows {
		fmt.Println(r.markdown())
	}
	fmt.Println()
	if fl.Browser != "" {
		fmt.Printf("Floors (`bench/floor`, chromedp with nothing of ours in between, on %s): cold start = launch the\n", fl.Browser)
		fmt.Println("browser, create a browser context with a page and navigate to the login page until its load event;")
		fmt.Println("click = `Input.dispatchMouseEvent` press and release on the login page's button, on a warm page; and")
		fmt.Println("the same after a `mouseMoved` there, as a user's click (and ours) does: Chromium dispatches a move with the")
		fmt.Println("next animation frame, so that floor holds one frame.")
		if fl.Coldstart != nil && fl.Click != nil && fl.ClickMove != nil {
			fmt.Printf("Medians: cold start %.0f ms (n=%d), press+release %.2f ms, move+press+release %.2f ms (n=%d).\n",
				fl.Coldstart.Median, fl.Coldstart.N, fl.Click.Median, fl.ClickMove.Median, fl.Click.N)
		}
		fmt.Println()
	}
	stepFloors(os.Stdout, rs, fl)
	scale(rs["ours"])
	if *compare != "" {
		b, err := os.ReadFile(*compare)
		if err == nil {
			fmt.Println("## All figures (peerbench -compare)")
			fmt.Println()
			fmt.Println(string(b))
		}
	}
	for _, f := range []string{*refsDoc, *sessionsDoc, *churn} {
		if b, err := os.ReadFile(f); err == nil {
			fmt.Println()
			fmt.Print(string(b))
		}
	}
}

// stepFloors prints each step of the iteration next to the best peer and
// its raw floor, and what the target asks of browsermcp in ms, so that a
// target below the floor shows as such.
func stepFloors(w io.Writer, rs map[string]*report, fl floors) {
	if fl.Steps == nil || rs["ours"].Steps == nil {
		return
	}
	med := func(r *report, name string) (float64, bool) {
		if r == nil || r.Steps == nil || r.Steps.Steps[name] == nil {
			return 0, false
		}
		return r.Steps.Steps[name].Latency.Median, true
	}
	targets := map[string]float64{"snapshot_small": 0.8, "screenshot": 0.5, "snapshot_large": 0.5}
	fmt.Fprintln(w, "### Each step next to the raw call")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Raw calls of the same run (`bench/floor -scenario steps`; click: move+press+release), nothing of ours")
	fmt.Fprintln(w, "in between. For a snapshot the raw call is `Accessibility.getFullAXTree`, Chromium's whole")
	fmt.Fprintln(w, "accessibility tree read at once, before any formatting or refs (the call chrome-devtools-mcp's")
	fmt.Fprintln(w, "snapshot makes). It is a floor for a snapshot that reads the whole tree, not for one that asks for")
	fmt.Fprintln(w, "the roles and names it needs, as our walk does.")
	if ours, ok := med(rs["ours"], "snapshot_large"); ok && fl.Steps["snapshot_large"] != nil && ours < fl.Steps["snapshot_large"].Median {
		fmt.Fprintf(w, "On the large page our whole snapshot (%.1f ms) costs less than that read (%.1f ms).\n", ours, fl.Steps["snapshot_large"].Median)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "The last column asks whether the target is at least the least time measured for the step in this run")
	fmt.Fprintln(w, "(its raw call, browsermcp or a peer): a target below it asks for less than anyone, the browser alone")
	fmt.Fprintln(w, "included, achieved.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| step | browsermcp | best peer | raw call | browsermcp / raw call | target | target in ms | target ≥ least measured |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	var sumOurs, sumLeast float64
	for _, name := range stepNames {
		ours, ok := med(rs["ours"], name)
		if !ok {
			continue
		}
		best, bestName := math.NaN(), ""
		for _, p := range peers {
			if v, ok := med(rs[p], name); ok && (math.IsNaN(best) || v < best) {
				best, bestName = v, p
			}
		}
		f := fl.Steps[name]
		if name == "click" {
			f = fl.ClickMove
		}
		floor := math.NaN()
		if f != nil {
			floor = f.Median
		}
		least := ours
		for _, v := range []float64{best, floor} {
			if !math.IsNaN(v) && v < least {
				least = v
			}
		}
		sumOurs += ours
		sumLeast += least
		tgt, tgtMs, fits := "—", "", ""
		if t := targets[name]; t > 0 && !math.IsNaN(best) {
			tgt = fmt.Sprintf("≤ %g× best peer", t)
			tgtMs = fmt.Sprintf("%.1f", t*best)
			fits = "yes"
			if t*best < least {
				fits = "**no**"
			}
		}
		peer, raw, ratio := "—", "—", "—"
		if !math.IsNaN(best) {
			peer = fmt.Sprintf("%.1f (%s)", best, bestName)
		}
		if !math.IsNaN(floor) {
			raw, ratio = fmt.Sprintf("%.1f", floor), fmt.Sprintf("%.2f×", ours/floor)
		}
		fmt.Fprintf(w, "| %s | %.1f | %s | %s | %s | %s | %s | %s |\n", name, ours, peer, raw, ratio, tgt, tgtMs, fits)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Sum of the steps: browsermcp %.0f ms; the least measured per step (raw call, browsermcp or a peer) %.0f ms.\n", sumOurs, sumLeast)
	if it := iterationBest(rs); it > 0 {
		fmt.Fprintf(w, "The iteration target, 0.3× the best peer's %.0f ms, is %.0f ms: ", it, 0.3*it)
		if 0.3*it < sumLeast {
			fmt.Fprintln(w, "below that sum: meeting it takes at least one step faster than anything measured for it in this run, the raw calls included.")
		} else {
			fmt.Fprintln(w, "not below that sum.")
		}
	}
	fmt.Fprintln(w)
}

// stepNames are peerbench's seven steps of an iteration, in its order.
var stepNames = []string{"navigate_small", "snapshot_small", "type", "click", "screenshot", "navigate_large", "snapshot_large"}

// iterationBest is the best peer's whole iteration (sum of the seven step
// medians), among the peers that measured every step; 0 when none did.
func iterationBest(rs map[string]*report) float64 {
	best := 0.0
	for _, p := range peers {
		r := rs[p]
		if r == nil || r.Steps == nil {
			continue
		}
		sum, all := 0.0, true
		for _, name := range stepNames {
			s := r.Steps.Steps[name]
			if s == nil {
				all = false
				break
			}
			sum += s.Latency.Median
		}
		if all && (best == 0 || sum < best) {
			best = sum
		}
	}
	return best
}

// scale prints the 50-sessions criteria of issue 17: the cost of an op must
// not grow with the number of sessions in one server, and no agent may
// starve, on a box where latency grows with the queue.
func scale(r *report) {
	type conc = struct {
		ops, cpu, p50, p95, pss float64
		errs                    int
	}
	at := map[int]conc{}
	for _, c := range r.Concurrent {
		if c.Mode != "shared" {
			continue
		}
		all := c.OpLatency["all"]
		at[c.K] = conc{ops: c.OpsPerSec, cpu: c.CPUPerOpMs, p50: all.Median, p95: all.P95, pss: float64(c.MemPeak.PSSkB) / 1024, errs: c.Errors}
	}
	lo, okLo := at[5]
	hi, okHi := at[50]
	if !okLo || !okHi {
		return
	}
	yes := func(ok bool) string {
		if ok {
			return "yes"
		}
		return "no"
	}
	fmt.Println("### 50 sessions in one server (browsermcp; peerbench `concurrent -modes shared`, K=5 and K=50)")
	fmt.Println()
	fmt.Println("| criterion | K=5 | K=50 | figure | target | met |")
	fmt.Println("|---|---|---|---|---|---|")
	fmt.Printf("| errors | %d | %d | %d | 0 | %s |\n", lo.errs, hi.errs, hi.errs, yes(hi.errs == 0 && lo.errs == 0))
	fmt.Printf("| ops/s | %.1f | %.1f | %.2f× | ≥ 0.95× | %s |\n", lo.ops, hi.ops, hi.ops/lo.ops, yes(hi.ops/lo.ops >= 0.95))
	fmt.Printf("| server-tree CPU ms per op | %.0f | %.0f | %.2f× | ≤ 1.05× | %s |\n", lo.cpu, hi.cpu, hi.cpu/lo.cpu, yes(hi.cpu/lo.cpu <= 1.05))
	fmt.Printf("| op p95 / p50 (ms) | %.0f / %.0f | %.0f / %.0f | %.2f at K=50 | ≤ 1.5 | %s |\n", lo.p95, lo.p50, hi.p95, hi.p50, hi.p95/hi.p50, yes(hi.p95/hi.p50 <= 1.5))
	per := (hi.pss - lo.pss) / 45
	fmt.Printf("| peak PSS (MiB), marginal per session | %.0f | %.0f | %.1f MiB | ≤ 20 MiB | %s |\n", lo.pss, hi.pss, per, yes(per <= 20))
	fmt.Println()
}

type lowerOrHigher bool

const (
	lower  lowerOrHigher = false
	higher lowerOrHigher = true
)

func (b lowerOrHigher) wins(v, than float64) bool {
	if b == higher {
		return v > than
	}
	return v < than
}

type row struct {
	name       string
	ours, best float64
	bestName   string
	target     float64
	better     lowerOrHigher
	missing    bool
}

func (r row) markdown() string {
	sign := "≤"
	if r.better == higher {
		sign = "≥"
	}
	tgt := "—"
	if r.target > 0 {
		tgt = fmt.Sprintf("%s %g×", sign, r.target)
	}
	if r.missing {
		return fmt.Sprintf("| %s | not measured | | | %s | no |", r.name, tgt)
	}
	if math.IsNaN(r.best) || r.best == 0 {
		return fmt.Sprintf("| %s | %.1f | (no peer figure) | | %s | |", r.name, r.ours, tgt)
	}
	ratio := r.ours / r.best
	met := ""
	if r.target > 0 {
		met = "no"
		if (r.better == lower && ratio <= r.target) || (r.better == higher && ratio >= r.target) {
			met = "yes"
		}
	}
	return fmt.Sprintf("| %s | %.1f | %.1f (%s) | %.2f× | %s | %s |", r.name, r.ours, r.best, r.bestName, ratio, tgt, met)
}

// merge folds one result file into the server's report.
func merge(rs map[string]*report, server string, r *report) {
	cur := rs[server]
	if cur == nil {
		rs[server] = r
		return
	}
	if r.Coldstart != nil {
		cur.Coldstart = r.Coldstart
	}
	if r.Steps != nil {
		cur.Steps = r.Steps
	}
	if r.Tokens != nil {
		cur.Tokens = r.Tokens
	}
	if r.Memory != nil {
		cur.Memory = r.Memory
	}
	cur.Concurrent = append(cur.Concurrent, r.Concurrent...)
	cur.Compat = append(cur.Compat, r.Compat...)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "report:", err)
	os.Exit(1)
}

package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/seed4af8c199/browsermcp/internal/tokens"
)

// The steps scenario is peerbench's warm iteration, on one session: seven
// steps on the small and the large page, timed, with the tokens of each
// answer. Before timing, an untimed check makes sure that type and click
// really put "Signed in as ..." on the page.
var stepNames = []string{"navigate_small", "snapshot_small", "type", "click", "screenshot", "navigate_large", "snapshot_large"}

// stepsRun is what the steps scenario measured on one server.
type stepsRun struct {
	Server   string               `json:"server"`
	Verified bool                 `json:"verified"`
	Error    string               `json:"error,omitempty"`
	Ms       map[string][]float64 `json:"ms"`
	Tokens   map[string]int       `json:"tokens"` // of the last iteration's answer
	Images   map[string]int       `json:"image_bytes,omitempty"`
	// Pages are the snapshot tokens of each peerbench page.
	Pages map[string]int `json:"snapshot_tokens"`
}

// coldRun is one cold start: each phase's milliseconds.
type coldRun struct {
	Server string             `json:"server"`
	Ms     map[string]float64 `json:"ms"`
	Tools  int                `json:"tools"`
	Tokens int                `json:"tools_list_tokens"`
	Error  string             `json:"error,omitempty"`
}

var coldPhases = []string{"initialize", "tools/list", "open session", "first navigate", "total"}

func tok(s string) int {
	n, err := tokens.O200k(s)
	if err != nil {
		panic(err) // the offline tokenizer's data is compiled in
	}
	return n
}

// timed makes one call, untracked by the agent's bill.
func (a *agent) timed(ctx context.Context, c call, extra map[string]any) (result, error) {
	args := map[string]any{}
	for k, v := range c.args {
		args[k] = a.expand(v, extra)
	}
	r, err := a.p.call(ctx, a.timeout, c.tool, args)
	if err == nil && r.isError {
		err = fmt.Errorf("%s: %s", c.tool, last(r.text, 300))
	}
	return r, err
}

func runSteps(ctx context.Context, s *server, o options, st *site, n, warmup int, timeout time.Duration) (out stepsRun) {
	out = stepsRun{Server: s.name, Ms: map[string][]float64{}, Tokens: map[string]int{}, Images: map[string]int{}, Pages: map[string]int{}}
	p, err := start(ctx, s.launch(o), timeout)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	defer p.stop()
	a := newAgent(s, p, timeout)
	if s.close != nil {
		defer func() { _, _ = p.call(ctx, 10*time.Second, s.close.tool, expandAll(a, s.close.args)) }()
	}
	if err := a.open(ctx); err != nil {
		out.Error = err.Error()
		return out
	}
	small, large := st.base+"/peerbench/login.html", st.base+"/peerbench/large.html"
	var snap string
	ref := func(t target) (map[string]any, error) {
		r := a.find(snap, t)
		if r == "" {
			return nil, fmt.Errorf("no %s in the snapshot", t)
		}
		return map[string]any{"ref": r, "role": t.role, "name": t.name, "text": "bench"}, nil
	}
	// The untimed check.
	err = func() error {
		if _, err := a.timed(ctx, s.navigate, map[string]any{"url": small}); err != nil {
			return err
		}
		r, err := a.timed(ctx, s.snapshot, nil)
		if err != nil {
			return err
		}
		snap = r.text
		for _, c := range []struct {
			c call
			t target
		}{{s.typ, textbox("Username")}, {s.click, button("Sign in")}} {
			x, err := ref(c.t)
			if err != nil {
				return err
			}
			if _, err := a.timed(ctx, c.c, x); err != nil {
				return err
			}
		}
		r, err = a.timed(ctx, s.snapshot, nil)
		if err != nil {
			return err
		}
		if !strings.Contains(r.text, "Signed in as bench") {
			return fmt.Errorf("type and click did not sign in: %q", last(r.text, 300))
		}
		return nil
	}()
	if err != nil {
		out.Error = "check: " + err.Error()
		return out
	}
	out.Verified = true
	for i := 0; i < warmup+n; i++ {
		for _, name := range stepNames {
			var r result
			var err error
			switch name {
			case "navigate_small":
				r, err = a.timed(ctx, s.navigate, map[string]any{"url": small})
			case "navigate_large":
				r, err = a.timed(ctx, s.navigate, map[string]any{"url": large})
			case "snapshot_small", "snapshot_large":
				r, err = a.timed(ctx, s.snapshot, nil)
				snap = r.text
			case "type", "click":
				c, t := s.typ, textbox("Username")
				if name == "click" {
					c, t = s.click, button("Sign in")
				}
				var x map[string]any
				if x, err = ref(t); err == nil {
					r, err = a.timed(ctx, c, x)
				}
			case "screenshot":
				r, err = a.timed(ctx, s.screenshot, nil)
			}
			if err != nil {
				out.Error = fmt.Sprintf("%s: %v", name, err)
				return out
			}
			if i >= warmup {
				out.Ms[name] = append(out.Ms[name], float64(r.dur.Microseconds())/1000)
				out.Tokens[name], out.Images[name] = tok(r.text), r.images
			}
		}
	}
	// The snapshot of each page, untimed.
	for _, pg := range []string{"login.html", "large.html", "large-gen.html"} {
		if _, err := a.timed(ctx, s.navigate, map[string]any{"url": st.base + "/peerbench/" + pg}); err != nil {
			out.Error = err.Error()
			return out
		}
		r, err := a.timed(ctx, s.snapshot, nil)
		if err != nil {
			out.Error = err.Error()
			return out
		}
		out.Pages[pg] = tok(r.text)
	}
	return out
}

func runCold(ctx context.Context, s *server, o options, st *site, timeout time.Duration) (out coldRun) {
	out = coldRun{Server: s.name, Ms: map[string]float64{}}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	t0 := time.Now()
	p, err := start(ctx, s.launch(o), timeout)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	defer p.stop()
	out.Ms["initialize"] = ms(time.Since(t0))
	t1 := time.Now()
	text, names, err := p.toolsJSON(ctx, timeout)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	out.Ms["tools/list"] = ms(time.Since(t1))
	out.Tools, out.Tokens = len(names), tok(text)
	a := newAgent(s, p, timeout)
	if s.close != nil {
		defer func() { _, _ = p.call(ctx, 10*time.Second, s.close.tool, expandAll(a, s.close.args)) }()
	}
	t2 := time.Now()
	if err := a.open(ctx); err != nil {
		out.Error = err.Error()
		return out
	}
	if s.open != nil {
		// A server without an open step has no such phase: its first
		// navigate starts the browser.
		out.Ms["open session"] = ms(time.Since(t2))
	}
	t3 := time.Now()
	if _, err := a.timed(ctx, s.navigate, map[string]any{"url": st.base + "/peerbench/login.html"}); err != nil {
		out.Error = err.Error()
		return out
	}
	out.Ms["first navigate"] = ms(time.Since(t3))
	out.Ms["total"] = ms(time.Since(t0))
	return out
}

// median of xs, which it sorts.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	if len(xs)%2 == 1 {
		return xs[len(xs)/2]
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
}

// p95 of xs, nearest rank.
func p95(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := (95*len(s)+99)/100 - 1
	return s[max(i, 0)]
}

package main

import (
	"strings"
	"testing"
)

// withSteps is a report whose steps have the given medians.
func withSteps(ms map[string]float64) *report {
	r := &report{}
	r.Steps = &struct {
		Steps map[string]*struct {
			Latency stat `json:"latency_ms"`
		} `json:"steps"`
		Verified bool `json:"verified"`
	}{Steps: map[string]*struct {
		Latency stat `json:"latency_ms"`
	}{}}
	for name, v := range ms {
		r.Steps.Steps[name] = &struct {
			Latency stat `json:"latency_ms"`
		}{Latency: stat{Median: v}}
	}
	return r
}

// line returns the table row of step in out.
func line(t *testing.T, out, step string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "| "+step+" |") {
			return l
		}
	}
	t.Fatalf("no row for %s in\n%s", step, out)
	return ""
}

func TestStepFloors(t *testing.T) {
	rs := map[string]*report{
		"ours": withSteps(map[string]float64{"navigate_small": 30, "snapshot_small": 7.5, "type": 11, "click": 16,
			"screenshot": 42, "navigate_large": 64, "snapshot_large": 69}),
		"chrome-devtools-mcp": withSteps(map[string]float64{"navigate_small": 160, "snapshot_small": 6, "type": 250, "click": 240,
			"screenshot": 55, "navigate_large": 196, "snapshot_large": 243}),
		"playwright-mcp": withSteps(map[string]float64{"navigate_small": 89, "snapshot_small": 7.2, "type": 33, "click": 558,
			"screenshot": 41, "navigate_large": 276, "snapshot_large": 148}),
	}
	fl := floors{
		ClickMove: &stat{Median: 19},
		Steps: map[string]*stat{"navigate_small": {Median: 26}, "snapshot_small": {Median: 5.7}, "type": {Median: 1.3},
			"screenshot": {Median: 40.5}, "navigate_large": {Median: 42.5}, "snapshot_large": {Median: 223}},
	}
	var b strings.Builder
	stepFloors(&b, rs, fl)
	out := b.String()
	// 0.8 x 6 = 4.8 ms is below the raw floor of 5.7.
	if l := line(t, out, "snapshot_small"); !strings.Contains(l, "| 4.8 | **no** |") || !strings.Contains(l, "6.0 (chrome-devtools-mcp)") {
		t.Errorf("snapshot_small: %s", l)
	}
	// 0.5 x 41 = 20.5 ms is below the raw capture.
	if l := line(t, out, "screenshot"); !strings.Contains(l, "| 20.5 | **no** |") || !strings.Contains(l, "| 1.04× |") {
		t.Errorf("screenshot: %s", l)
	}
	// 0.5 x 148 = 74 ms is above ours (69), the least measured, though
	// below the raw read of the whole tree.
	if l := line(t, out, "snapshot_large"); !strings.Contains(l, "| 74.0 | yes |") {
		t.Errorf("snapshot_large: %s", l)
	}
	// The click's floor is the move+press+release one.
	if l := line(t, out, "click"); !strings.Contains(l, "| 19.0 |") {
		t.Errorf("click: %s", l)
	}
	// Least per step: 26 + 5.7 + 1.3 + 16 + 40.5 + 42.5 + 69 = 201; the
	// best iteration is chrome-devtools-mcp's 1150, and 0.3 x 1150 = 345.
	if !strings.Contains(out, "browsermcp 240 ms; the least measured per step (raw call, browsermcp or a peer) 201 ms.") {
		t.Errorf("sums:\n%s", out)
	}
	if !strings.Contains(out, "0.3× the best peer's 1150 ms, is 345 ms: not below that sum.") {
		t.Errorf("iteration:\n%s", out)
	}
	if !strings.Contains(out, "On the large page our whole snapshot (69.0 ms) costs less than that read (223.0 ms).") {
		t.Errorf("large snapshot sentence:\n%s", out)
	}
	rs["agent-browser"] = withSteps(map[string]float64{"navigate_small": 60, "snapshot_small": 24, "type": 23, "click": 24,
		"screenshot": 65, "navigate_large": 144, "snapshot_large": 252})
	b.Reset()
	stepFloors(&b, rs, fl)
	if out := b.String(); !strings.Contains(out, "0.3× the best peer's 592 ms, is 178 ms: below that sum") {
		t.Errorf("iteration with agent-browser:\n%s", out)
	}
}

// A peer that missed a step is no best iteration, and a step without a raw
// call reads as such.
func TestStepFloorsMissing(t *testing.T) {
	rs := map[string]*report{
		"ours":           withSteps(map[string]float64{"navigate_small": 30, "snapshot_small": 7, "type": 11, "click": 16, "screenshot": 42, "navigate_large": 64, "snapshot_large": 69}),
		"agent-browser":  withSteps(map[string]float64{"navigate_small": 60, "click": 24}),
		"playwright-mcp": withSteps(map[string]float64{"navigate_small": 90, "snapshot_small": 8, "type": 34, "click": 558, "screenshot": 39, "navigate_large": 265, "snapshot_large": 146}),
	}
	fl := floors{Steps: map[string]*stat{"navigate_small": {Median: 26}}}
	var b strings.Builder
	stepFloors(&b, rs, fl)
	out := b.String()
	if l := line(t, out, "type"); !strings.Contains(l, "| 11.0 | 34.0 (playwright-mcp) | — | — |") {
		t.Errorf("type without a raw call: %s", l)
	}
	if strings.Contains(out, "NaN") {
		t.Errorf("NaN in\n%s", out)
	}
	if !strings.Contains(out, "0.3× the best peer's 1140 ms") {
		t.Errorf("best iteration should be playwright-mcp's, the one peer with every step:\n%s", out)
	}
}

func TestStepFloorsWithoutFloors(t *testing.T) {
	var b strings.Builder
	stepFloors(&b, map[string]*report{"ours": withSteps(map[string]float64{"click": 16})}, floors{})
	if b.Len() != 0 {
		t.Errorf("printed without floors:\n%s", b.String())
	}
}

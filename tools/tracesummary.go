package tools

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// TraceSummary is what stop_tracing reads out of its trace for an agent
// that will not open the file: the long tasks of the page's main thread,
// its slowest scripts, its layout shifts, and counts.
type TraceSummary struct {
	Events    int `json:"events"`
	Tasks     int `json:"tasks" jsonschema:"Main-thread tasks"`
	LongTasks int `json:"longTasks" jsonschema:"Main-thread tasks over 50 ms"`
	// Longest are the longest of the long tasks, longest first.
	Longest        []LongTask    `json:"longest,omitempty"`
	SlowestScripts []ScriptTime  `json:"slowestScripts,omitempty"`
	LayoutShifts   []LayoutShift `json:"layoutShifts,omitempty"`
	// ShiftScore is the sum of the scores of the shifts without recent
	// input.
	ShiftScore float64        `json:"shiftScore"`
	Counts     map[string]int `json:"counts" jsonschema:"Events by kind: layouts, styleRecalcs, paints, layoutShifts, gcs, screenshots"`
	// Categories are the trace's event categories.
	Categories []string `json:"categories"`
	// Partial says the summary read only the first maxSummaryEvents.
	Partial bool `json:"partial,omitempty"`
}

// LongTask is a main-thread task over 50 ms.
type LongTask struct {
	StartMs    float64 `json:"startMs" jsonschema:"From the start of the trace"`
	DurationMs float64 `json:"durationMs"`
	Ran        string  `json:"ran" jsonschema:"What the task ran: events, timers, functions and scripts"`
}

// ScriptTime is the time spent in one script function.
type ScriptTime struct {
	Script  string  `json:"script" jsonschema:"Function and URL:line, or the URL of a script evaluated"`
	TotalMs float64 `json:"totalMs"`
	Calls   int     `json:"calls"`
}

// LayoutShift is one layout shift.
type LayoutShift struct {
	AtMs  float64 `json:"atMs" jsonschema:"From the start of the trace"`
	Score float64 `json:"score"`
	// Nodes counts the shifted nodes; the trace names them only by the
	// browser's node ids (the performance tool names them).
	Nodes int `json:"nodes"`
	// RecentInput marks a shift right after input, which CLS leaves out.
	RecentInput bool `json:"recentInput,omitempty"`
}

// Bounds of the summary's work and size.
const (
	maxSummaryEvents = 2_000_000 // events read from the file
	maxKeptEvents    = 200_000   // events kept to nest functions into tasks
	summaryTop       = 5         // entries of each list
	longTaskUs       = 50_000
	maxRan           = 64 // things a long task ran, kept to name the longest
)

// traceEvent is the part of a trace event the summary reads.
type traceEvent struct {
	Name string          `json:"name"`
	Cat  string          `json:"cat"`
	Ph   string          `json:"ph"`
	Ts   float64         `json:"ts"`
	Dur  float64         `json:"dur"`
	Pid  int             `json:"pid"`
	Tid  int             `json:"tid"`
	Args json.RawMessage `json:"args"`
}

type thread struct{ pid, tid int }

// eventData is the args.data of the events the summary names.
type eventData struct {
	Data struct {
		Type          string  `json:"type"`
		URL           string  `json:"url"`
		FunctionName  string  `json:"functionName"`
		LineNumber    int     `json:"lineNumber"`
		Score         float64 `json:"score"`
		HadInput      bool    `json:"had_recent_input"`
		ImpactedNodes []any   `json:"impacted_nodes"`
		Frames        []struct {
			ProcessID int    `json:"processId"`
			Parent    string `json:"parent"`
		} `json:"frames"`
		ProcessID int `json:"processId"`
	} `json:"data"`
	Name string `json:"name"`
}

// summarizeTrace reads the trace at path with a streaming decoder and
// summarizes it; it reads at most maxSummaryEvents events.
func summarizeTrace(ctx context.Context, path string) (TraceSummary, error) {
	f, err := os.Open(path)
	if err != nil {
		return TraceSummary{}, err
	}
	defer f.Close()
	return summarize(ctx, bufio.NewReaderSize(f, 1<<16))
}

func summarize(ctx context.Context, r io.Reader) (TraceSummary, error) {
	dec := json.NewDecoder(r)
	sum := TraceSummary{Counts: map[string]int{}}
	if err := delim(dec, '{'); err != nil {
		return sum, err
	}
	var (
		mains  = map[thread]bool{} // CrRendererMain threads
		pages  = map[int]bool{}    // the traced page's renderer processes
		cats   = map[string]bool{}
		kept   []traceEvent
		origin float64
	)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return sum, err
		}
		if tok != "traceEvents" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return sum, err
			}
			continue
		}
		if err := delim(dec, '['); err != nil {
			return sum, err
		}
		for dec.More() {
			if sum.Events >= maxSummaryEvents {
				sum.Partial = true
				break
			}
			if sum.Events%10000 == 0 && ctx.Err() != nil {
				return sum, ctx.Err()
			}
			var ev traceEvent
			if err := dec.Decode(&ev); err != nil {
				return sum, err
			}
			sum.Events++
			for c := range strings.SplitSeq(ev.Cat, ",") {
				if c != "" && c != "__metadata" {
					cats[c] = true
				}
			}
			if ev.Ph != "M" && ev.Ts > 0 && (origin == 0 || ev.Ts < origin) {
				origin = ev.Ts
			}
			switch ev.Name {
			case "thread_name":
				var a eventData
				if json.Unmarshal(ev.Args, &a) == nil && a.Name == "CrRendererMain" {
					mains[thread{ev.Pid, ev.Tid}] = true
				}
				continue
			case "TracingStartedInBrowser", "FrameCommittedInBrowser":
				var a eventData
				if json.Unmarshal(ev.Args, &a) == nil {
					for _, fr := range a.Data.Frames {
						if fr.Parent == "" && fr.ProcessID > 0 {
							pages[fr.ProcessID] = true
						}
					}
					if a.Data.ProcessID > 0 {
						pages[a.Data.ProcessID] = true
					}
				}
				continue
			case "Layout":
				sum.Counts["layouts"]++
			case "UpdateLayoutTree":
				sum.Counts["styleRecalcs"]++
			case "Paint":
				sum.Counts["paints"]++
			case "MinorGC", "MajorGC", "V8.GC_SCAVENGER", "V8.GC_MARK_COMPACTOR":
				sum.Counts["gcs"]++
			case "Screenshot":
				sum.Counts["screenshots"]++
			}
			switch ev.Name {
			case "RunTask", "FunctionCall", "EventDispatch", "TimerFire", "EvaluateScript", "FireAnimationFrame", "LayoutShift", "v8.compile", "ParseHTML":
				if ev.Ph == "X" || ev.Ph == "I" || ev.Ph == "i" || ev.Ph == "n" {
					if len(kept) < maxKeptEvents {
						kept = append(kept, ev)
					} else {
						sum.Partial = true
					}
				}
			}
		}
		if sum.Partial {
			break
		}
		if err := delim(dec, ']'); err != nil {
			return sum, err
		}
	}
	sum.Categories = slices.Sorted(func(yield func(string) bool) {
		for c := range cats {
			if !yield(c) {
				return
			}
		}
	})
	// The page's main threads: the renderer main threads of its
	// processes, or every one when the trace does not say which.
	main := func(ev traceEvent) bool {
		if !mains[thread{ev.Pid, ev.Tid}] {
			return false
		}
		return len(pages) == 0 || pages[ev.Pid]
	}
	slices.SortStableFunc(kept, func(a, b traceEvent) int { return cmp.Compare(a.Ts, b.Ts) })
	summarizeThreads(&sum, kept, main, origin)
	return sum, nil
}

// summarizeThreads nests each main thread's events into its tasks: the
// long ones with what they ran, the top-level functions' time, and the
// layout shifts.
func summarizeThreads(sum *TraceSummary, kept []traceEvent, main func(traceEvent) bool, origin float64) {
	ms := func(us float64) float64 { return float64(int64(us/100)) / 10 }
	type open struct {
		end float64
		ev  traceEvent
	}
	scripts := map[string]*ScriptTime{}
	var long []LongTask
	cur := -1                    // the long task open on the thread, in long
	var ran []map[string]float64 // what each long task ran, with the longest time of each
	var curEnd float64
	var curThread thread
	// The events of each thread, in time order: a stack of the open
	// function calls tells the top-level ones.
	byThread := map[thread][]traceEvent{}
	for _, ev := range kept {
		if main(ev) {
			t := thread{ev.Pid, ev.Tid}
			byThread[t] = append(byThread[t], ev)
		}
	}
	for t, evs := range byThread {
		var stack []open
		for _, ev := range evs {
			for len(stack) > 0 && stack[len(stack)-1].end <= ev.Ts {
				stack = stack[:len(stack)-1]
			}
			if cur >= 0 && (curThread != t || ev.Ts >= curEnd) {
				cur = -1
			}
			var a eventData
			switch ev.Name {
			case "RunTask":
				sum.Tasks++
				if ev.Dur > longTaskUs {
					sum.LongTasks++
					long = append(long, LongTask{StartMs: ms(ev.Ts - origin), DurationMs: ms(ev.Dur)})
					ran = append(ran, map[string]float64{})
					cur, curEnd, curThread = len(long)-1, ev.Ts+ev.Dur, t
				}
				continue
			case "LayoutShift":
				_ = json.Unmarshal(ev.Args, &a)
				sum.LayoutShifts = append(sum.LayoutShifts, LayoutShift{AtMs: ms(ev.Ts - origin), Score: float64(int64(a.Data.Score*10000)) / 10000, Nodes: len(a.Data.ImpactedNodes), RecentInput: a.Data.HadInput})
				if !a.Data.HadInput {
					sum.ShiftScore += a.Data.Score
				}
				sum.Counts["layoutShifts"]++
				continue
			}
			_ = json.Unmarshal(ev.Args, &a)
			what := describeEvent(ev.Name, a)
			if cur >= 0 && what != "" {
				if _, known := ran[cur][what]; known || len(ran[cur]) < maxRan {
					ran[cur][what] = max(ran[cur][what], ev.Dur)
				}
			}
			if (ev.Name == "FunctionCall" || ev.Name == "EvaluateScript") && ev.Ph == "X" {
				nested := false
				for _, o := range stack {
					if o.ev.Name == "FunctionCall" || o.ev.Name == "EvaluateScript" {
						nested = true
						break
					}
				}
				if !nested && what != "" {
					st := scripts[what]
					if st == nil {
						st = &ScriptTime{Script: what}
						scripts[what] = st
					}
					st.TotalMs += ev.Dur / 1000
					st.Calls++
				}
			}
			if ev.Ph == "X" {
				stack = append(stack, open{end: ev.Ts + ev.Dur, ev: ev})
			}
		}
		cur = -1
	}
	for i := range long {
		long[i].Ran = topRan(ran[i])
	}
	slices.SortFunc(long, func(a, b LongTask) int { return cmp.Compare(b.DurationMs, a.DurationMs) })
	sum.Longest = long[:min(len(long), summaryTop)]
	for i := range sum.Longest {
		if sum.Longest[i].Ran == "" {
			sum.Longest[i].Ran = "no script: layout, style or the browser's own work"
		}
	}
	all := make([]ScriptTime, 0, len(scripts))
	for _, st := range scripts {
		st.TotalMs = float64(int64(st.TotalMs*10)) / 10
		all = append(all, *st)
	}
	slices.SortFunc(all, func(a, b ScriptTime) int {
		return cmp.Or(cmp.Compare(b.TotalMs, a.TotalMs), cmp.Compare(a.Script, b.Script))
	})
	sum.SlowestScripts = all[:min(len(all), summaryTop)]
	slices.SortStableFunc(sum.LayoutShifts, func(a, b LayoutShift) int { return cmp.Compare(b.Score, a.Score) })
	sum.LayoutShifts = sum.LayoutShifts[:min(len(sum.LayoutShifts), summaryTop)]
	sum.ShiftScore = float64(int64(sum.ShiftScore*10000)) / 10000
}

// topRan names the three longest things a task ran, longest first.
func topRan(ran map[string]float64) string {
	names := make([]string, 0, len(ran))
	for k := range ran {
		names = append(names, k)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Or(cmp.Compare(ran[b], ran[a]), cmp.Compare(a, b)) })
	var parts []string
	for _, k := range names[:min(3, len(names))] {
		parts = append(parts, fmt.Sprintf("%s %g ms", k, float64(int64(ran[k]/100))/10))
	}
	return strings.Join(parts, "; ")
}

// describeEvent names what an event of a task ran, or "".
func describeEvent(name string, a eventData) string {
	d := a.Data
	where := d.URL
	if where != "" && d.LineNumber > 0 {
		where = fmt.Sprintf("%s:%d", where, d.LineNumber)
	}
	switch name {
	case "EventDispatch":
		if d.Type != "" {
			return d.Type + " event"
		}
	case "TimerFire":
		return "timer"
	case "FireAnimationFrame":
		return "requestAnimationFrame"
	case "ParseHTML":
		return "HTML parsing"
	case "FunctionCall":
		fn := cmp.Or(d.FunctionName, "(anonymous)")
		if where != "" {
			return fn + " (" + where + ")"
		}
		return fn
	case "EvaluateScript":
		if where != "" {
			return "script " + where
		}
		return "inline script"
	}
	return ""
}

// paragraph is the summary in a few sentences.
func (s TraceSummary) paragraph() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d events, %d main-thread tasks, %d long (over 50 ms)", s.Events, s.Tasks, s.LongTasks)
	if len(s.Longest) > 0 {
		b.WriteString("; longest:")
		for i, t := range s.Longest[:min(3, len(s.Longest))] {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " %g ms at %g ms (%s)", t.DurationMs, t.StartMs, t.Ran)
		}
	}
	b.WriteString(".")
	if len(s.SlowestScripts) > 0 {
		b.WriteString(" Slowest scripts:")
		for i, sc := range s.SlowestScripts[:min(3, len(s.SlowestScripts))] {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " %s %g ms", sc.Script, sc.TotalMs)
		}
		b.WriteString(".")
	}
	if n := s.Counts["layoutShifts"]; n > 0 {
		fmt.Fprintf(&b, " %d layout shift(s), score %g (the largest %g at %g ms).", n, s.ShiftScore, s.LayoutShifts[0].Score, s.LayoutShifts[0].AtMs)
	} else {
		b.WriteString(" No layout shift.")
	}
	if s.Partial {
		b.WriteString(" (The summary read only part of the trace.)")
	}
	return b.String()
}

func delim(dec *json.Decoder, d json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("the trace ends early")
		}
		return err
	}
	if tok != d {
		return fmt.Errorf("not a JSON trace object: %v where %v belongs", tok, d)
	}
	return nil
}

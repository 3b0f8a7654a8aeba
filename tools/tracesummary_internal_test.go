package tools

import (
	"context"
	"strings"
	"testing"
)

// TestSummarizeTrace reads a small trace of two renderers, of which the
// traced page's is one: only its main thread's tasks count.
func TestSummarizeTrace(t *testing.T) {
	const trace = `{"traceEvents":[
{"name":"thread_name","ph":"M","pid":10,"tid":1,"ts":0,"cat":"__metadata","args":{"name":"CrRendererMain"}},
{"name":"thread_name","ph":"M","pid":20,"tid":1,"ts":0,"cat":"__metadata","args":{"name":"CrRendererMain"}},
{"name":"TracingStartedInBrowser","ph":"I","pid":1,"tid":1,"ts":1000,"cat":"disabled-by-default-devtools.timeline","args":{"data":{"frames":[{"processId":10,"url":"http://a/"}]}}},
{"name":"RunTask","ph":"X","pid":10,"tid":1,"ts":2000,"dur":80000,"cat":"disabled-by-default-devtools.timeline"},
{"name":"EventDispatch","ph":"X","pid":10,"tid":1,"ts":2100,"dur":79000,"cat":"devtools.timeline","args":{"data":{"type":"click"}}},
{"name":"FunctionCall","ph":"X","pid":10,"tid":1,"ts":2200,"dur":78000,"cat":"devtools.timeline","args":{"data":{"functionName":"slow","url":"http://a/app.js","lineNumber":7}}},
{"name":"FunctionCall","ph":"X","pid":10,"tid":1,"ts":2300,"dur":1000,"cat":"devtools.timeline","args":{"data":{"functionName":"inner","url":"http://a/app.js","lineNumber":9}}},
{"name":"RunTask","ph":"X","pid":10,"tid":1,"ts":90000,"dur":1000,"cat":"disabled-by-default-devtools.timeline"},
{"name":"LayoutShift","ph":"I","pid":10,"tid":1,"ts":95000,"cat":"loading","args":{"data":{"score":0.12,"had_recent_input":false,"impacted_nodes":[{"node_id":3},{"node_id":4}]}}},
{"name":"Layout","ph":"X","pid":10,"tid":1,"ts":95500,"dur":10,"cat":"devtools.timeline"},
{"name":"RunTask","ph":"X","pid":20,"tid":1,"ts":3000,"dur":900000,"cat":"disabled-by-default-devtools.timeline"}
],"metadata":{"x":1}}`
	s, err := summarize(context.Background(), strings.NewReader(trace))
	if err != nil {
		t.Fatal(err)
	}
	if s.Events != 11 || s.Tasks != 2 || s.LongTasks != 1 {
		t.Fatalf("events %d, tasks %d, long %d; want 11, 2 (the other renderer's left out), 1", s.Events, s.Tasks, s.LongTasks)
	}
	lt := s.Longest[0]
	if lt.DurationMs != 80 || lt.StartMs != 1 || !strings.HasPrefix(lt.Ran, "click event 79 ms; slow (http://a/app.js:7) 78 ms") {
		t.Errorf("longest task = %+v", lt)
	}
	if len(s.SlowestScripts) != 1 || s.SlowestScripts[0].Script != "slow (http://a/app.js:7)" || s.SlowestScripts[0].TotalMs != 78 {
		t.Errorf("slowest scripts = %+v; want slow alone (inner is nested in it)", s.SlowestScripts)
	}
	if len(s.LayoutShifts) != 1 || s.LayoutShifts[0].Score != 0.12 || s.LayoutShifts[0].Nodes != 2 || s.ShiftScore != 0.12 {
		t.Errorf("layout shifts = %+v, score %g", s.LayoutShifts, s.ShiftScore)
	}
	if s.Counts["layouts"] != 1 || s.Counts["layoutShifts"] != 1 {
		t.Errorf("counts = %v", s.Counts)
	}
	if p := s.paragraph(); !strings.Contains(p, "1 long") || !strings.Contains(p, "slow (http://a/app.js:7)") || !strings.Contains(p, "1 layout shift(s), score 0.12") {
		t.Errorf("paragraph = %s", p)
	}
	if _, err := summarize(context.Background(), strings.NewReader(`{"traceEvents":[{"name":`)); err == nil {
		t.Error("a cut trace was summarized without an error")
	}
}

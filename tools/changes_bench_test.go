package tools_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/tools"
)

// benchControls puts three controls at the top of a large page: a button
// that changes nothing, one that changes one line of the outline, and a
// text field.
const benchControls = `(() => {
  const d = document.createElement('div');
  d.innerHTML = '<button id="bench-noop">Bench nothing</button> <button id="bench-toggle">Bench toggle</button> ' +
    '<p id="bench-out">off</p> <input id="bench-input" aria-label="Bench input">';
  document.body.prepend(d);
  document.getElementById('bench-toggle').onclick = () => {
    const o = document.getElementById('bench-out');
    o.textContent = o.textContent === 'off' ? 'on' : 'off';
  };
  return true;
})()`

// BenchmarkActionChanges measures what the changes in an action's result
// cost on the two large peerbench pages: click and type with
// --action-result changes against none, and a click that changes one line
// against one that changes nothing. Each reports its median in ms:
//
//	go test -run '^$' -bench ActionChanges -benchtime 30x ./tools/
func BenchmarkActionChanges(b *testing.B) {
	for _, page := range []string{"large", "large-gen"} {
		for _, mode := range []string{tools.ActionResultChanges, tools.ActionResultNone} {
			e := newEnvWith(b, sessions.Config{}, tools.Options{Version: "bench", ActionResult: mode})
			id := e.open("/peerbench/" + page + ".html")
			e.ok("evaluate", map[string]any{"sessionId": id, "script": benchControls})
			e.snapshot(id)
			for _, a := range []struct {
				name, tool string
				args       map[string]any
			}{
				{"click-nothing", "click", map[string]any{"selector": "#bench-noop"}},
				{"click-one-line", "click", map[string]any{"selector": "#bench-toggle"}},
				{"type", "type", map[string]any{"selector": "#bench-input", "text": "abc", "clear": true}},
			} {
				a.args["sessionId"] = id
				b.Run(fmt.Sprintf("%s/%s/%s", page, a.name, mode), func(b *testing.B) {
					var ds []time.Duration
					for b.Loop() {
						start := time.Now()
						e.ok(a.tool, a.args)
						ds = append(ds, time.Since(start))
					}
					slices.Sort(ds)
					b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "median-ms")
				})
			}
		}
	}
}

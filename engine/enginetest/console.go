package enginetest

import (
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
)

func (h *harness) testConsole(t *testing.T) {
	s := h.open(t, "/catalog.html")
	evaluate(t, s, engine.EvalRequest{Expression: `console.log("hello", 2);
		console.debug("details"); console.info("note"); console.warn("careful"); console.error("bad thing");
		await new Promise(r => { setTimeout(() => { throw new TypeError("boom") }, 0); setTimeout(r, 100) });`})
	// The browser may log a failed /favicon.ico load at a time of its own
	// choosing; it is not part of what the page wrote.
	get := func(q engine.ConsoleQuery) []engine.ConsoleMessage {
		t.Helper()
		log, err := s.ConsoleMessages(ctx(t), q)
		if err != nil {
			t.Fatal(err)
		}
		var out []engine.ConsoleMessage
		for _, m := range log.Messages {
			if !strings.Contains(m.Text, "favicon") && !strings.HasSuffix(m.URL, "/favicon.ico") {
				out = append(out, m)
			}
		}
		return out
	}
	var got []string
	for _, m := range get(engine.ConsoleQuery{}) {
		got = append(got, m.Level+"/"+m.Type+": "+m.Text)
		if m.Time <= 0 {
			t.Errorf("message without time: %+v", m)
		}
	}
	want := []string{
		"log/log: hello 2",
		"debug/debug: details",
		"info/info: note",
		"warning/warning: careful",
		"error/error: bad thing",
		"error/exception: Uncaught TypeError: boom",
	}
	if len(got) != len(want) {
		t.Fatalf("console messages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("message %d = %q, want %q", i, got[i], want[i])
		}
	}
	if errs := get(engine.ConsoleQuery{Level: "error"}); len(errs) != 2 {
		t.Errorf("level error: %+v", errs)
	}
	if warn := get(engine.ConsoleQuery{Level: "warning"}); len(warn) != 3 {
		t.Errorf("level warning: %+v", warn)
	}
	evaluate(t, s, engine.EvalRequest{Expression: `console.log("one"); console.log("two")`})
	if last := get(engine.ConsoleQuery{Limit: 2}); len(last) != 2 || last[0].Text != "one" || last[1].Text != "two" {
		t.Errorf("limit 2: %+v", last)
	}
	_, err := s.ConsoleMessages(ctx(t), engine.ConsoleQuery{Level: "fatal"})
	wantError(t, err, engine.InvalidParameters, map[string]any{"field": "level"})
}

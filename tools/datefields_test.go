package tools_test

import (
	"strings"
	"testing"
)

// TestDateFieldsHaveRefs: a date, time or colour field, which Chromium
// gives no ARIA role, is a textbox line with a ref on every engine (it
// had no line at all, so an agent could neither see nor fill it), and
// fill by that ref sets the value the page then holds.
func TestDateFieldsHaveRefs(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		id := e.open("/datefields.html")
		outline := e.snapshot(id)
		for _, f := range []struct{ id, name, value string }{
			{"birthday", "Birthday", "2024-05-06"},
			{"alarm", "Alarm", "07:30"},
			{"meeting", "Meeting", "2024-05-06T07:30"},
			{"month", "Month", "2024-05"},
			{"week", "Week", "2024-W19"},
			{"colour", "Colour", "#ff0000"},
		} {
			r := ref(t, outline, "textbox", f.name)
			_, lines := e.act("fill", map[string]any{"sessionId": id, "ref": r, "value": f.value})
			if !strings.Contains(lines, `- textbox "`+f.name+`" [ref=`+r+`]: "`+f.value+`"`) {
				t.Errorf("fill %s: changes\n%s", f.name, lines)
			}
			got := e.ok("evaluate", map[string]any{"sessionId": id, "script": "document.getElementById('" + f.id + "').value"})["result"]
			if got != f.value {
				t.Errorf("%s holds %v after fill %q", f.id, got, f.value)
			}
		}
	})
}

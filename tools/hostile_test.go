package tools_test

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/tools"
)

// TestSnapshotCapsLongStrings checks the cap through MCP: the snapshot
// shows 150 characters of a 10,000-character label and paragraph and says
// how many more there are, get_text and get_attribute return them whole,
// and Options.SnapshotMaxText changes the cap or lifts it.
func TestSnapshotCapsLongStrings(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/longname.html")
	outline := e.snap(id, nil)
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`- button "Label00000 [^"]{139}…" \[\+9850 chars\] \[ref=e\d+\]: Go\n`),
		regexp.MustCompile(`- paragraph: "Text0000\. [^"]{140}…" \[\+9850 chars\]\n`),
	} {
		if !want.MatchString(outline) {
			t.Errorf("the outline lacks %s:\n%s", want, outline)
		}
	}
	text := e.ok("get_text", map[string]any{"sessionId": id, "selector": "#para"})["text"].(string)
	if n := utf8.RuneCountInString(text); n != 10000 || !strings.HasSuffix(text, "X") {
		t.Errorf("get_text returned %d characters", n)
	}
	label := e.ok("get_attribute", map[string]any{"sessionId": id, "selector": "#long", "name": "aria-label"})["value"].(string)
	if n := utf8.RuneCountInString(label); n != 10000 {
		t.Errorf("get_attribute returned %d characters", n)
	}
	e.fail(engine.ElementNotFound, "get_text", map[string]any{"sessionId": id, "selector": "#nothing", "timeout": 50})

	// A cap of 20, and none.
	e20 := newEnvWith(t, sessions.Config{}, tools.Options{Version: "test", SnapshotMaxText: 20})
	if o := e20.snap(e20.open("/longname.html"), nil); !strings.Contains(o, `- paragraph: "Text0000. Text0001. …" [+9980 chars]`) {
		t.Errorf("SnapshotMaxText 20:\n%s", o)
	}
	all := newEnvWith(t, sessions.Config{}, tools.Options{Version: "test", SnapshotMaxText: -1})
	if o := all.snap(all.open("/longname.html"), nil); !strings.Contains(o, `"`+label+`"`) || !strings.Contains(o, text) || strings.Contains(o, " chars]") {
		t.Errorf("SnapshotMaxText -1 cuts:\n%.2000s", o)
	}
}

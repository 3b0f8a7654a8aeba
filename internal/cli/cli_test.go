package cli

import (
	"reflect"
	"strings"
	"testing"
)

func TestIsCommandLine(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"--headless"}, false},
		{[]string{"--browser", "firefox", "--port", "8080"}, false},
		{[]string{"--idle-timeout", "60000"}, false}, // the server's flag
		{[]string{"--api-key", "abcdefgh"}, false},
		{[]string{"open", "https://example.com"}, true},
		{[]string{"--browser", "firefox", "open", "https://example.com"}, true},
		{[]string{"--session", "a"}, true},
		{[]string{"--json"}, true},
		{[]string{"frobnicate"}, true}, // answered: unknown command
	} {
		if got := IsCommandLine(c.args); got != c.want {
			t.Errorf("IsCommandLine(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}

func TestParseMapsArgumentsOntoTools(t *testing.T) {
	for _, c := range []struct {
		line string
		tool string
		args map[string]any
	}{
		{"click @e12", "click", map[string]any{"ref": "e12"}},
		{"click e12 --timeout 200", "click", map[string]any{"ref": "e12", "timeout": int64(200)}},
		{"click work:e3", "click", map[string]any{"ref": "work:e3"}},
		{"click #go", "click", map[string]any{"selector": "#go"}},
		{"fill @e3 --force", "", nil},
		{"fill @e3 -- --not-an-option", "fill", map[string]any{"ref": "e3", "value": "--not-an-option"}},
		{"snapshot -i", "snapshot", map[string]any{"interactiveOnly": true}},
		{"scroll down 300", "scroll", map[string]any{"y": 300}},
		{"scroll @e4", "scroll", map[string]any{"ref": "e4"}},
		{"select @e7 a b", "select", map[string]any{"ref": "e7", "values": []any{"a", "b"}}},
		{"get attr #a href", "get_attribute", map[string]any{"selector": "#a", "name": "href"}},
		{"get title", "get_page_metadata", map[string]any{}},
		{"wait 1500", "wait_for", map[string]any{"time": 1.5}},
		{"wait --text Done", "wait_for", map[string]any{"text": "Done"}},
		{"tab select 2", "tabs", map[string]any{"action": "select", "index": 2}},
		{"dialog accept yes", "handle_dialog", map[string]any{"accept": true, "promptText": "yes"}},
		{"network route */api/* --status 404", "mock_response", map[string]any{"urlPattern": "*/api/*", "status": int64(404)}},
		{"drag @e1 #b", "drag_and_drop", map[string]any{"source": "e1", "target": "#b"}},
		{"get_attribute href --selector a", "get_attribute", map[string]any{"name": "href", "selector": "a"}},
		{"mouse_click 10 20.5", "mouse_click", map[string]any{"x": float64(10), "y": 20.5}},
		{`set_cookies --cookies '[{"name":"a"}]'`, "set_cookies", map[string]any{"cookies": []any{map[string]any{"name": "a"}}}},
		{"eval 1+1", "evaluate", map[string]any{"script": "1+1"}},
	} {
		w, err := splitWords(c.line)
		if err != nil {
			t.Fatal(err)
		}
		cmd, ok := lookup(w[0])
		if !ok {
			t.Fatalf("%q: no command", c.line)
		}
		inv, err := cmd.parse(w[1:])
		if c.args == nil {
			if err == nil {
				t.Errorf("%q: parsed to %v, want an error", c.line, inv.args)
			}
			continue
		}
		if err != nil || inv.tool != c.tool || !reflect.DeepEqual(inv.args, c.args) {
			t.Errorf("%q: %s %#v, %v; want %s %#v", c.line, inv.tool, inv.args, err, c.tool, c.args)
		}
	}
}

func TestSplitWords(t *testing.T) {
	for in, want := range map[string][]string{
		`fill @e3 "bob smith"`:      {"fill", "@e3", "bob smith"},
		`eval 'a "b" c'`:            {"eval", `a "b" c`},
		`type x "say \"hi\""`:       {"type", "x", `say "hi"`},
		`click a\ b`:                {"click", "a b"},
		"  open   https://x.test  ": {"open", "https://x.test"},
	} {
		got, err := splitWords(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("splitWords(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := splitWords(`fill "open`); err == nil || !strings.Contains(err.Error(), "unterminated") {
		t.Errorf("an open quote: %v", err)
	}
}

func TestCompact(t *testing.T) {
	for in, want := range map[string]string{
		`{"success":true,"message":"Clicked ref e8","sessionId":"x","expiresAt":1,"newTabs":[],"dialog":null}`:                                     "Clicked ref e8",
		`{"message":"Clicked","newTabs":[{"index":1}],"sessionId":"x"}`:                                                                            "Clicked\nnewTabs: [{\"index\":1}]",
		`{"status":200,"success":true,"title":"Sign in","url":"http://x.test/"}`:                                                                   "status: 200\ntitle: Sign in\nurl: http://x.test/",
		`{"text":"hello","sessionId":"x","expiresAt":2}`:                                                                                           "hello",
		`{"message":"Clicked #go; the page navigated to http://x.test/w (\"Welcome\")","title":"Welcome","url":"http://x.test/w","sessionId":"x"}`: "Clicked #go; the page navigated to http://x.test/w (\"Welcome\")",
		`{"message":"Clicked","changes":"+ button \"B\"\n- button \"A\"\n"}`:                                                                       "Clicked\nchanges:\n+ button \"B\"\n- button \"A\"",
		`{"cookies":[],"sessionId":"x","expiresAt":2}`:                                                                                             "cookies: []",
		"Page: about:blank\n- button [ref=e1]\n":                                                                                                   "Page: about:blank\n- button [ref=e1]",
	} {
		if got := compact(in); got != want {
			t.Errorf("compact(%s) = %q, want %q", in, got, want)
		}
	}
}

// TestServerFlagNamesAfterACommand checks that an option named as a
// server flag belongs to the command after which it stands when that
// command takes it (emulate --device), and is the server's otherwise.
func TestServerFlagNamesAfterACommand(t *testing.T) {
	env := func(string) string { return "" }
	g, rest, err := parseGlobals([]string{"emulate", "--device", "iPhone 13", "--colorScheme", "dark"}, env)
	if err != nil || len(g.serverArgs) != 0 || !reflect.DeepEqual(rest, []string{"emulate", "--device", "iPhone 13", "--colorScheme", "dark"}) {
		t.Errorf("emulate --device: server args %q, rest %q, %v; want the device to be emulate's", g.serverArgs, rest, err)
	}
	g, rest, err = parseGlobals([]string{"--device", "Pixel 7", "open", "https://example.com"}, env)
	if err != nil || !reflect.DeepEqual(g.serverArgs, []string{"--device=Pixel 7"}) || !reflect.DeepEqual(rest, []string{"open", "https://example.com"}) {
		t.Errorf("--device before open: server args %q, rest %q, %v; want the server's", g.serverArgs, rest, err)
	}
	g, _, err = parseGlobals([]string{"open", "https://example.com", "--device", "Pixel 7"}, env)
	if err != nil || !reflect.DeepEqual(g.serverArgs, []string{"--device=Pixel 7"}) {
		t.Errorf("open ... --device: server args %q, %v; want the server's, as open takes no device", g.serverArgs, err)
	}
}

package tools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
)

// TestWaitFor drives wait_for through the MCP client in each of its modes,
// checking the page's state as the tool reports it.
func TestWaitFor(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/report.html")
	at := func(args map[string]any) map[string]any {
		args["sessionId"] = id
		return args
	}
	for _, bad := range []map[string]any{
		{},
		{"text": "a", "selector": "#b"},
		{"text": "a", "textGone": "b"},
		{"selector": "#b", "time": 1},
		{"time": 31},
		{"time": -1},
		{"text": "a", "timeout": -5},
	} {
		e.fail(engine.InvalidParameters, "wait_for", at(bad))
	}
	// Hidden text is not visible text.
	out := e.fail(engine.Timeout, "wait_for", at(map[string]any{"text": "Loaded later", "timeout": 200}))
	if d, _ := out["details"].(map[string]any); !strings.Contains(out["message"].(string), `"Loaded later"`) || d["waitedFor"] == nil {
		t.Fatalf("TIMEOUT does not say what it waited for: %v", out)
	}
	// #reveal shows the text 300 ms after the click returned.
	e.ok("click", at(map[string]any{"selector": "#reveal"}))
	e.ok("wait_for", at(map[string]any{"text": "Loaded  later"}))
	e.ok("wait_for", at(map[string]any{"selector": "#later"}))
	if got := e.ok("is_visible", at(map[string]any{"selector": "#later"})); got["value"] != true {
		t.Fatalf("wait_for returned before the text was visible: %v", got)
	}
	e.ok("click", at(map[string]any{"selector": "#hide"}))
	e.ok("wait_for", at(map[string]any{"textGone": "Loaded later"}))
	if got := e.ok("is_visible", at(map[string]any{"selector": "#later"})); got["value"] != false {
		t.Fatalf("wait_for textGone returned while the text was visible: %v", got)
	}
	e.fail(engine.Timeout, "wait_for", at(map[string]any{"selector": "#later", "timeout": 200}))
	e.fail(engine.Timeout, "wait_for", at(map[string]any{"textGone": "Actions whose results", "timeout": 200}))
	if got := e.ok("wait_for", at(map[string]any{"time": 0.05})); !strings.Contains(got["message"].(string), "0.05") {
		t.Fatalf("time: %v", got)
	}
}

// TestActionReports checks through the MCP client that an action's result
// names the tabs it opened, the files it downloaded (saved under the
// session's output directory, removed with the session) and the console
// errors since the last result.
func TestActionReports(t *testing.T) {
	out := t.TempDir()
	e := newEnv(t, sessions.Config{OutputDir: out})
	id := e.open("/report.html")
	at := func(args map[string]any) map[string]any {
		args["sessionId"] = id
		return args
	}
	res := e.ok("click", at(map[string]any{"selector": "#attachment"}))
	dls, _ := res["downloads"].([]any)
	if len(dls) != 1 {
		t.Fatalf("downloads = %v", res)
	}
	dl := dls[0].(map[string]any)
	path, _ := dl["path"].(string)
	if dl["suggestedName"] != "report.csv" || dl["bytes"] != float64(2048) || dl["state"] != "completed" ||
		path != filepath.Join(out, id, "downloads", "report.csv") {
		t.Fatalf("download = %v", dl)
	}
	if st, err := os.Stat(path); err != nil || st.Size() != 2048 {
		t.Fatalf("saved file: %v %v", st, err)
	}
	if !strings.Contains(res["message"].(string), "report.csv") {
		t.Fatalf("message does not name the download: %v", res["message"])
	}
	res = e.ok("click", at(map[string]any{"selector": "#popup"}))
	tabs, _ := res["newTabs"].([]any)
	if len(tabs) != 1 || tabs[0].(map[string]any)["index"] != float64(1) {
		t.Fatalf("newTabs = %v", res)
	}
	if list := e.ok("tabs", at(map[string]any{"action": "list"})); len(list["tabs"].([]any)) != 2 || list["current"] != float64(0) {
		t.Fatalf("tabs after the popup: %v", list)
	}
	res = e.ok("click", at(map[string]any{"selector": "#errors"}))
	if n, _ := res["consoleErrors"].(float64); n < 2 {
		t.Fatalf("consoleErrors = %v", res)
	}
	if _, ok := e.ok("click", at(map[string]any{"selector": "#quiet"}))["downloads"]; ok {
		t.Fatal("a quiet click reports downloads")
	}
	e.ok("close_session", map[string]any{"sessionId": id})
	if _, err := os.Stat(filepath.Join(out, id)); !os.IsNotExist(err) {
		t.Fatalf("the session's files outlived it: %v", err)
	}
}

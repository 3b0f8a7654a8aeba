package tools_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/tools"
)

// tracingEnv is a server whose sessions' files and recordings share one
// output directory, as the binary's do.
func tracingEnv(t *testing.T, limits engine.RecordingLimits) *env {
	out := t.TempDir()
	return newEnvWith(t, sessions.Config{OutputDir: out}, tools.Options{Version: "test", Caps: []tools.Group{tools.All}, OutputDir: out, RecordingLimits: limits})
}

// readTrace checks that path is a trace DevTools loads: a JSON object
// whose traceEvents each have a name, a phase and a category; it returns
// the categories.
func readTrace(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tr struct {
		TraceEvents []struct {
			Name string  `json:"name"`
			Ph   string  `json:"ph"`
			Cat  string  `json:"cat"`
			Ts   float64 `json:"ts"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatalf("the trace %s is not valid JSON: %v", path, err)
	}
	if len(tr.TraceEvents) == 0 {
		t.Fatalf("the trace %s has no traceEvents", path)
	}
	seen := map[string]bool{}
	for _, ev := range tr.TraceEvents {
		if ev.Name == "" || ev.Ph == "" {
			t.Fatalf("a trace event without a name or phase: %+v", ev)
		}
		for c := range strings.SplitSeq(ev.Cat, ",") {
			seen[c] = true
		}
	}
	var cats []string
	for c := range seen {
		cats = append(cats, c)
	}
	slices.Sort(cats)
	return cats
}

func TestTracingSummarizesTheClick(t *testing.T) {
	e := tracingEnv(t, engine.RecordingLimits{})
	id := e.open("/vitals.html")
	e.waitTitle(id, "vitals: shifted")
	e.fail(engine.NoRecording, "stop_tracing", map[string]any{"sessionId": id})

	start := e.ok("start_tracing", map[string]any{"sessionId": id})
	path := start["path"].(string)
	if want := filepath.Join(e.out, id, "trace") + string(filepath.Separator); !strings.HasPrefix(path, want) {
		t.Fatalf("trace path %s is not under %s", path, want)
	}
	again := e.fail(engine.RecordingActive, "start_tracing", map[string]any{"sessionId": id})
	if !strings.Contains(again["message"].(string), path) {
		t.Errorf("RECORDING_ACTIVE does not name the running trace %s: %v", path, again)
	}
	e.ok("click", map[string]any{"sessionId": id, "selector": "#slow"})
	e.waitTitle(id, "vitals: clicked")
	stop := e.ok("stop_tracing", map[string]any{"sessionId": id})
	if stop["path"] != path {
		t.Fatalf("stop_tracing path = %v, want %s", stop["path"], path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := int64(stop["bytes"].(float64)); got != fi.Size() || got == 0 {
		t.Errorf("bytes = %d, the file has %d", got, fi.Size())
	}
	cats := readTrace(t, path)
	for _, want := range []string{"devtools.timeline", "disabled-by-default-devtools.timeline", "loading", "v8.execute", "toplevel"} {
		if !slices.Contains(cats, want) {
			t.Errorf("the trace lacks category %s; it has %v", want, cats)
		}
	}
	sum := stop["summary"].(map[string]any)
	t.Logf("summary: %v\nmessage: %s", sum, stop["message"])
	if n := sum["longTasks"].(float64); n < 1 {
		t.Fatalf("no long task in the summary: %v", sum)
	}
	longest := sum["longest"].([]any)[0].(map[string]any)
	if d := longest["durationMs"].(float64); d < 550 {
		t.Errorf("the longest task lasted %g ms, want the click's 600", d)
	}
	if ran := longest["ran"].(string); !strings.Contains(ran, "click") || !strings.Contains(ran, "blockMainThread") {
		t.Errorf("the longest task ran %q, want the click event and blockMainThread", ran)
	}
	if msg := stop["message"].(string); !strings.Contains(msg, "blockMainThread") || !strings.Contains(msg, path) {
		t.Errorf("the message does not name the long task's function and the file: %s", msg)
	}
	e.fail(engine.NoRecording, "stop_tracing", map[string]any{"sessionId": id})
	e.ok("close_session", map[string]any{"sessionId": id})
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the trace of a closed session is still there (keep is false): %v", err)
	}
}

func TestPerformanceVitals(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		id := e.session()
		// A blank page has no metrics: null, each with its reason.
		blank := e.ok("performance", map[string]any{"sessionId": id})
		for _, m := range []string{"lcp", "inp", "fcp"} {
			if v := blank[m].(map[string]any); v["value"] != nil || v["reason"] == nil || v["reason"] == "" {
				t.Errorf("%s of about:blank = %v, want null with a reason", m, v)
			}
		}
		// Loaded by performance itself; the banner arrives 300 ms after load.
		first := e.ok("performance", map[string]any{"sessionId": id, "url": site.URL + "/vitals.html"})
		t.Logf("first: %v", first["message"])
		// performance {url} waits until the page is quiet: the banner's
		// shift, 300 ms after load, is in its first answer.
		if n, _ := first["cls"].(map[string]any)["value"].(float64); !strings.HasSuffix(t.Name(), "/pw") && n <= 0 {
			t.Errorf("cls of performance {url} = %v, want the banner's shift, which comes 300 ms after load", first["cls"])
		}
		e.waitTitle(id, "vitals: shifted")
		e.ok("click", map[string]any{"sessionId": id, "selector": "#slow"})
		e.waitTitle(id, "vitals: clicked")
		out := e.ok("performance", map[string]any{"sessionId": id})
		t.Logf("after the click: %v", out["message"])
		firefox := strings.HasSuffix(t.Name(), "/pw")

		// TTFB on 127.0.0.1 can round to 0 ms under Firefox's coarse
		// timers; FCP cannot: the page paints after its first byte.
		if v := out["ttfb"].(map[string]any); v["value"] == nil || v["value"].(float64) < 0 || v["verdict"] == nil {
			t.Errorf("ttfb = %v, want a value of 0 or more with a verdict", v)
		}
		if v := out["fcp"].(map[string]any); v["value"] == nil || v["value"].(float64) <= 0 || v["verdict"] == nil {
			t.Errorf("fcp = %v, want a positive value with a verdict", v)
		}
		lcp := out["lcp"].(map[string]any)
		if lcp["value"] == nil || lcp["verdict"] == nil {
			t.Errorf("lcp = %v, want a value and a verdict", lcp)
		} else if el, _ := lcp["element"].(map[string]any); el["id"] != "hero" || el["selector"] != "#hero" || el["tag"] != "h1" {
			t.Errorf("the LCP element is %v, want h1#hero", lcp["element"])
		}

		cls := out["cls"].(map[string]any)
		if firefox {
			if cls["value"] != nil || !strings.Contains(cls["reason"].(string), "firefox") {
				t.Errorf("cls on Firefox = %v, want null with a reason naming firefox", cls)
			}
		} else {
			if n, _ := cls["value"].(float64); n <= 0 || cls["verdict"] == nil {
				t.Errorf("cls = %v, want the banner's shift", cls)
			}
			var names []string
			for _, n := range cls["nodes"].([]any) {
				names = append(names, n.(map[string]any)["selector"].(string))
			}
			if !slices.Contains(names, "#shifted") {
				t.Errorf("the largest shift moved %v, want #shifted among them", names)
			}
		}

		inp := out["inp"].(map[string]any)
		if inp["value"] == nil {
			t.Fatalf("inp = %v, want the click's 600 ms", inp)
		}
		if inp["verdict"] != "poor" {
			t.Errorf("inp verdict = %v, want poor after a 600 ms handler: %v", inp["verdict"], inp)
		}
		if el, _ := inp["element"].(map[string]any); el["id"] != "slow" {
			t.Errorf("the INP target is %v, want button#slow", inp["element"])
		}
		if c, _ := inp["cause"].(string); !strings.Contains(c, "#slow") || !strings.Contains(c, "processing") {
			t.Errorf("the INP cause %q does not name #slow and its processing", c)
		}
		if msg := out["message"].(string); !strings.Contains(msg, "INP") || !strings.Contains(msg, "poor") || !strings.Contains(msg, "#hero") {
			t.Errorf("the message lacks the verdicts or the LCP element: %s", msg)
		}
		// A URL navigate refuses, performance refuses.
		e.fail(engine.InvalidURL, "performance", map[string]any{"sessionId": id, "url": "javascript:alert(1)"})
	})
}

// TestTracingKeepAndClose: a kept trace outlives its session, and a
// trace the session's close stopped is finished, valid, not half-written.
func TestTracingKeepAndClose(t *testing.T) {
	e := tracingEnv(t, engine.RecordingLimits{})
	id := e.open("/vitals.html")
	start := e.ok("start_tracing", map[string]any{"sessionId": id, "keep": true, "screenshots": true})
	path := start["path"].(string)
	if want := filepath.Join(e.out, "kept", id, "trace") + string(filepath.Separator); !strings.HasPrefix(path, want) {
		t.Fatalf("kept trace path %s is not under %s", path, want)
	}
	if cats := start["categories"].([]any); !slices.Contains(cats, any("disabled-by-default-devtools.screenshot")) {
		t.Errorf("screenshots: true does not record the screenshot category: %v", cats)
	}
	e.ok("click", map[string]any{"sessionId": id, "selector": "#slow"})
	e.ok("close_session", map[string]any{"sessionId": id})
	cats := readTrace(t, path)
	if !slices.Contains(cats, "devtools.timeline") {
		t.Errorf("the trace the close finished lacks devtools.timeline: %v", cats)
	}
	if _, err := os.Stat(path + ".part"); !os.IsNotExist(err) {
		t.Errorf("a part file is left beside the trace: %v", err)
	}
	if _, err := os.Stat(filepath.Join(e.out, id)); !os.IsNotExist(err) {
		t.Errorf("the closed session's directory is still there: %v", err)
	}
}

// TestTracingStopsAtItsBound: a trace that reaches --recording-max-duration
// stops by itself, its file written, and the session's next result says so.
func TestTracingStopsAtItsBound(t *testing.T) {
	e := tracingEnv(t, engine.RecordingLimits{MaxDuration: time.Second})
	id := e.open("/vitals.html")
	path := e.ok("start_tracing", map[string]any{"sessionId": id})["path"].(string)
	var notices []any
	testenv.Eventually(t, "a notice that the trace stopped", func() (bool, error) {
		out := e.ok("get_page_metadata", map[string]any{"sessionId": id})
		notices, _ = out["notices"].([]any)
		return len(notices) > 0, fmt.Errorf("no notices in %v", out)
	})
	if n := notices[0].(string); !strings.Contains(n, "time bound") || !strings.Contains(n, path) {
		t.Errorf("the notice %q does not say the trace stopped at its time bound into %s", n, path)
	}
	readTrace(t, path)
	// The stop after it answers the finished trace, its summary and why
	// it stopped, then there is nothing left to stop.
	stop := e.ok("stop_tracing", map[string]any{"sessionId": id})
	if stop["path"] != path || stop["stoppedBy"] != engine.StoppedByMaxDuration || !strings.Contains(stop["message"].(string), "time bound") {
		t.Errorf("stop_tracing after the bound: %v, want %s stopped by %s", stop, path, engine.StoppedByMaxDuration)
	}
	if sum, _ := stop["summary"].(map[string]any); sum == nil || sum["events"].(float64) == 0 {
		t.Errorf("stop_tracing after the bound has no summary: %v", stop)
	}
	e.fail(engine.NoRecording, "stop_tracing", map[string]any{"sessionId": id})
	// Another one can start once it stopped.
	e.ok("start_tracing", map[string]any{"sessionId": id})
}

// TestTracingUnsupportedOnFirefox: Firefox records no Chrome trace.
func TestTracingUnsupportedOnFirefox(t *testing.T) {
	out := t.TempDir()
	e := newEnvOnWith(t, firefoxEngine(t), sessions.Config{OutputDir: out}, tools.Options{Version: "test", Caps: []tools.Group{tools.All}, OutputDir: out})
	id := e.open("/vitals.html")
	body := e.fail(engine.Unsupported, "start_tracing", map[string]any{"sessionId": id})
	if !strings.Contains(body["message"].(string), "firefox") {
		t.Errorf("UNSUPPORTED does not name the browser: %v", body)
	}
	// The refused start left nothing running, and no file; the stop is
	// as unsupported as the start.
	if body := e.fail(engine.Unsupported, "stop_tracing", map[string]any{"sessionId": id}); !strings.Contains(body["message"].(string), "firefox") {
		t.Errorf("stop_tracing's UNSUPPORTED does not name the browser: %v", body)
	}
	if entries, _ := os.ReadDir(filepath.Join(out, id, "trace")); len(entries) > 0 {
		t.Errorf("a refused trace left files: %v", entries)
	}
}

// TestTracingOnePerBrowser: Chrome records one trace at a time; another
// session of the same browser is told so, and can trace once it stopped.
func TestTracingOnePerBrowser(t *testing.T) {
	e := tracingEnv(t, engine.RecordingLimits{})
	a, b := e.open("/vitals.html"), e.open("/vitals.html")
	e.ok("start_tracing", map[string]any{"sessionId": a})
	busy := e.fail(engine.RecordingActive, "start_tracing", map[string]any{"sessionId": b})
	if d, _ := busy["details"].(map[string]any); d["scope"] != "browser" || !strings.Contains(busy["message"].(string), "another session") {
		t.Errorf("the second session's start does not say another session traces: %v", busy)
	}
	e.fail(engine.NoRecording, "stop_tracing", map[string]any{"sessionId": b})
	e.ok("stop_tracing", map[string]any{"sessionId": a})
	e.ok("start_tracing", map[string]any{"sessionId": b})
	readTrace(t, e.ok("stop_tracing", map[string]any{"sessionId": b})["path"].(string))
}

// TestTracingStopsAtItsSize: a trace stays within --recording-max-size,
// and says that it was cut there, or stopped there by itself.
func TestTracingStopsAtItsSize(t *testing.T) {
	const max = 64 << 10
	e := tracingEnv(t, engine.RecordingLimits{MaxBytes: max})
	id := e.open("/ticking.html")
	e.ok("start_tracing", map[string]any{"sessionId": id, "screenshots": true})
	// Screenshots of a page that paints every 5 ms pass 64 KiB within a
	// few frames; the bound is what stops it, however long that takes.
	var path string
	testenv.Eventually(t, "the trace to reach its size bound", func() (bool, error) {
		out, isErr := e.call("stop_tracing", map[string]any{"sessionId": id})
		switch {
		case !isErr && out["stoppedBy"] == engine.StoppedByMaxBytes:
			path = out["path"].(string)
			if !strings.Contains(out["message"].(string), "size bound") {
				t.Errorf("the message does not say the trace was cut at its size bound: %s", out["message"])
			}
			return true, nil
		case !isErr:
			// Not big enough yet: record a longer one.
			e.ok("start_tracing", map[string]any{"sessionId": id, "screenshots": true})
			return false, fmt.Errorf("stop_tracing answered %v bytes, under the bound", out["bytes"])
		case out["errorCode"] == string(engine.NoRecording):
			// It stopped by itself, when the browser's buffer filled.
			notices, _ := e.ok("get_page_metadata", map[string]any{"sessionId": id})["notices"].([]any)
			if len(notices) == 0 || !strings.Contains(notices[0].(string), "size bound") {
				t.Fatalf("a trace that stopped by itself, without a notice of its size bound: %v", notices)
			}
			path = strings.Fields(strings.SplitAfter(notices[0].(string), "): ")[1])[0]
			path = strings.TrimSuffix(path, ",")
			return true, nil
		}
		t.Fatalf("stop_tracing failed: %v", out)
		return false, nil
	})
	readTrace(t, path)
	if fi, err := os.Stat(path); err != nil || fi.Size() > max {
		t.Fatalf("the trace %s is over its bound of %d bytes: %v, %v", path, max, fi.Size(), err)
	}
}

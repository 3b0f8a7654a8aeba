package enginetest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// testInspect checks the Inspector: a logged request by its id, and a HAR
// recording's start, stop and end with its session.
func (h *harness) testInspect(t *testing.T) {
	t.Run("Request", func(t *testing.T) {
		s := h.open(t, "/har.html")
		if got := evaluate(t, s, engine.EvalRequest{Expression: `fetch("/echo", {method: "POST", body: "hello"}).then(r => r.json()).then(j => j.body)`}); got != `"hello"` {
			t.Fatalf("POST /echo = %s", got)
		}
		log, err := s.RequestLog(ctx(t), engine.RequestLogQuery{Filter: "/echo"})
		if err != nil || len(log.Requests) != 1 || !strings.HasPrefix(log.Requests[0].ID, "r") {
			t.Fatalf("request log = %+v, %v", log, err)
		}
		all, err := s.RequestLog(ctx(t), engine.RequestLogQuery{})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range all.Requests {
			if slices.Contains(ids, r.ID) {
				t.Fatalf("id %s given twice: %+v", r.ID, all.Requests)
			}
			ids = append(ids, r.ID)
		}
		d, err := s.Request(ctx(t), engine.RequestQuery{ID: log.Requests[0].ID})
		if err != nil {
			t.Fatal(err)
		}
		if d.ID != log.Requests[0].ID || d.Method != "POST" || d.Status != 200 || len(d.RequestHeaders) == 0 || len(d.ResponseHeaders) == 0 {
			t.Fatalf("Request = %+v", d)
		}
		if h.chromium() {
			if string(d.Request.Data) != "hello" || !strings.Contains(string(d.Response.Data), `"body":"hello"`) || d.Timing == nil {
				t.Fatalf("Chromium's bodies and timing: request %q, response %q, timing %v", d.Request.Data, d.Response.Data, d.Timing)
			}
		} else if d.Response.Data == nil && !strings.Contains(d.Unavailable["responseBody"], "firefox") {
			t.Fatalf("no response body, and no word why naming the browser: %+v", d)
		}
		_, err = s.Request(ctx(t), engine.RequestQuery{ID: "r0"})
		wantError(t, err, engine.InvalidParameters, map[string]any{"field": "id"})
	})
	t.Run("HAR", func(t *testing.T) {
		s := h.open(t, "/har.html")
		_, err := s.StopHAR(ctx(t))
		wantError(t, err, engine.NoRecording, nil)
		path := filepath.Join(t.TempDir(), "a.har")
		if err := s.StartHAR(ctx(t), engine.HARRequest{RecordingRequest: engine.RecordingRequest{Path: path}, Version: "conformance"}); err != nil {
			t.Fatal(err)
		}
		err = s.StartHAR(ctx(t), engine.HARRequest{RecordingRequest: engine.RecordingRequest{Path: path + "2"}})
		wantError(t, err, engine.RecordingActive, nil)
		if got := evaluate(t, s, engine.EvalRequest{Expression: `fetch("/api/data?har").then(r => r.json()).then(j => j.source)`}); got != `"server"` {
			t.Fatalf("fetch = %s", got)
		}
		res, err := s.StopHAR(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		log := readHAR(t, path)
		if res.Path != path || res.Entries != len(log.Log.Entries) || res.Pages != len(log.Log.Pages) || res.Pages == 0 {
			t.Fatalf("StopHAR = %+v; the file has %d entries, %d pages", res, len(log.Log.Entries), len(log.Log.Pages))
		}
		if st, err := os.Stat(path); err != nil || st.Size() != res.Bytes {
			t.Fatalf("StopHAR says %d bytes; the file: %v", res.Bytes, err)
		}
		if !slices.ContainsFunc(log.Log.Entries, func(e harEntry) bool { return strings.HasSuffix(e.Request.URL, "/api/data?har") }) {
			t.Fatalf("no entry for the fetch: %+v", log.Log.Entries)
		}
		if _, err := os.Stat(path + ".part"); !os.IsNotExist(err) {
			t.Fatalf("a part file is left: %v", err)
		}
		_, err = s.StopHAR(ctx(t))
		wantError(t, err, engine.NoRecording, nil)
	})
	t.Run("HARClose", func(t *testing.T) {
		s := h.open(t, "/har.html")
		path := filepath.Join(t.TempDir(), "closed.har")
		stopped := make(chan engine.Recorded, 1)
		req := engine.HARRequest{RecordingRequest: engine.RecordingRequest{Path: path, Stopped: func(r engine.Recorded) { stopped <- r }}}
		if err := s.StartHAR(ctx(t), req); err != nil {
			t.Fatal(err)
		}
		evaluate(t, s, engine.EvalRequest{Expression: `fetch("/api/data?closing").then(r => r.status)`})
		s.Close(context.Background())
		select {
		case r := <-stopped:
			if r.StoppedBy != engine.StoppedBySessionEnd || r.Path != path || r.Kind != engine.RecordHAR {
				t.Fatalf("Stopped(%+v)", r)
			}
		case <-time.After(callTimeout):
			t.Fatal("Close did not stop the HAR")
		}
		if log := readHAR(t, path); !strings.Contains(log.Log.Comment, engine.StoppedBySessionEnd) {
			t.Fatalf("the finished HAR's comment = %q", log.Log.Comment)
		}
	})
}

type harLog struct {
	Log struct {
		Version string     `json:"version"`
		Comment string     `json:"comment"`
		Pages   []any      `json:"pages"`
		Entries []harEntry `json:"entries"`
	} `json:"log"`
}

type harEntry struct {
	Request struct {
		URL string `json:"url"`
	} `json:"request"`
}

// readHAR reads a HAR file, which must be whole JSON of version 1.2.
func readHAR(t *testing.T, path string) harLog {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var log harLog
	if err := json.Unmarshal(b, &log); err != nil || log.Log.Version != "1.2" {
		t.Fatalf("%s is not a HAR 1.2 (%v): %.200s", path, err, b)
	}
	return log
}

package har_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/har"
)

func entry(i int) har.Entry {
	return har.NewEntry(engine.RequestDetail{RequestEntry: engine.RequestEntry{ID: "r1", Method: "GET", URL: "http://127.0.0.1/x?a=1&b=two%20words",
		State: "finished", Status: 200, StartedAt: time.Now().UnixMilli() + int64(i), DurationMs: 3}})
}

func read(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s is not JSON: %v", path, err)
	}
	return v
}

// TestRecorderSizeBound: the entry that would pass MaxBytes is left out,
// the recording stops by itself, and the file, under the bound, is whole.
func TestRecorderSizeBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.har")
	stopped := make(chan engine.Recorded, 1)
	r := har.Start(engine.HARRequest{RecordingRequest: engine.RecordingRequest{Path: path, Limits: engine.RecordingLimits{MaxBytes: 3000},
		Stopped: func(rec engine.Recorded) { stopped <- rec }}})
	r.AddPage("http://127.0.0.1/", time.Now())
	for i := 0; i < 100 && r.Hold(); i++ {
		r.Add(entry(i))
		r.Release()
	}
	var rec engine.Recorded
	select {
	case rec = <-stopped:
	case <-time.After(time.Minute):
		t.Fatal("the recording did not stop at its size bound")
	}
	if rec.StoppedBy != engine.StoppedByMaxBytes || rec.Path != path || rec.Bytes > 3000 {
		t.Fatalf("Stopped(%+v)", rec)
	}
	if st, err := os.Stat(path); err != nil || st.Size() != rec.Bytes {
		t.Fatalf("the file: %v, %v", st, err)
	}
	log := read(t, path)["log"].(map[string]any)
	if n := len(log["entries"].([]any)); n == 0 || log["comment"] != "stopped by itself: max_bytes" {
		t.Fatalf("%d entries, comment %v", n, log["comment"])
	}
	q := log["entries"].([]any)[0].(map[string]any)["request"].(map[string]any)["queryString"].([]any)
	if len(q) != 2 || q[1].(map[string]any)["value"] != "two words" {
		t.Fatalf("queryString = %v", q)
	}
	if _, err := r.Stop(context.Background(), ""); engine.CodeOf(err) != engine.NoRecording {
		t.Fatalf("a stop after the bound = %v, want NO_RECORDING", err)
	}
}

// TestRecorderDuration: the time bound stops it, and Done closes.
func TestRecorderDuration(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.har")
	stopped := make(chan engine.Recorded, 1)
	r := har.Start(engine.HARRequest{RecordingRequest: engine.RecordingRequest{Path: path, Limits: engine.RecordingLimits{MaxDuration: time.Millisecond},
		Stopped: func(rec engine.Recorded) { stopped <- rec }}})
	select {
	case rec := <-stopped:
		if rec.StoppedBy != engine.StoppedByMaxDuration || rec.Path != path {
			t.Fatalf("Stopped(%+v)", rec)
		}
	case <-time.After(time.Minute):
		t.Fatal("the recording did not stop at its time bound")
	}
	<-r.Done()
	if r.Hold() {
		t.Fatal("a stopped recording takes a ticket")
	}
}

// TestRecorderAbort: a recording whose browser went away leaves no file.
func TestRecorderAbort(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.har")
	stopped := make(chan engine.Recorded, 1)
	r := har.Start(engine.HARRequest{RecordingRequest: engine.RecordingRequest{Path: path, Stopped: func(rec engine.Recorded) { stopped <- rec }}})
	r.Abort(engine.StoppedByCrash)
	if rec := <-stopped; rec.Path != "" || rec.StoppedBy != engine.StoppedByCrash {
		t.Fatalf("Stopped(%+v)", rec)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("a file is left: %v", err)
	}
}

// TestSetBodies: text is cut on a character boundary and marked, binary
// is base64, a missing body says why.
func TestSetBodies(t *testing.T) {
	e := entry(0)
	e.SetBodies(engine.Body{Data: []byte("héllo"), MimeType: "text/plain"}, engine.Body{Data: []byte{0x89, 'P', 'N', 'G', 0, 1}, MimeType: "image/png"}, 2)
	if p := e.Request.PostData; p == nil || p.Text != "h" || !p.Truncated || !strings.Contains(p.Comment, "of 6 bytes") || e.Request.BodySize != 6 {
		t.Fatalf("postData = %+v", p)
	}
	c := e.Response.Content
	if raw, _ := base64.StdEncoding.DecodeString(c.Text); c.Encoding != "base64" || string(raw) != "\x89P" || !c.Truncated || c.Size != 6 {
		t.Fatalf("content = %+v", c)
	}
	e = entry(0)
	e.SetBodies(engine.Body{}, engine.Body{Absent: "the request failed"}, 10)
	if e.Request.PostData != nil || !strings.Contains(e.Response.Content.Comment, "the request failed") {
		t.Fatalf("no bodies: %+v", e)
	}
}

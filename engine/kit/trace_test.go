package kit_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine/kit"
)

func TestWriteTrace(t *testing.T) {
	var events []string
	for i := range 100 {
		events = append(events, `{"name":"RunTask","ph":"X","ts":`+strings.Repeat("1", 1+i%5)+`,"cat":"devtools.timeline"}`)
	}
	src := `{"traceEvents":[` + strings.Join(events, ",") + `],"metadata":{"source":"test"}}`
	decode := func(path string) (n int, meta bool) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var tr struct {
			TraceEvents []map[string]any `json:"traceEvents"`
			Metadata    map[string]any   `json:"metadata"`
		}
		if err := json.Unmarshal(b, &tr); err != nil {
			t.Fatalf("%s is not JSON: %v\n%s", path, err, b)
		}
		return len(tr.TraceEvents), tr.Metadata != nil
	}
	dir := t.TempDir()

	whole := filepath.Join(dir, "whole.json")
	n, cut, err := kit.WriteTrace(whole, strings.NewReader(src), 1<<20)
	if err != nil || cut {
		t.Fatalf("WriteTrace = %d, %v, %v", n, cut, err)
	}
	if got, meta := decode(whole); got != 100 || !meta {
		t.Fatalf("the whole trace has %d events, metadata %v; want 100 and the metadata", got, meta)
	}
	if fi, _ := os.Stat(whole); fi.Size() != n {
		t.Errorf("n = %d, the file has %d bytes", n, fi.Size())
	}

	// Over its bound, the trace is cut between two events, and stays JSON.
	small := filepath.Join(dir, "small.json")
	n, cut, err = kit.WriteTrace(small, strings.NewReader(src), 1000)
	if err != nil || !cut || n > 1000 {
		t.Fatalf("WriteTrace with 1000 bytes = %d, %v, %v; want a cut file within the bound", n, cut, err)
	}
	if got, _ := decode(small); got == 0 || got >= 100 {
		t.Fatalf("the cut trace has %d events", got)
	}

	// A stream that is not a trace leaves no file at all.
	bad := filepath.Join(dir, "bad.json")
	if _, _, err := kit.WriteTrace(bad, strings.NewReader(`{"traceEvents":[{"name":`), 1<<20); err == nil {
		t.Fatal("a truncated stream was written without an error")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Fatalf("files after a failed write: %v, want only the two traces", ents)
	}
}

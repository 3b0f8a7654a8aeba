package httpserve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/tools"
)

// TestTypeScriptClient drives the server with the official TypeScript SDK
// over Streamable HTTP and SSE (testenv.TSClient installs it), with the
// default tools/list, which lists no output schemas, and with them
// (--output-schemas), when the SDK validates every result.
func TestTypeScriptClient(t *testing.T) {
	node, dir := testenv.TSClient(t)
	for _, schemas := range []bool{false, true} {
		t.Run(fmt.Sprintf("output-schemas=%v", schemas), func(t *testing.T) {
			typeScriptClient(t, node, dir, tools.Options{OutputSchemas: schemas})
		})
	}
}

func typeScriptClient(t *testing.T, node, dir string, o tools.Options) {
	s := startServer(t, o)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", s.URL, keyA, site.URL+"/welcome.html?user=ts")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("node client: %v\n%s\n%s", err, out, stderr)
	}
	var got map[string]struct {
		Tools         []string `json:"tools"`
		OutputSchemas int      `json:"outputSchemas"`
		Navigated     string   `json:"navigated"`
		ResourceTitle string   `json:"resourceTitle"`
		PromptHasURL  bool     `json:"promptHasUrl"`
		// AbsentAttribute is get_attribute's result for an attribute the
		// element lacks; the SDK validated it against the output schema.
		AbsentAttribute struct {
			Value  *string `json:"value"`
			Exists *bool   `json:"exists"`
		} `json:"absentAttribute"`
		Evaluated map[string]any `json:"evaluated"`
		// Found are the lines find matched, SavedRefs the refs of the
		// outline snapshot {file: true} saved (-1: no path).
		Found     []string `json:"found"`
		SavedRefs int      `json:"savedRefs"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, tr := range []string{"streamable", "sse"} {
		r := got[tr]
		if want := map[bool]int{false: 0, true: len(r.Tools)}[o.OutputSchemas]; r.OutputSchemas != want {
			t.Errorf("%s: %d tools listed an output schema, want %d", tr, r.OutputSchemas, want)
		}
		if len(r.Tools) == 0 || r.Navigated != site.URL+"/welcome.html?user=ts" || r.ResourceTitle != "Welcome" || !r.PromptHasURL {
			t.Errorf("%s: %+v", tr, r)
		}
		if a := r.AbsentAttribute; a.Value != nil || a.Exists == nil || *a.Exists {
			t.Errorf("%s: get_attribute of an absent attribute = %+v, want value null, exists false", tr, a)
		}
		if fmt.Sprint(r.Evaluated) != "map[list:[true <nil>] n:1]" {
			t.Errorf("%s: evaluate = %v", tr, r.Evaluated)
		}
		if len(r.Found) != 1 || r.Found[0] != "- paragraph: Signed in as ts" || r.SavedRefs != 0 {
			t.Errorf("%s: find matched %q; snapshot {file: true} saved %d refs, want a file with none", tr, r.Found, r.SavedRefs)
		}
	}
	if n := s.Mgr.Len(); n != 2 {
		t.Errorf("%d sessions, want one per transport", n)
	}
}

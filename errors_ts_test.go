package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"sort"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// TestEveryToolErrorReachesTheTypeScriptSDK drives the built binary over
// stdio with the official TypeScript SDK, which validates structuredContent
// against each tool's output schema once it has read tools/list, error
// results included. Every tool, with every capability group on, is called
// once in a way that fails: each call must come back as an isError result
// carrying our errorCode in its text, never as an exception the agent
// cannot read (issue #23: navigate, get_text and snapshot threw -32602).
// It runs with the default tools/list, which lists no output schemas, and
// with --output-schemas, where the SDK validates every result.
func TestEveryToolErrorReachesTheTypeScriptSDK(t *testing.T) {
	testenv.Chromium(t)
	node, dir := testenv.TSClient(t)
	bin, err := binary()
	if err != nil {
		t.Fatal(err)
	}
	site := testsite.Start()
	t.Cleanup(site.Close) // after the parallel subtests
	for _, schemas := range []bool{false, true} {
		t.Run(fmt.Sprintf("output-schemas=%v", schemas), func(t *testing.T) {
			// Each run is its own server and browser, and spends most of
			// its time waiting out the failing calls' timeouts: the two
			// overlap, which halves the test's time on two cores.
			t.Parallel()
			everyToolErrorReachesTheSDK(t, node, dir, bin, site.URL+"/form.html", schemas)
		})
	}
}

func everyToolErrorReachesTheSDK(t *testing.T, node, dir, bin, page string, schemas bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	args := []string{"errors.mjs", bin, page, "--headless", "--caps", "all", "--output-dir", t.TempDir()}
	if schemas {
		args = append(args, "--output-schemas")
	}
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), "TMPDIR="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("node errors.mjs: %v\n%s\n%s", err, out, stderr)
	}
	var got struct {
		Tools         []string `json:"tools"`
		OutputSchemas int      `json:"outputSchemas"`
		SessionID     string   `json:"sessionId"`
		Results       map[string]struct {
			Threw      string `json:"threw"`
			IsError    bool   `json:"isError"`
			ErrorCode  string `json:"errorCode"`
			Structured bool   `json:"structured"`
		} `json:"results"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(got.Tools) < 40 {
		t.Fatalf("tools/list named %d tools with --caps all: %v", len(got.Tools), got.Tools)
	}
	if want := map[bool]int{false: 0, true: len(got.Tools)}[schemas]; got.OutputSchemas != want {
		t.Errorf("%d tools listed an output schema, want %d", got.OutputSchemas, want)
	}
	if got.SessionID == "" {
		t.Error("create_session's success reached the SDK without its structuredContent")
	}
	sort.Strings(got.Tools)
	for _, name := range got.Tools {
		r, ok := got.Results[name]
		switch {
		case !ok:
			t.Errorf("%s: not called", name)
		case r.Threw != "":
			t.Errorf("%s: the SDK threw instead of returning the error: %s", name, r.Threw)
		case !r.IsError || r.ErrorCode == "":
			t.Errorf("%s: %+v, want an isError result with our errorCode", name, r)
		case r.Structured:
			t.Errorf("%s: the error result carries structuredContent", name)
		}
	}
	// The three the issue reproduced, and get_request and stop_har, with the
	// code each must name.
	for name, code := range map[string]string{"navigate": "NAVIGATION_FAILED", "get_text": "ELEMENT_NOT_FOUND", "snapshot": "SESSION_NOT_FOUND",
		"get_request": "INVALID_PARAMETERS", "stop_har": "NO_RECORDING"} {
		if r := got.Results[name]; r.ErrorCode != code {
			t.Errorf("%s: %+v, want errorCode %s", name, r, code)
		}
	}
}

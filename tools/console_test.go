package tools_test

import (
	"bytes"
	"encoding/base64"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
)

func TestConsoleMessages(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/net.html")
	e.eval(id, `console.log("hello %s, %d times", "world", 3, {a: 1, b: "x"});
		console.debug("details"); console.info("note"); console.warn("careful"); console.error(new Error("bad thing"));
		await new Promise(r => { setTimeout(() => { throw new TypeError("boom") }, 0); setTimeout(r, 50) });
		Promise.reject(new Error("nobody catches me"));
		await new Promise(r => setTimeout(r, 50));
		await loadImage("/missing.png")`)
	msgs := func(args map[string]any) []map[string]any {
		args["sessionId"] = id
		var out []map[string]any
		for _, m := range e.ok("get_console_messages", args)["messages"].([]any) {
			out = append(out, m.(map[string]any))
		}
		return out
	}
	// Full Chromium also fetches /favicon.ico, a 404 that lands in the
	// browser log at a time of its own choosing.
	favicon := func(m map[string]any) bool { u, _ := m["url"].(string); return strings.HasSuffix(u, "/favicon.ico") }
	all := slices.DeleteFunc(msgs(map[string]any{}), favicon)
	var got []string
	for _, m := range all {
		got = append(got, m["level"].(string)+"/"+m["type"].(string)+": "+m["text"].(string))
		if m["time"].(float64) <= 0 {
			t.Errorf("message without time: %v", m)
		}
	}
	want := []string{
		`log/log: hello world, 3 times {a: 1, b: "x"}`,
		"debug/debug: details",
		"info/info: note",
		"warning/warning: careful",
		"error/error: Error: bad thing",
		"error/exception: Uncaught TypeError: boom",
		"error/exception: Uncaught (in promise) Error: nobody catches me",
		"error/browser: Failed to load resource: the server responded with a status of 404 (Not Found)",
	}
	if len(got) != len(want) {
		t.Fatalf("console messages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("message %d = %q, want %q", i, got[i], want[i])
		}
	}
	if all[7]["url"] != site.URL+"/missing.png" {
		t.Errorf("the failed load's URL: %v", all[7])
	}
	if errs := slices.DeleteFunc(msgs(map[string]any{"level": "error"}), favicon); len(errs) != 4 {
		t.Fatalf("level error: %v", errs)
	}
	if warn := slices.DeleteFunc(msgs(map[string]any{"level": "warning"}), favicon); len(warn) != 5 {
		t.Fatalf("level warning: %v", warn)
	}
	e.eval(id, `console.log("one"); console.log("two")`)
	if last := msgs(map[string]any{"limit": 2}); len(last) != 2 || last[0]["text"] != "one" || last[1]["text"] != "two" {
		t.Fatalf("limit: %v", last)
	}
	e.fail(engine.InvalidParameters, "get_console_messages", map[string]any{"sessionId": id, "level": "fatal"})
}

// mediaBox reads the first page's size in points.
var mediaBox = regexp.MustCompile(`/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]`)

func TestPDF(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/catalog.html")
	print := func(args map[string]any) (w, h float64, meta map[string]any) {
		t.Helper()
		args["sessionId"] = id
		res, err := e.c.CallTool(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "pdf", Arguments: args}})
		if err != nil || res.IsError {
			t.Fatalf("pdf(%v): %v %v", args, err, res)
		}
		meta = decode(t, res)
		r, ok := res.Content[len(res.Content)-1].(mcp.EmbeddedResource)
		if !ok {
			t.Fatalf("pdf returned no embedded resource: %#v", res.Content)
		}
		blob, ok := r.Resource.(mcp.BlobResourceContents)
		if !ok || blob.MIMEType != "application/pdf" || !strings.HasSuffix(blob.URI, ".pdf") {
			t.Fatalf("pdf resource: %#v", r.Resource)
		}
		b, err := base64.StdEncoding.DecodeString(blob.Blob)
		if err != nil || !bytes.HasPrefix(b, []byte("%PDF-")) || int(meta["bytes"].(float64)) != len(b) {
			t.Fatalf("not a PDF (%v): %q..., meta %v", err, b[:min(len(b), 16)], meta)
		}
		m := mediaBox.FindSubmatch(b)
		if m == nil {
			t.Fatalf("no MediaBox in the PDF")
		}
		w, _ = strconv.ParseFloat(string(m[1]), 64)
		h, _ = strconv.ParseFloat(string(m[2]), 64)
		return w, h, meta
	}
	w, h, meta := print(map[string]any{})
	if w != 612 || h != 792 || meta["pages"].(float64) < 2 {
		t.Fatalf("Letter portrait: %vx%v pt, %v", w, h, meta)
	}
	if w, h, _ := print(map[string]any{"landscape": true}); w != 792 || h != 612 {
		t.Fatalf("Letter landscape: %vx%v pt", w, h)
	}
	if w, h, _ := print(map[string]any{"format": "A4"}); w < 594 || w > 596 || h < 841 || h > 843 {
		t.Fatalf("A4: %vx%v pt", w, h)
	}
	if _, _, meta := print(map[string]any{"pageRanges": "1"}); meta["pages"].(float64) != 1 {
		t.Fatalf("pageRanges 1: %v", meta)
	}
	e.fail(engine.InvalidParameters, "pdf", map[string]any{"sessionId": id, "format": "B5"})
	e.fail(engine.InvalidParameters, "pdf", map[string]any{"sessionId": id, "pageRanges": "3-1"})
}

func TestConsoleBufferIsBounded(t *testing.T) {
	e := newEnv(t, sessions.Config{})
	id := e.open("/net.html")
	e.eval(id, `for (let i = 0; i < 1100; i++) console.log("line " + i)`)
	out := e.ok("get_console_messages", map[string]any{"sessionId": id, "limit": 1000})
	msgs := out["messages"].([]any)
	// Full Chromium may add a favicon 404 to the log, so the count of
	// dropped messages is at least, not exactly, 100.
	if out["total"].(float64) != 1000 || out["dropped"].(float64) < 100 || len(msgs) != 1000 ||
		msgs[100].(map[string]any)["text"] != "line 200" || msgs[999].(map[string]any)["text"] != "line 1099" {
		t.Fatalf("bounded console: total %v, dropped %v, first %v", out["total"], out["dropped"], msgs[0])
	}
}

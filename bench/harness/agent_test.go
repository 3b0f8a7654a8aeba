package main

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// TestMain lets the test binary be a fake browser server: a sign-in page
// held in memory, served over MCP stdio, whose action results are plain
// ("Clicked"), carry the lines that changed, or link a file with the
// outline, as BENCH_FAKE_SERVER says.
func TestMain(m *testing.M) {
	if mode := os.Getenv("BENCH_FAKE_SERVER"); mode != "" {
		if err := mcpserver.ServeStdio(fakeServer(mode)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func fakeServer(mode string) *mcpserver.MCPServer {
	var mu sync.Mutex
	values := map[string]string{}
	status, files := "", 0
	outline := func() string {
		var b strings.Builder
		fmt.Fprintf(&b, "- textbox \"Username\" [ref=e1]\n- textbox \"Password\" [ref=e2]\n- button \"Sign in\" [ref=e3]\n- status [ref=e4]: %s\n", status)
		for i := 0; i < 200; i++ {
			fmt.Fprintf(&b, "- link \"Article %d about the history of the browser\" [ref=e%d]\n", i, 10+i)
		}
		return b.String()
	}
	// answer is an action's result in the server's mode.
	answer := func(done, changed string) *mcp.CallToolResult {
		switch mode {
		case "changes":
			if changed == "" {
				return mcp.NewToolResultText(done + "; nothing on the page changed")
			}
			return mcp.NewToolResultText(done + "\n### Changes\n" + changed)
		case "link":
			files++
			name := fmt.Sprintf("snap-%d.yml", files)
			if err := os.WriteFile(name, []byte(outline()), 0o644); err != nil {
				return mcp.NewToolResultError(err.Error())
			}
			return mcp.NewToolResultText(done + "\n### Snapshot\n- [Snapshot](" + name + ")")
		}
		return mcp.NewToolResultText(done)
	}
	s := mcpserver.NewMCPServer("fake", "0")
	tool := func(name string, h func(args map[string]any) *mcp.CallToolResult) {
		s.AddTool(mcp.NewTool(name), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			mu.Lock()
			defer mu.Unlock()
			return h(req.GetArguments()), nil
		})
	}
	tool("create_session", func(map[string]any) *mcp.CallToolResult {
		return mcp.NewToolResultText(`{"sessionId": "0b5c3f7e-0000-4000-8000-000000000001"}`)
	})
	tool("navigate", func(map[string]any) *mcp.CallToolResult { return answer("Navigated", "") })
	tool("snapshot", func(map[string]any) *mcp.CallToolResult { return mcp.NewToolResultText(outline()) })
	tool("find", func(a map[string]any) *mcp.CallToolResult {
		text, _ := a["text"].(string)
		var lines []string
		for _, l := range strings.Split(outline(), "\n") {
			if strings.Contains(strings.ToLower(l), strings.ToLower(text)) {
				lines = append(lines, l)
			}
		}
		return mcp.NewToolResultText(strings.Join(lines, "\n"))
	})
	tool("fill", func(a map[string]any) *mcp.CallToolResult {
		ref, _ := a["ref"].(string)
		values[ref], _ = a["value"].(string)
		return answer("Filled "+ref, fmt.Sprintf("- textbox [ref=%s]: %s", ref, values[ref]))
	})
	tool("click", func(a map[string]any) *mcp.CallToolResult {
		if a["ref"] != "e3" {
			return answer("Clicked", "")
		}
		if values["e2"] == "hunter2" {
			status = "Signed in as " + values["e1"]
		} else {
			status = "Wrong password for " + values["e1"] + ". Try again."
		}
		return answer("Clicked", "- status [ref=e4]: "+status)
	})
	return s
}

// TestAgentReadsResultsFirst runs the login task against the fake server
// in each of its modes: the agent takes an outline only when a result
// does not show what it needs, so a server whose results carry the
// changes is spared every check's snapshot, a linked outline is read (and
// counted) instead of a snapshot, and with find the agent searches
// instead, once per target.
func TestAgentReadsResultsFirst(t *testing.T) {
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		mode                   string
		find                   bool
		snapshots, reads, call int
	}{
		// create_session, navigate, 3 fills, 2 clicks, plus the outlines.
		{"plain", false, 3, 0, 10},
		{"changes", false, 1, 0, 8},
		{"link", false, 0, 3, 10},
		// Searches instead: the 3 targets once each, and the 2 checks.
		{"plain", true, 0, 0, 12},
	}
	for _, c := range cases {
		name := c.mode
		if c.find {
			name += "+find"
		}
		t.Run(name, func(t *testing.T) {
			srv := ours()
			srv.launch = func(options) launch { return launch{bin: bin, env: []string{"BENCH_FAKE_SERVER=" + c.mode}} }
			if c.mode == "link" {
				srv.snapshotLink = playwrightMCP().snapshotLink
			}
			ctx := context.Background()
			p, err := start(ctx, srv.launch(options{}), 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer p.stop()
			a := newAgent(srv, p, 10*time.Second)
			a.useFind = c.find
			if err := seq(
				func() error { return a.listTools(ctx) },
				func() error { return a.open(ctx) },
				func() error { return a.navigate(ctx, "http://127.0.0.1/task/login.html") },
				func() error { return tasks[0].run(ctx, a) },
			); err != nil {
				t.Fatalf("login: %v\ntrace: %+v", err, a.trace)
			}
			snapshots, reads := 0, 0
			for _, s := range a.trace {
				if s.What == "snapshot" {
					snapshots++
				}
				if strings.HasPrefix(s.What, "read ") {
					reads++
				}
			}
			if snapshots != c.snapshots || reads != c.reads || a.calls != c.call {
				t.Errorf("%d snapshots, %d files read, %d calls; want %d, %d, %d\ntrace: %+v",
					snapshots, reads, a.calls, c.snapshots, c.reads, c.call, a.trace)
			}
			if sid := a.vars["sessionId"]; !regexp.MustCompile(`^[0-9a-f-]{36}$`).MatchString(fmt.Sprint(sid)) {
				t.Errorf("sessionId %v", sid)
			}
		})
	}
}

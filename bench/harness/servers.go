package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
)

// options are what the servers' command lines are built from.
type options struct {
	peers    string // the npm install of bench/peers (its node_modules)
	chromium string // the browser every peer drives
	ours     string // browsermcp's command line
}

// launch is a server's command line.
type launch struct {
	bin  string
	args []string
	// env entries may name {tmp}, the server's own temporary directory.
	env      []string
	pidFiles string
}

// call is a tool and its arguments. A string argument that is exactly
// "{var}" takes the variable with its JSON type (chrome-devtools-mcp's
// numeric pageId); other strings have {var} replaced in their text.
type call struct {
	tool string
	args map[string]any
}

// server is how the agent starts and drives one MCP server: its tools for
// the few things a task does, and how to read its answers.
type server struct {
	name    string
	launch  func(o options) launch
	version func(o options) string
	// open, when set, starts the agent's session; openVars pull variables
	// (sessionId, pageId) out of its answer with one capture group each.
	open     *call
	openVars map[string]*regexp.Regexp
	navigate call
	snapshot call
	click    call
	// fill replaces a field's value: the same semantics on every server, so
	// that correcting a field is one call everywhere.
	fill call
	// typ and screenshot are the steps scenario's type and screenshot,
	// as peerbench drove them: browsermcp types key by key, the peers fill.
	typ        call
	screenshot call
	close      *call
	// find, where the server has one, searches the page's outline for a
	// text ({text}) and answers with the matching lines and their refs; the
	// agent uses it only in the tasks-find scenario. agent-browser's
	// agent_browser_find acts on a locator instead, and chrome-devtools-mcp
	// has no search, so they have none here.
	find *call
	// refLine finds an element by role and accessible name in one line of
	// the server's outline; {role} and {name} are replaced by their quoted
	// forms, and the first group is the ref to pass back.
	refLine string
	// snapshotLink finds, in an answer, the path of a file that holds the
	// page's outline (playwright-mcp links one instead of printing it).
	// Relative paths are relative to the server's working directory.
	snapshotLink *regexp.Regexp
}

// servers lists every server the harness drives, ours first.
func servers() []*server {
	return []*server{ours(), playwrightMCP(), chromeDevtoolsMCP(), agentBrowser()}
}

func byName(name string) *server {
	for _, s := range servers() {
		if s.name == name {
			return s
		}
	}
	return nil
}

// ariaLine is the outline line of browsermcp and playwright-mcp:
// `- button "Sign in" [ref=e12]`, `- textbox "Username" [active] [ref=e5]`.
// It is not anchored, so that a line marked as a change (a prefix before
// the dash) is still found.
const ariaLine = `- {role} "{name}"(?: \[[^\]]*\])*? \[ref=([^\]\s]+)\]`

func ours() *server {
	sid := "{sessionId}"
	return &server{
		name: "ours",
		launch: func(o options) launch {
			f := strings.Fields(o.ours)
			return launch{bin: f[0], args: f[1:]}
		},
		version:    func(options) string { return "dev" },
		open:       &call{tool: "create_session"},
		openVars:   map[string]*regexp.Regexp{"sessionId": regexp.MustCompile(`"?sessionId"?\s*[:=]\s*"?([0-9a-fA-F-]{36})`)},
		navigate:   call{tool: "navigate", args: map[string]any{"sessionId": sid, "url": "{url}"}},
		snapshot:   call{tool: "snapshot", args: map[string]any{"sessionId": sid}},
		click:      call{tool: "click", args: map[string]any{"sessionId": sid, "ref": "{ref}"}},
		fill:       call{tool: "fill", args: map[string]any{"sessionId": sid, "ref": "{ref}", "value": "{text}"}},
		typ:        call{tool: "type", args: map[string]any{"sessionId": sid, "ref": "{ref}", "text": "{text}"}},
		screenshot: call{tool: "screenshot", args: map[string]any{"sessionId": sid}},
		close:      &call{tool: "close_session", args: map[string]any{"sessionId": sid}},
		find:       &call{tool: "find", args: map[string]any{"sessionId": sid, "text": "{query}"}},
		refLine:    ariaLine,
	}
}

// playwrightMCP is Microsoft's @playwright/mcp. Since 0.0.7x an action's
// answer links a file with the page's snapshot instead of printing it.
func playwrightMCP() *server {
	return &server{
		name: "playwright-mcp",
		launch: func(o options) launch {
			return launch{bin: "node", args: []string{filepath.Join(o.peers, "node_modules/@playwright/mcp/cli.js"),
				"--headless", "--isolated", "--no-sandbox", "--browser", "chromium", "--executable-path", o.chromium}}
		},
		version:  func(o options) string { return npmVersion(o, "@playwright/mcp") },
		navigate: call{tool: "browser_navigate", args: map[string]any{"url": "{url}"}},
		snapshot: call{tool: "browser_snapshot"},
		click:    call{tool: "browser_click", args: map[string]any{"element": "{role} {name}", "target": "{ref}"}},
		// browser_type fills the field (it types key by key only with slowly).
		fill:         call{tool: "browser_type", args: map[string]any{"element": "{role} {name}", "target": "{ref}", "text": "{text}"}},
		typ:          call{tool: "browser_type", args: map[string]any{"element": "{role} {name}", "target": "{ref}", "text": "{text}"}},
		screenshot:   call{tool: "browser_take_screenshot", args: map[string]any{"type": "png"}},
		find:         &call{tool: "browser_find", args: map[string]any{"text": "{query}"}},
		refLine:      ariaLine,
		snapshotLink: regexp.MustCompile(`\[Snapshot\]\(([^)\s]+)\)`),
	}
}

// chromeDevtoolsMCP is Google's chrome-devtools-mcp: page tools take the
// pageId that list_pages reports; elements are uids, `uid=1_14 button "Sign in"`.
func chromeDevtoolsMCP() *server {
	pid := "{pageId}"
	return &server{
		name: "chrome-devtools-mcp",
		launch: func(o options) launch {
			return launch{bin: "node", args: []string{filepath.Join(o.peers, "node_modules/chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js"),
				"--headless", "--isolated", "--executablePath", o.chromium, "--chromeArg=--no-sandbox", "--chromeArg=--disable-gpu",
				"--no-usage-statistics", "--no-performance-crux"},
				env: []string{"CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS=1"}}
		},
		version:    func(o options) string { return npmVersion(o, "chrome-devtools-mcp") },
		open:       &call{tool: "list_pages"},
		openVars:   map[string]*regexp.Regexp{"pageId": regexp.MustCompile(`(?m)^(\d+): .*\[selected\]`)},
		navigate:   call{tool: "navigate_page", args: map[string]any{"pageId": pid, "type": "url", "url": "{url}"}},
		snapshot:   call{tool: "take_snapshot", args: map[string]any{"pageId": pid}},
		click:      call{tool: "click", args: map[string]any{"pageId": pid, "uid": "{ref}"}},
		fill:       call{tool: "fill", args: map[string]any{"pageId": pid, "uid": "{ref}", "value": "{text}"}},
		typ:        call{tool: "fill", args: map[string]any{"pageId": pid, "uid": "{ref}", "value": "{text}"}},
		screenshot: call{tool: "take_screenshot", args: map[string]any{"pageId": pid, "format": "png"}},
		refLine:    `uid=(\S+) {role} "{name}"`,
	}
}

// agentBrowser is Vercel's agent-browser, a native binary whose npm
// package ships one per platform; its node wrapper wants node 24, the
// binary does not. Every call names the session; the first open launches
// a daemon (detached, in a session of its own) with its own Chrome. Its
// default snapshot lists only interactive elements, without the page's
// text, so the agent asks for the full one: it checks its work by text.
func agentBrowser() *server {
	sess := "bench"
	return &server{
		name: "agent-browser",
		launch: func(o options) launch {
			return launch{bin: agentBrowserBin(o), args: []string{"mcp"}, env: []string{
				"AGENT_BROWSER_EXECUTABLE_PATH=" + o.chromium, "AGENT_BROWSER_ARGS=--no-sandbox",
				"AGENT_BROWSER_NO_VERSION_CHECK=1", "AGENT_BROWSER_SOCKET_DIR={tmp}/.agent-browser"},
				pidFiles: ".agent-browser/*.pid"}
		},
		version: func(o options) string {
			out, _ := exec.Command(agentBrowserBin(o), "--version").Output()
			return strings.TrimPrefix(strings.TrimSpace(string(out)), "agent-browser ")
		},
		navigate:   call{tool: "agent_browser_open", args: map[string]any{"session": sess, "url": "{url}"}},
		snapshot:   call{tool: "agent_browser_snapshot", args: map[string]any{"session": sess, "interactive": false}},
		click:      call{tool: "agent_browser_click", args: map[string]any{"session": sess, "selector": "@{ref}"}},
		fill:       call{tool: "agent_browser_fill", args: map[string]any{"session": sess, "selector": "@{ref}", "text": "{text}"}},
		typ:        call{tool: "agent_browser_fill", args: map[string]any{"session": sess, "selector": "@{ref}", "text": "{text}"}},
		screenshot: call{tool: "agent_browser_screenshot", args: map[string]any{"session": sess, "format": "png"}},
		close:      &call{tool: "agent_browser_close", args: map[string]any{"session": sess}},
		// `- button "Sign in" [ref=e6]`, `- heading "Sign in" [level=1, ref=e1]`
		refLine: `- {role} "{name}" \[(?:[^\]]*, )?ref=([^,\]\s]+)`,
	}
}

func npmVersion(o options, pkg string) string {
	b, err := os.ReadFile(filepath.Join(o.peers, "node_modules", pkg, "package.json"))
	if err != nil {
		return "?"
	}
	var v struct{ Version string }
	if json.Unmarshal(b, &v) != nil {
		return "?"
	}
	return v.Version
}

func agentBrowserBin(o options) string {
	arch := runtime.GOARCH
	if arch == "amd64" {
		arch = "x64"
	}
	return filepath.Join(o.peers, "node_modules/agent-browser/bin", "agent-browser-"+runtime.GOOS+"-"+arch)
}

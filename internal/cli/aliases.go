package cli

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

var (
	aliasOnce sync.Once
	aliasList []*command
)

// aliases are the short commands over the common tools, in the order the
// help and the skill list them. Every other tool is reached under its own
// name (generated).
func aliases() []*command {
	aliasOnce.Do(func() { aliasList = buildAliases() })
	return aliasList
}

func target(args map[string]any, pos []string) (string, error) {
	setTarget(args, pos[0])
	return "", nil
}

func buildAliases() []*command {
	return []*command{
		{name: "open", args: "<url>", summary: "Open a URL in the session's current tab.", example: "open https://example.com",
			tool: "navigate", min: 1, max: 1, build: func(pos []string, _ map[string]string, a map[string]any) (string, error) {
				a["url"] = pos[0]
				return "", nil
			}},
		{name: "snapshot", args: "", summary: "Print the page's accessibility outline; actionable elements have refs (e12). -i: only refs, headings and landmarks.",
			example: "snapshot -i", tool: "snapshot", max: 0,
			opts: []option{{name: "interactive", short: "i", isBool: true, help: "only refs, headings, landmarks"},
				{name: "changes", isBool: true, help: "only what changed since the last snapshot"}},
			build: func(_ []string, own map[string]string, a map[string]any) (string, error) {
				if own["interactive"] == "true" {
					a["interactiveOnly"] = true
				}
				if own["changes"] == "true" {
					a["changes"] = true
				}
				return "", nil
			}},
		{name: "find", args: "<text> | --regex RE", summary: "Print the outline's lines that match text (any case) or --regex, with their refs and context.",
			example: `find "Add to cart"`, tool: "find", max: 1, build: func(pos []string, _ map[string]string, a map[string]any) (string, error) {
				// The alias shadows the tool's name: find --regex must be
				// reachable through it.
				if len(pos) == 1 {
					a["text"] = pos[0]
				}
				if a["text"] == nil && a["regex"] == nil {
					return "", fmt.Errorf("find needs <text> or --regex RE")
				}
				return "", nil
			}},
		{name: "click", args: "<@ref|selector>", summary: "Click an element.", example: "click @e12", tool: "click", min: 1, max: 1,
			build: func(pos []string, _ map[string]string, a map[string]any) (string, error) { return target(a, pos) }},
		{name: "fill", args: "<@ref|selector> <text>", summary: "Clear a field and fill it with text.", example: `fill @e3 "jane@example.com"`,
			tool: "fill", min: 2, max: 2, build: func(pos []string, _ map[string]string, a map[string]any) (string, error) {
				a["value"] = pos[1]
				return target(a, pos)
			}},
		{name: "type", args: "<@ref|selector> <text>", summary: "Type text into an element, key by key.", example: `type @e3 "hello"`,
			tool: "type", min: 2, max: 2, build: func(pos []string, _ map[string]string, a map[string]any) (string, error) {
				a["text"] = pos[1]
				return target(a, pos)
			}},
		{name: "press", args: "<key> [@ref|selector]", summary: "Press a key (Enter, Tab, Control+a), on an element or the focused one.",
			example: "press Enter", tool: "press", min: 1, max: 2, build: func(pos []string, _ map[string]string, a map[string]any) (string, error) {
				a["key"] = pos[0]
				if len(pos) > 1 {
					setTarget(a, pos[1])
				}
				return "", nil
			}},
		{name: "select", args: "<@ref|selector> <value>...", summary: "Select options of a <select> by value or label.",
			example: "select @e7 blue", tool: "select", min: 2, max: -1, build: func(pos []string, _ map[string]string, a map[string]any) (string, error) {
				vals := make([]any, 0, len(pos)-1)
				for _, p := range pos[1:] {
					vals = append(vals, p)
				}
				a["values"] = vals
				return target(a, pos)
			}},
		{name: "check", args: "<@ref|selector>", summary: "Check a checkbox or radio.", example: "check @e9", tool: "check", min: 1, max: 1,
			build: func(pos []string, _ map[string]string, a map[string]any) (string, error) { return target(a, pos) }},
		{name: "uncheck", args: "<@ref|selector>", summary: "Uncheck a checkbox.", example: "uncheck @e9", tool: "uncheck", min: 1, max: 1,
			build: func(pos []string, _ map[string]string, a map[string]any) (string, error) { return target(a, pos) }},
		{name: "hover", args: "<@ref|selector>", summary: "Move the mouse over an element.", example: "hover @e4", tool: "hover", min: 1, max: 1,
			build: func(pos []string, _ map[string]string, a map[string]any) (string, error) { return target(a, pos) }},
		{name: "scroll", args: "<up|down|left|right> [px] | <@ref|selector>", summary: "Scroll the page by px (default 500), or an element into view.",
			example: "scroll down 800", tool: "scroll", min: 1, max: 2, build: func(pos []string, _ map[string]string, a map[string]any) (string, error) {
				px := 500
				if len(pos) == 2 {
					n, err := strconv.Atoi(pos[1])
					if err != nil || n <= 0 {
						return "", fmt.Errorf("scroll takes a positive number of pixels, got %q", pos[1])
					}
					px = n
				}
				switch pos[0] {
				case "down":
					a["y"] = px
				case "up":
					a["y"] = -px
				case "right":
					a["x"] = px
				case "left":
					a["x"] = -px
				default:
					if len(pos) == 2 {
						return "", fmt.Errorf("scroll %s: a direction is up, down, left or right", pos[0])
					}
					setTarget(a, pos[0])
				}
				return "", nil
			}},
		{name: "drag", args: "<source> <target>", summary: "Drag one element onto another (refs or selectors).", example: "drag @e5 @e8",
			tool: "drag_and_drop", min: 2, max: 2, build: func(pos []string, _ map[string]string, a map[string]any) (string, error) {
				a["source"], a["target"] = refOrSelector(pos[0]), refOrSelector(pos[1])
				return "", nil
			}},
		{name: "back", summary: "Go back in history.", example: "back", tool: "go_back"},
		{name: "forward", summary: "Go forward in history.", example: "forward", tool: "go_forward"},
		{name: "reload", summary: "Reload the page.", example: "reload", tool: "reload"},
		{name: "screenshot", args: "[path]", summary: "Save a PNG screenshot (the viewport; --full: the whole page) and print its path.",
			example: "screenshot page.png", tool: "screenshot", max: 1,
			opts: []option{{name: "full", isBool: true, help: "the whole page"}},
			build: func(_ []string, own map[string]string, a map[string]any) (string, error) {
				if own["full"] == "true" {
					a["fullPage"] = true
				}
				return "", nil
			},
			post: func(_ context.Context, s *conn, inv invocation, r *toolResult, asJSON bool) error {
				return saveBlob(s, inv, r, asJSON, "png")
			}},
		{name: "pdf", args: "<path>", summary: "Print the page to a PDF file.", example: "pdf page.pdf", tool: "pdf", min: 1, max: 1,
			post: func(_ context.Context, s *conn, inv invocation, r *toolResult, asJSON bool) error {
				return saveBlob(s, inv, r, asJSON, "pdf")
			}},
		{name: "eval", args: "<js>", summary: "Evaluate JavaScript in the page and print its value.", example: `eval "document.title"`,
			tool: "evaluate", min: 1, max: 1, build: func(pos []string, _ map[string]string, a map[string]any) (string, error) {
				a["script"] = pos[0]
				return "", nil
			}},
		{name: "get", args: "text|value|attr|title|url [@ref|selector] [attribute]", summary: "Print an element's text, value or attribute, or the page's title or URL.",
			example: "get text @e5", tool: "get_text", also: []string{"get_value", "get_attribute", "get_page_metadata"}, min: 1, max: 3, build: buildGet, post: postGet},
		{name: "wait", args: "<selector|ms>", summary: "Wait for an element to be visible, or ms milliseconds; --text T: for text to appear, --gone T: to disappear.",
			example: "wait 500", tool: "wait_for", max: 1,
			opts: []option{{name: "text", help: "text to appear"}, {name: "gone", help: "text to disappear"}},
			build: func(pos []string, own map[string]string, a map[string]any) (string, error) {
				if t, ok := own["text"]; ok {
					a["text"] = t
				}
				if t, ok := own["gone"]; ok {
					a["textGone"] = t
				}
				if len(pos) == 1 {
					if ms, err := strconv.ParseFloat(pos[0], 64); err == nil {
						a["time"] = ms / 1000
					} else {
						a["selector"] = pos[0]
					}
				}
				if len(a) == 0 {
					return "", fmt.Errorf("wait needs a selector, a number of ms, --text or --gone")
				}
				return "", nil
			}},
		{name: "tab", args: "list|new [url]|select <n>|close [n]", summary: "List, open, select or close tabs; popups become tabs.",
			example: "tab list", tool: "tabs", min: 1, max: 2, build: func(pos []string, _ map[string]string, a map[string]any) (string, error) {
				a["action"] = pos[0]
				switch pos[0] {
				case "list":
					if len(pos) > 1 {
						return "", fmt.Errorf("tab list takes no argument")
					}
				case "new":
					if len(pos) > 1 {
						a["url"] = pos[1]
					}
				case "select", "close":
					if len(pos) > 1 {
						n, err := strconv.Atoi(pos[1])
						if err != nil {
							return "", fmt.Errorf("tab %s takes a tab index, got %q", pos[0], pos[1])
						}
						a["index"] = n
					} else if pos[0] == "select" {
						return "", fmt.Errorf("tab select needs a tab index")
					}
				default:
					return "", fmt.Errorf("tab takes list, new, select or close, got %q", pos[0])
				}
				return "", nil
			}},
		{name: "cookies", summary: "Print the session's cookies.", example: "cookies", tool: "get_cookies"},
		{name: "state", args: "save|load <file>", summary: "Save the session's cookies and localStorage to a JSON file, or load them from one.",
			example: "state save login.json", tool: "save_state", also: []string{"restore_state"}, min: 2, max: 2, build: buildState, post: postState},
		{name: "network", args: "route <url-glob> [--body B] [--status N]|unroute [url-glob]|requests", summary: "Mock responses, undo that, or print the request log.",
			example: `network route "*/api/*" --body '{"ok":true}'`, tool: "get_request_log", also: []string{"mock_response", "unroute"}, min: 1, max: 2, build: buildNetwork},
		{name: "dialog", args: "accept [text]|dismiss", summary: "Accept (with prompt text) or dismiss the open JavaScript dialog.",
			example: "dialog accept", tool: "handle_dialog", min: 1, max: 2, build: func(pos []string, _ map[string]string, a map[string]any) (string, error) {
				switch pos[0] {
				case "accept":
					a["accept"] = true
					if len(pos) > 1 {
						a["promptText"] = pos[1]
					}
				case "dismiss":
					if len(pos) > 1 {
						return "", fmt.Errorf("dialog dismiss takes no text")
					}
					a["accept"] = false
				default:
					return "", fmt.Errorf("dialog takes accept or dismiss, got %q", pos[0])
				}
				return "", nil
			}},
		{name: "close", args: "[--all]", summary: "Close the session (--all: stop the daemon and every session).", example: "close",
			tool: "close_session", opts: []option{{name: "all", isBool: true, help: "stop the daemon"}}, local: closeMain},
		{name: "sessions", summary: "List the daemon's sessions.", example: "sessions", tool: "list_sessions"},
	}
}

func buildGet(pos []string, _ map[string]string, a map[string]any) (string, error) {
	// --ref or --selector, which the help names, stand for the target.
	given := a["ref"] != nil || a["selector"] != nil
	need := func(n int) error {
		if given && n > 1 {
			n--
		}
		if len(pos) != n {
			return fmt.Errorf("get %s takes %d argument(s) after %s", pos[0], n-1, pos[0])
		}
		if !given && n > 1 {
			setTarget(a, pos[1])
		}
		return nil
	}
	switch pos[0] {
	case "text", "value":
		if err := need(2); err != nil {
			return "", err
		}
		return "get_" + pos[0], nil
	case "attr":
		if err := need(3); err != nil {
			return "", err
		}
		a["name"] = pos[len(pos)-1]
		return "get_attribute", nil
	case "title", "url":
		return "get_page_metadata", need(1)
	}
	return "", fmt.Errorf("get takes text, value, attr, title or url, got %q", pos[0])
}

// postGet prints the one value get asked for.
func postGet(_ context.Context, s *conn, inv invocation, r *toolResult, asJSON bool) error {
	if asJSON || (inv.pos[0] != "title" && inv.pos[0] != "url") {
		printResult(s.env.stdout, r, asJSON)
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(r.StructuredContent, &m); err != nil {
		return fmt.Errorf("reading get_page_metadata's result: %w", err)
	}
	fmt.Fprintln(s.env.stdout, m[inv.pos[0]])
	return nil
}

// maxStateFile bounds the saved state state load reads: more could not
// reach the daemon in one message anyway.
const maxStateFile = 16 << 20

// readBounded reads the file at path, refusing one of more than max bytes
// (/dev/zero would fill the memory).
func readBounded(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes: not a saved state", path, max)
	}
	return b, nil
}

func buildState(pos []string, _ map[string]string, a map[string]any) (string, error) {
	switch pos[0] {
	case "save":
		return "save_state", nil
	case "load":
		b, err := readBounded(pos[1], maxStateFile)
		if err != nil {
			return "", err
		}
		var st any
		if err := json.Unmarshal(b, &st); err != nil {
			return "", fmt.Errorf("%s is not a saved state: %v", pos[1], err)
		}
		a["state"] = st
		return "restore_state", nil
	}
	return "", fmt.Errorf("state takes save or load, got %q", pos[0])
}

// postState writes the saved state to the command's file: the daemon
// answers with the state, and the command, which runs where the file is
// meant to be, writes it.
func postState(_ context.Context, s *conn, inv invocation, r *toolResult, asJSON bool) error {
	if inv.pos[0] != "save" {
		printResult(s.env.stdout, r, asJSON)
		return nil
	}
	var out struct {
		State json.RawMessage `json:"state"`
	}
	if err := json.Unmarshal(r.StructuredContent, &out); err != nil || len(out.State) == 0 {
		return fmt.Errorf("save_state answered no state")
	}
	if err := os.WriteFile(inv.pos[1], out.State, 0o600); err != nil {
		return err
	}
	fmt.Fprintf(s.env.stdout, "Saved the state to %s (%d bytes)\n", inv.pos[1], len(out.State))
	return nil
}

func buildNetwork(pos []string, own map[string]string, a map[string]any) (string, error) {
	switch pos[0] {
	case "route":
		if len(pos) != 2 {
			return "", fmt.Errorf("network route needs a URL glob")
		}
		a["urlPattern"] = pos[1]
		return "mock_response", nil
	case "unroute":
		if len(pos) == 2 {
			a["urlPattern"] = pos[1]
		}
		return "unroute", nil
	case "requests":
		if len(pos) != 1 {
			return "", fmt.Errorf("network requests takes no argument")
		}
		return "get_request_log", nil
	}
	return "", fmt.Errorf("network takes route, unroute or requests, got %q", pos[0])
}

// saveBlob writes the image or PDF a result carries to the command's
// path (or a new file in the temp directory) and prints the path.
func saveBlob(s *conn, inv invocation, r *toolResult, asJSON bool, ext string) error {
	var data string
	for _, c := range r.Content {
		switch {
		case c.Type == "image" && c.Data != "":
			data = c.Data
		case c.Type == "resource" && c.Resource != nil && c.Resource.Blob != "":
			data = c.Resource.Blob
		}
	}
	if data == "" {
		// The daemon saved it itself (--image-responses omit): its
		// answer says where.
		printResult(s.env.stdout, r, asJSON)
		return nil
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return fmt.Errorf("decoding the %s: %w", ext, err)
	}
	path := ""
	if len(inv.pos) > 0 {
		path = inv.pos[0]
	} else {
		path = filepath.Join(os.TempDir(), fmt.Sprintf("browsermcp-%d.%s", time.Now().UnixNano(), ext))
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return err
	}
	if asJSON {
		var m map[string]any
		json.Unmarshal(r.StructuredContent, &m)
		if m == nil {
			m = map[string]any{}
		}
		m["path"] = path
		return json.NewEncoder(s.env.stdout).Encode(m)
	}
	fmt.Fprintf(s.env.stdout, "%s (%d bytes)\n", path, len(b))
	return nil
}

// closeMain closes the session, or with --all stops the daemon.
func closeMain(ctx context.Context, argv []string, g globals, e env) int {
	c, _ := lookup("close")
	inv, err := c.parse(argv)
	if err == nil && len(inv.pos) > 0 {
		err = fmt.Errorf("close takes no arguments, got %q", inv.pos)
	}
	if err != nil {
		fmt.Fprintln(e.stderr, "browsermcp:", err)
		fmt.Fprint(e.stderr, c.help())
		return exitUsage
	}
	if inv.own["all"] == "true" {
		return stopDaemon(ctx, e)
	}
	if f := (files{runtimeDir(e.getenv)}); !dialable(f.socket()) {
		// No daemon, no session: closing starts none.
		fmt.Fprintf(e.stdout, "No daemon is running: session %s is not open.\n", g.session)
		return exitOK
	}
	s, code := open(ctx, g, e)
	if s == nil {
		return code
	}
	defer s.close()
	inv.args["sessionId"] = g.session
	return s.run(ctx, c, inv, g.json)
}

// stopDaemon asks the running daemon to stop and waits until its socket
// is gone; with no daemon running it says so and succeeds.
func stopDaemon(ctx context.Context, e env) int {
	f := files{runtimeDir(e.getenv)}
	in, err := readInfo(f.info())
	if err != nil || !dialable(f.socket()) {
		fmt.Fprintln(e.stdout, "No daemon is running.")
		return exitOK
	}
	c := newClient(f.socket(), in.Key)
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := c.daemon(ctx, "POST", "stop"); err != nil {
		fmt.Fprintln(e.stderr, "browsermcp: stopping the daemon:", err)
		return exitError
	}
	c.http.CloseIdleConnections()
	for dialable(f.socket()) {
		select {
		case <-ctx.Done():
			fmt.Fprintln(e.stderr, "browsermcp: the daemon did not stop in time")
			return exitError
		case <-time.After(10 * time.Millisecond):
		}
	}
	// Wait for the process to let its browser go, so that the next
	// command's daemon does not race it.
	for processAlive(in.PID) {
		select {
		case <-ctx.Done():
			fmt.Fprintf(e.stdout, "Stopped the daemon (pid %d); it is still closing its browser.\n", in.PID)
			return exitOK
		case <-time.After(20 * time.Millisecond):
		}
	}
	fmt.Fprintf(e.stdout, "Stopped the daemon (pid %d).\n", in.PID)
	return exitOK
}

// help is a command's help text.
func (c *command) help() string {
	var b strings.Builder
	fmt.Fprintf(&b, "usage: browsermcp %s", c.name)
	if c.args != "" {
		b.WriteString(" " + c.args)
	}
	b.WriteString(" [options]\n\n" + c.summary + "\n")
	if c.example != "" {
		fmt.Fprintf(&b, "\nexample: browsermcp %s\n", c.example)
	}
	if len(c.opts) > 0 {
		b.WriteString("\noptions:\n")
		for _, o := range c.opts {
			flag := "--" + o.name
			if o.short != "" {
				flag = "-" + o.short + ", " + flag
			}
			if !o.isBool {
				flag += " VALUE"
			}
			fmt.Fprintf(&b, "  %-22s %s\n", flag, o.help)
		}
	}
	if c.tool != "" {
		if props := properties(c.tool); len(props) > 0 {
			var names []string
			for k, t := range props {
				if k != "sessionId" {
					names = append(names, "--"+k+" ("+orAny(t)+")")
				}
			}
			sortStrings(names)
			if len(names) > 0 {
				fmt.Fprintf(&b, "\n%s's arguments, as options: %s\n", c.tool, strings.Join(names, ", "))
			}
		}
	}
	b.WriteString("\nglobal: --session NAME (BROWSERMCP_SESSION, default \"default\"), --json\n")
	return b.String()
}

func orAny(t string) string {
	if t == "" {
		return "JSON"
	}
	return t
}

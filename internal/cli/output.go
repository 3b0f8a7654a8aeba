package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
)

// printResult prints a successful result. --json: its structuredContent
// (or its text, for a result without one). Otherwise its text blocks as
// the server gives them, compacted for a shell: a block that is our
// result JSON loses the session's bookkeeping (sessionId, expiresAt,
// empty fields), a lone string field prints bare (get text), and a result
// with a message prints it on its own line, then what else happened, one
// field a line.
func printResult(w io.Writer, r *toolResult, asJSON bool) {
	if asJSON {
		if len(r.StructuredContent) > 0 {
			var buf bytes.Buffer
			if json.Compact(&buf, r.StructuredContent) == nil {
				buf.WriteByte('\n')
				w.Write(buf.Bytes())
				return
			}
		}
		for _, c := range r.Content {
			if c.Type == "text" {
				fmt.Fprintln(w, c.Text)
			}
		}
		return
	}
	for _, c := range r.Content {
		switch c.Type {
		case "text":
			fmt.Fprintln(w, compact(c.Text))
		case "image":
			fmt.Fprintf(w, "[image %s, %d base64 bytes]\n", c.MimeType, len(c.Data))
		case "resource":
			if c.Resource != nil {
				fmt.Fprintf(w, "[resource %s %s]\n", c.Resource.URI, c.Resource.MimeType)
			}
		}
	}
}

// bookkeeping are the fields of every session tool's result a shell
// agent does not need on each line.
var bookkeeping = []string{"sessionId", "expiresAt"}

// compact shortens a text block that is a JSON object; any other text
// (an outline, find's lines, the page's changes) is printed as it is.
func compact(text string) string {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "{") {
		return strings.TrimRight(text, "\n")
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(t), &m) != nil {
		return strings.TrimRight(text, "\n")
	}
	for _, k := range bookkeeping {
		delete(m, k)
	}
	if string(m["success"]) == "true" {
		delete(m, "success") // the exit status says so
	}
	full := len(m)
	for k, v := range m {
		if empty(v) && k != "message" {
			delete(m, k)
		}
	}
	if len(m) == 0 && full > 0 {
		// Nothing but empty fields: say so (cookies: []) rather than
		// print nothing.
		json.Unmarshal([]byte(t), &m)
		for _, k := range bookkeeping {
			delete(m, k)
		}
		delete(m, "success")
	}
	if len(m) == 1 {
		for _, v := range m {
			var s string
			if json.Unmarshal(v, &s) == nil {
				return s
			}
		}
	}
	var lines []string
	if msg, ok := m["message"]; ok {
		var s string
		if json.Unmarshal(msg, &s) == nil {
			lines = append(lines, s)
			delete(m, "message")
			// A fact the message already tells (the page a click
			// navigated to, its title) is not repeated.
			for k, v := range m {
				var f string
				if json.Unmarshal(v, &f) == nil && f != "" && strings.Contains(s, f) {
					delete(m, k)
				}
			}
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// An action's message comes first; then each fact on its own line,
	// strings bare: JSON's quotes and braces cost an agent tokens.
	for _, k := range keys {
		var s string
		switch {
		case json.Unmarshal(m[k], &s) != nil:
			lines = append(lines, k+": "+string(m[k]))
		case strings.Contains(s, "\n"):
			// A text of several lines (a page's changes) under its name.
			lines = append(lines, k+":", strings.TrimRight(s, "\n"))
		default:
			lines = append(lines, k+": "+s)
		}
	}
	return strings.Join(lines, "\n")
}

// empty reports a JSON value that says nothing: null, false, "", [] or {}.
func empty(v json.RawMessage) bool {
	s := string(bytes.TrimSpace(v))
	return slices.Contains([]string{"null", "false", `""`, "[]", "{}"}, s)
}

// printError prints a tool error on w: its code and message, then its
// suggestion; with --json, the error's JSON as the server gave it.
func printError(w io.Writer, r *toolResult, asJSON bool) {
	b, ok := toolError(r)
	if !ok || asJSON {
		for _, c := range r.Content {
			if c.Type == "text" && asJSON {
				fmt.Fprintln(w, c.Text)
			} else if c.Type == "text" {
				fmt.Fprintln(w, "error:", c.Text)
			}
		}
		return
	}
	fmt.Fprintf(w, "%s: %s\n", b.ErrorCode, b.Message)
	if b.Suggestion != "" {
		fmt.Fprintln(w, "suggestion:", b.Suggestion)
	}
}

func sortStrings(s []string) { sort.Strings(s) }

// mainHelp lists every command: the aliases, then every tool by name.
func mainHelp() string {
	var b strings.Builder
	b.WriteString(`usage: browsermcp <command> [args] [--session NAME] [--json]
       browsermcp [serve] [server flags]     the MCP server (stdio, HTTP or WebSocket)

The first command starts a daemon that holds the browser and the sessions;
later commands reach it over a Unix socket. Refs (@e12 or e12) come from
snapshot and find.

commands:
`)
	for _, c := range aliases() {
		fmt.Fprintf(&b, "  %-12s %-44s %s\n", c.name, c.args, firstSentence(c.summary))
	}
	b.WriteString(`  batch        [--bail]                                     Run commands from stdin, one a line or a JSON array
  skill        [--install DIR]                              Print SKILL.md for agent harnesses, or install it
  daemon       [server flags] [--idle-timeout 30m]          Run the daemon in the foreground

Every tool is a command under its own name too, its arguments as options
(browsermcp get_attribute href --selector a):
`)
	b.WriteString(wrap(strings.Join(toolNames(), " "), 76, "  "))
	b.WriteString(`
global flags: --session NAME (BROWSERMCP_SESSION; default "default"), --json,
  --idle-timeout D (the daemon's; default 30m), and the server flags the daemon
  starts with: --browser, --headless, --cdp-endpoint, --grid-url, --config, ...
exit status: 0 success, 1 tool error (errorCode, message, suggestion on stderr), 2 bad usage
`)
	return b.String()
}

// toolNames are the registry's tools, in its order.
func toolNames() []string {
	definition("")
	names := make([]string, len(defList))
	for i, d := range defList {
		names[i] = d.Name
	}
	return names
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i > 0 {
		return s[:i+1]
	}
	return s
}

// wrap breaks s into lines of at most width, each indented.
func wrap(s string, width int, indent string) string {
	var b strings.Builder
	line := indent
	for _, w := range strings.Fields(s) {
		if len(line)+len(w)+1 > width && line != indent {
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			line = indent
		}
		line += w + " "
	}
	if line != indent {
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	return b.String()
}

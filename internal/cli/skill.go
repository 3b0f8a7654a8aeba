package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// skill is SKILL.md for agent harnesses (Claude Code reads
// .claude/skills/<name>/SKILL.md): the loop, the ref rules, and every
// command with an example, generated from the aliases and the tool
// registry so that it is always current.
func skill() string {
	var b strings.Builder
	b.WriteString(`---
name: browsermcp
description: Drive a real browser from the shell - open pages, read their accessibility outline, click, fill and check what happened - with the browsermcp command. Use it to browse, test a web app, fill forms or scrape a page.
allowed-tools: Bash(browsermcp:*)
---

# Browsing with browsermcp

A daemon holds the browser and its sessions between commands; the first
command starts it. Every command prints compact text; add --json for the
structured result.

## The loop

1. ` + "`browsermcp open https://example.com`" + `
2. ` + "`browsermcp snapshot -i`" + ` prints the page's actionable elements with refs: ` + "`button \"Sign in\" [ref=e12]`" + `.
   ` + "`browsermcp find \"Sign in\"`" + ` prints only the matching lines, with their context.
3. Act on a ref: ` + "`browsermcp click @e12`" + `, ` + "`browsermcp fill @e3 \"jane@example.com\"`" + `.
4. Check what happened: the action's answer says (navigation, new tab, dialog, download); snapshot again.

## Refs

- ` + "`@e12`" + ` and ` + "`e12`" + ` both name a ref; anything else is a selector: CSS, XPath (starting with / or xpath=), or testid=VALUE.
- Refs come from the latest snapshot or find of that session; after the page changes, take a new snapshot.
- In a session other than default, refs carry its name (` + "`work:e5`" + `); both forms work in that session.

## Sessions

` + "`--session NAME`" + ` (or BROWSERMCP_SESSION) runs a command in an isolated session (its own cookies and tabs),
created on first use; the default session is "default". ` + "`browsermcp close`" + ` closes it,
` + "`browsermcp close --all`" + ` stops the daemon.

## Exit status

0 success; 1 a tool error, with its errorCode, message and suggestion on stderr (follow the suggestion);
2 bad usage, with the command's help.

## Commands

`)
	for _, c := range aliases() {
		fmt.Fprintf(&b, "- `browsermcp %s` - %s (tool %s)\n", c.example, c.summary, strings.Join(append([]string{c.tool}, c.also...), ", "))
	}
	b.WriteString("- `printf 'open URL\\nsnapshot -i\\n' | browsermcp batch --bail` - run commands from stdin in one process (one a line, or a JSON array of argument arrays); --bail stops at the first error\n")
	b.WriteString(`
## Every tool by name

Each tool is a command too: required arguments in order, every argument as --name value
(numbers and booleans as such, objects and arrays as JSON). ` + "`browsermcp help TOOL`" + ` lists them.

`)
	for _, d := range allDefs() {
		if a, ok := lookup(d.Name); ok && !a.generated {
			// The alias of the same name takes its positionals; every
			// argument of the tool is its option too.
			fmt.Fprintf(&b, "- `browsermcp %s` - %s (the command above; its arguments as options)\n", d.Name, d.Description)
			continue
		}
		c := generated(d)
		ex := c.name
		if c.args != "" {
			ex += " " + c.args
		}
		fmt.Fprintf(&b, "- `browsermcp %s` - %s\n", ex, d.Description)
	}
	return b.String()
}

// skillMain prints the skill, or installs it: skill --install DIR writes
// DIR/browsermcp/SKILL.md (DIR is .claude/skills for Claude Code).
func skillMain(args []string, e env) int {
	switch {
	case len(args) == 0:
		fmt.Fprint(e.stdout, skill())
		return exitOK
	case (args[0] == "--install" && len(args) == 2) || (strings.HasPrefix(args[0], "--install=") && len(args) == 1):
		dir := strings.TrimPrefix(args[0], "--install=")
		if len(args) == 2 {
			dir = args[1]
		}
		path := filepath.Join(dir, "browsermcp", "SKILL.md")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			fmt.Fprintln(e.stderr, "browsermcp:", err)
			return exitError
		}
		if err := os.WriteFile(path, []byte(skill()), 0o644); err != nil {
			fmt.Fprintln(e.stderr, "browsermcp:", err)
			return exitError
		}
		fmt.Fprintln(e.stdout, "Wrote", path)
		return exitOK
	}
	fmt.Fprintln(e.stderr, "usage: browsermcp skill [--install DIR]\n\nPrint SKILL.md, or write it to DIR/browsermcp/SKILL.md (Claude Code: DIR is .claude/skills or ~/.claude/skills).")
	return exitUsage
}

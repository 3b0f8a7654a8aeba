// Package tools is browsermcp's MCP layer: every tool is one constructor in
// a file by concern (sessions.go, navigation.go, interaction.go, ...) plus
// one line in registry(). The adapter in adapter.go does the plumbing for
// all of them, against package engine only.
package tools

import (
	"fmt"
	"log/slog"

	"github.com/mark3labs/mcp-go/server"

	"github.com/seed4af8c199/browsermcp/engine"
)

// registry lists every tool. Adding a tool is one constructor and one line
// here.
func registry(d *Deps) []Tool {
	return []Tool{
		createSession(d),
		closeSession(d),
		listSessions(d),
		navigate(d),
		click(d),
		typeText(d),
		snapshot(d),
		handleDialog(d),
	}
}

// Options configure the MCP server.
type Options struct {
	Version string
	Log     *slog.Logger
}

// NewServer returns an MCP server with every tool registered.
func NewServer(m *engine.Manager, o Options) *server.MCPServer {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := server.NewMCPServer("browsermcp", o.Version,
		server.WithToolCapabilities(false),
		server.WithRecovery(),
		server.WithInstructions("Browser automation with isolated sessions. create_session returns a sessionId for every page tool; omit sessionId to use one shared session named default."),
	)
	for _, t := range Tools(&Deps{Sessions: m, Log: log}) {
		s.AddTool(t.Def, t.Handler)
	}
	return s
}

// Tools returns the tool set after checking its invariants; a bad definition
// panics at startup rather than reaching a client.
func Tools(d *Deps) []Tool {
	ts := registry(d)
	seen := map[string]bool{}
	for _, t := range ts {
		switch {
		case seen[t.Def.Name]:
			panic(fmt.Sprintf("tool %s registered twice", t.Def.Name))
		case t.Def.Description == "":
			panic(fmt.Sprintf("tool %s has no description", t.Def.Name))
		case t.Def.Annotations.ReadOnlyHint == nil || t.Def.Annotations.DestructiveHint == nil ||
			t.Def.Annotations.IdempotentHint == nil || t.Def.Annotations.OpenWorldHint == nil:
			panic(fmt.Sprintf("tool %s does not set all four annotation hints", t.Def.Name))
		case *t.Def.Annotations.ReadOnlyHint && *t.Def.Annotations.DestructiveHint:
			panic(fmt.Sprintf("tool %s is read-only and destructive", t.Def.Name))
		case len(t.Def.RawInputSchema) == 0:
			panic(fmt.Sprintf("tool %s has no input schema", t.Def.Name))
		}
		seen[t.Def.Name] = true
	}
	return ts
}

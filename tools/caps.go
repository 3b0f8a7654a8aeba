package tools

import (
	"fmt"
	"slices"
	"strings"
)

// OptIn are the capability groups that --caps turns on. Core is always
// on; a tool of a group that is off is not registered at all, so it costs
// no tokens in tools/list and a call to it answers "tool not found".
var OptIn = []Group{Network, State, PDF, Console, Vision, Testing, Devtools}

// Testing holds the assertion tools, generate_locator and export_test.
const Testing Group = "testing"

// Devtools holds tracing, video, HAR, get_request and performance;
// Emulation holds emulate.
const (
	Devtools  Group = "devtools"
	Emulation Group = "emulation"
)

// All is the --caps value that turns on every group.
const All Group = "all"

// ParseCaps parses a comma-separated --caps value such as "network,pdf".
// Blanks are ignored; an unknown name is an error that lists the known ones.
func ParseCaps(s string) ([]Group, error) {
	var caps []Group
	for _, f := range strings.Split(s, ",") {
		g := Group(strings.ToLower(strings.TrimSpace(f)))
		switch {
		case g == "":
		case g == All || g == Core || slices.Contains(OptIn, g):
			if !slices.Contains(caps, g) {
				caps = append(caps, g)
			}
		default:
			return nil, fmt.Errorf("unknown capability %q: want %s or all", g, joinGroups(OptIn))
		}
	}
	return caps, nil
}

func joinGroups(gs []Group) string {
	s := make([]string, len(gs))
	for i, g := range gs {
		s[i] = string(g)
	}
	return strings.Join(s, ", ")
}

// enabled reports whether caps turns on group g.
func enabled(caps []Group, g Group) bool {
	return g == Core || slices.Contains(caps, All) || slices.Contains(caps, g)
}

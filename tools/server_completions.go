package tools

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
)

// completion/complete offers values for prompt arguments and for the
// variables of the resource templates, from what the caller can see: its
// own sessions (by id and name), their pages, and the refs of the last
// snapshot of a session. Nothing of another API key's sessions is offered.

// maxCompletions is the most values one answer may carry (MCP: 100).
const maxCompletions = 100

// maxRememberedSessions bounds lastRefs.
const maxRememberedSessions = 4096

// lastRefs keeps the refs of each session's last snapshot.
type lastRefs struct {
	mu   sync.Mutex
	refs map[string][]string // session id -> refs
}

// refInOutline finds the refs of an outline, with their context prefix.
var refInOutline = regexp.MustCompile(`\[ref=((?:[^\]\s:]+:)?(?:f[1-9][0-9]*)?e[1-9][0-9]*)\]`)

func (l *lastRefs) remember(session, outline string) {
	if session == "" {
		return
	}
	var refs []string
	for _, m := range refInOutline.FindAllStringSubmatch(outline, -1) {
		refs = append(refs, m[1])
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.refs == nil || len(l.refs) >= maxRememberedSessions {
		// Sessions end without telling us; forgetting all at times
		// bounds the memory, at the cost of a completion until the next
		// snapshot.
		l.refs = map[string][]string{}
	}
	l.refs[session] = refs
}

// add remembers more refs of a session, those an action's changes
// showed, beside those of its last outline.
func (l *lastRefs) add(session string, refs []string) {
	if session == "" || len(refs) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.refs == nil {
		l.refs = map[string][]string{}
	}
	have := l.refs[session]
	for _, r := range refs {
		if !slices.Contains(have, r) && len(have) < maxAddedRefs {
			have = append(have, r)
		}
	}
	l.refs[session] = have
}

// maxAddedRefs bounds the refs a session's changes add to its outline's.
const maxAddedRefs = 20000

func (l *lastRefs) of(session string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.refs[session]
}

// completions answers completion/complete for the tools server.
type completions struct{ d *Deps }

// CompletePromptArgument offers, for a URL argument, the URLs the
// caller's sessions show, and for an argument with a default, the default.
func (c completions) CompletePromptArgument(ctx context.Context, name string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	var values []string
	for _, p := range prompts() {
		if p.name != name {
			continue
		}
		for _, a := range p.args {
			if a.name != arg.Name {
				continue
			}
			if a.name == "url" || strings.HasSuffix(a.name, "_url") {
				for _, i := range c.d.Sessions.List(ctx) {
					values = append(values, i.URL)
				}
			}
			if a.def != "" {
				values = append(values, a.def)
			}
		}
	}
	return matching(values, arg.Value), nil
}

// CompleteResourceArgument offers the caller's session ids and names for
// sessionId, the page ids of the session for pageId, and the refs of the
// session's last snapshot for ref.
func (c completions) CompleteResourceArgument(ctx context.Context, _ string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	var values []string
	sessions := c.d.Sessions.List(ctx)
	// The session the other variables refer to, when the caller has one
	// by that id or name.
	var session *engine.SessionInfo
	if ref := cc.Arguments["sessionId"]; ref != "" {
		for _, i := range sessions {
			if i.ID == ref || (i.Name != "" && i.Name == ref) {
				session = &i
				break
			}
		}
	}
	switch arg.Name {
	case "sessionId":
		for _, i := range sessions {
			values = append(values, i.ID)
			if i.Name != "" {
				values = append(values, i.Name)
			}
		}
	case "pageId":
		if session != nil || len(sessions) > 0 {
			values = []string{"0"} // a session's resources name its current page, 0
		}
	case "ref":
		if session != nil {
			values = c.d.refs.of(session.ID)
		}
	}
	return matching(values, arg.Value), nil
}

// matching keeps the values that start with prefix, each once, in order,
// at most maxCompletions of them.
func matching(values []string, prefix string) *mcp.Completion {
	out := []string{}
	for _, v := range values {
		if v != "" && strings.HasPrefix(v, prefix) && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	c := &mcp.Completion{Values: out, Total: len(out)}
	if len(out) > maxCompletions {
		c.Values, c.HasMore = out[:maxCompletions], true
	}
	return c
}

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/seed4af8c199/browsermcp/internal/tokens"
)

// agent is the scripted agent of the task scenario. It drives one server
// the way an agent that pays for what it reads would, by the same rule on
// every server:
//
//   - it reads every answer (an action's result, a snapshot, an error);
//   - to find its next target it looks in what it can still trust: the
//     last action's result, then its view of the page since the last full
//     outline it read (that outline and the results that came after it);
//   - only when that does not show the target does it read the outline
//     the last result links to (playwright-mcp), else take a snapshot;
//     in the tasks-find scenario it first searches the outline with the
//     server's find tool, where the server has one;
//   - to check its work it looks for the success text in the last result
//     first, then in the linked outline, then in a new snapshot.
//
// Every token it reads is counted (o200k), once, with tools/list at the
// start. Nothing is special-cased per server beyond how its lines look.
type agent struct {
	srv     *server
	p       *proc
	timeout time.Duration
	vars    map[string]any
	refRe   map[string]*regexp.Regexp

	// view holds the texts the agent may take refs from: the last outline
	// it read, then the results and searches that came after it, newest
	// last. A navigation to a new document empties it.
	view []seen
	// lastResult is the latest action's answer, and link the outline file
	// it links to, if any, not read yet.
	lastResult string
	link       string

	// useFind lets the agent search the outline with the server's find
	// tool, where it has one, before it reads the whole outline.
	useFind bool

	tokens int
	calls  int
	trace  []step
	tools  int
}

// step is one thing the agent read: a call's answer or a linked file.
type step struct {
	What   string `json:"what"`
	Why    string `json:"why,omitempty"`
	Tokens int    `json:"tokens"`
	Error  bool   `json:"error,omitempty"`
}

func newAgent(srv *server, p *proc, timeout time.Duration) *agent {
	return &agent{srv: srv, p: p, timeout: timeout, vars: map[string]any{}, refRe: map[string]*regexp.Regexp{}}
}

// read counts what the agent reads.
func (a *agent) read(what, why, text string, isErr bool) {
	n, err := tokens.O200k(text)
	if err != nil {
		panic(err) // the offline tokenizer's data is compiled in
	}
	a.tokens += n
	a.trace = append(a.trace, step{What: what, Why: why, Tokens: n, Error: isErr})
}

// listTools reads tools/list, which every conversation starts with.
func (a *agent) listTools(ctx context.Context) error {
	text, names, err := a.p.toolsJSON(ctx, a.timeout)
	a.tools = len(names)
	// An agent searches only with a tool the server lists.
	if a.srv.find != nil && !slices.Contains(names, a.srv.find.tool) {
		a.useFind = false
	}
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	a.read("tools/list", "", text, false)
	return nil
}

// do makes one tool call and reads its answer.
func (a *agent) do(ctx context.Context, c call, extra map[string]any, why string) (result, error) {
	args := map[string]any{}
	for k, v := range c.args {
		args[k] = a.expand(v, extra)
	}
	a.calls++
	r, err := a.p.call(ctx, a.timeout, c.tool, args)
	if err != nil {
		a.trace = append(a.trace, step{What: c.tool, Why: why, Error: true})
		return r, err
	}
	a.read(c.tool, why, r.text, r.isError)
	return r, nil
}

func (a *agent) expand(v any, extra map[string]any) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") && strings.Count(s, "{") == 1 {
		k := s[1 : len(s)-1]
		if x, ok := extra[k]; ok {
			return x
		}
		if x, ok := a.vars[k]; ok {
			return x
		}
	}
	for k, x := range a.vars {
		s = strings.ReplaceAll(s, "{"+k+"}", fmt.Sprint(x))
	}
	for k, x := range extra {
		s = strings.ReplaceAll(s, "{"+k+"}", fmt.Sprint(x))
	}
	return s
}

// open starts the agent's session where the server needs one.
func (a *agent) open(ctx context.Context) error {
	if a.srv.open == nil {
		return nil
	}
	r, err := a.do(ctx, *a.srv.open, nil, "open a session")
	if err != nil {
		return err
	}
	if r.isError {
		return fmt.Errorf("%s: %s", a.srv.open.tool, last(r.text, 300))
	}
	for k, re := range a.srv.openVars {
		m := re.FindAllStringSubmatch(r.text, -1)
		if m == nil {
			return fmt.Errorf("%s: no %s in %q", a.srv.open.tool, k, last(r.text, 300))
		}
		v := m[len(m)-1][1]
		if n, err := strconv.Atoi(v); err == nil {
			a.vars[k] = n
		} else {
			a.vars[k] = v
		}
	}
	return nil
}

// navigate opens a URL: a new document, so nothing seen before holds.
func (a *agent) navigate(ctx context.Context, url string) error {
	r, err := a.do(ctx, a.srv.navigate, map[string]any{"url": url}, "open the task's page")
	if err != nil {
		return err
	}
	if r.isError {
		return fmt.Errorf("navigate: %s", last(r.text, 300))
	}
	a.view = nil
	a.setResult(r.text)
	return nil
}

func (a *agent) setResult(text string) {
	a.lastResult = text
	a.link = ""
	if a.srv.snapshotLink != nil {
		if m := a.srv.snapshotLink.FindStringSubmatch(text); m != nil {
			a.link = m[1]
		}
	}
}

// target is an element as a task names it: role, accessible name, and
// which of the elements with that role and name (1 = the first).
type target struct {
	role, name string
	nth        int
}

func (t target) String() string {
	if t.nth > 1 {
		return fmt.Sprintf("%s %q #%d", t.role, t.name, t.nth)
	}
	return fmt.Sprintf("%s %q", t.role, t.name)
}

// find returns the ref of t in text, or "".
func (a *agent) find(text string, t target) string {
	key := t.role + "\x00" + t.name
	re := a.refRe[key]
	if re == nil {
		pat := strings.ReplaceAll(a.srv.refLine, "{role}", regexp.QuoteMeta(t.role))
		pat = strings.ReplaceAll(pat, "{name}", regexp.QuoteMeta(t.name))
		re = regexp.MustCompile(pat)
		a.refRe[key] = re
	}
	nth := max(t.nth, 1)
	for _, line := range strings.Split(text, "\n") {
		if m := re.FindStringSubmatch(line); m != nil {
			if nth--; nth == 0 {
				return m[1]
			}
		}
	}
	return ""
}

// outline reads a full outline of the page: the file the last result
// links to, if it has not been read, else a new snapshot.
func (a *agent) outline(ctx context.Context, why string) (string, error) {
	if a.link != "" {
		path := a.link
		if !filepath.IsAbs(path) {
			path = filepath.Join(a.p.tmp, path)
		}
		b, err := os.ReadFile(path)
		a.link = ""
		if err == nil {
			// Reading a file is a call of the agent's own (its client's
			// file tool), and a turn, like a snapshot.
			a.calls++
			a.read("read "+filepath.Base(path), why, string(b), false)
			a.view = []seen{{string(b), true}}
			return string(b), nil
		}
	}
	r, err := a.do(ctx, a.srv.snapshot, nil, why)
	if err != nil {
		return "", err
	}
	if r.isError {
		return "", fmt.Errorf("snapshot: %s", last(r.text, 300))
	}
	a.view = []seen{{r.text, true}}
	return r.text, nil
}

// seen is a text in the agent's view. An outline, or a search's answer,
// lists every element it shows in the page's order; an action's result may
// show a few, so it cannot tell which is the second of a name.
type seen struct {
	text    string
	ordered bool
}

// locate finds t's ref: in the last result, then in the view, then in a
// full outline.
func (a *agent) locate(ctx context.Context, t target) (string, error) {
	if t.nth <= 1 {
		if ref := a.find(a.lastResult, t); ref != "" {
			return ref, nil
		}
	}
	for i := len(a.view) - 1; i >= 0; i-- {
		if v := a.view[i]; t.nth <= 1 || v.ordered {
			if ref := a.find(v.text, t); ref != "" {
				return ref, nil
			}
		}
	}
	if a.useFind && a.srv.find != nil {
		r, err := a.do(ctx, *a.srv.find, map[string]any{"query": t.name}, "find "+t.String())
		if err != nil {
			return "", err
		}
		if !r.isError {
			// What the search showed is part of the agent's view, as an
			// outline is, and it lists its matches in the outline's order.
			a.view = append(a.view, seen{r.text, true})
			if ref := a.find(r.text, t); ref != "" {
				return ref, nil
			}
		}
	}
	text, err := a.outline(ctx, "find "+t.String())
	if err != nil {
		return "", err
	}
	if ref := a.find(text, t); ref != "" {
		return ref, nil
	}
	return "", fmt.Errorf("no %s on the page", t)
}

// act clicks or fills t. An answer that is an error (a ref gone stale)
// makes the agent take a new outline and try once more, as an agent would.
func (a *agent) act(ctx context.Context, c call, t target, text string) error {
	for attempt := 0; ; attempt++ {
		ref, err := a.locate(ctx, t)
		if err != nil {
			return err
		}
		r, err := a.do(ctx, c, map[string]any{"ref": ref, "role": t.role, "name": t.name, "text": text}, t.String())
		if err != nil {
			return err
		}
		if !r.isError {
			a.setResult(r.text)
			a.view = append(a.view, seen{r.text, false})
			return nil
		}
		if attempt == 1 {
			return fmt.Errorf("%s %s: %s", c.tool, t, last(r.text, 300))
		}
		a.lastResult, a.link, a.view = "", "", nil
	}
}

func (a *agent) click(ctx context.Context, t target) error { return a.act(ctx, a.srv.click, t, "") }

func (a *agent) fill(ctx context.Context, t target, text string) error {
	return a.act(ctx, a.srv.fill, t, text)
}

// errNotSeen is a task's check that failed: the page never showed the text.
var errNotSeen = errors.New("not on the page")

// expect checks the agent's work by a text the page shows on success: in
// the last result, else in the outline it links to, else in a snapshot.
// A page that is still loading gets one more snapshot a second later.
func (a *agent) expect(ctx context.Context, text string) error {
	if strings.Contains(a.lastResult, text) {
		return nil
	}
	if a.useFind && a.srv.find != nil {
		r, err := a.do(ctx, *a.srv.find, map[string]any{"query": text}, "check "+strconv.Quote(text))
		if err != nil {
			return err
		}
		if !r.isError && strings.Contains(r.text, text) {
			return nil
		}
	}
	for i := 0; i < 2; i++ {
		if i > 0 {
			time.Sleep(time.Second)
		}
		out, err := a.outline(ctx, "check "+strconv.Quote(text))
		if err != nil {
			return err
		}
		if strings.Contains(out, text) {
			return nil
		}
	}
	return fmt.Errorf("%q: %w", text, errNotSeen)
}

package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/codegen"
)

// Code for every action, and the recording export_test turns into a test.
//
// With --codegen typescript or python, a successful action's result
// carries code: the Playwright line(s) that do the same thing, with the
// element's locator (locate) taken before the action, while the element is
// there. With --caps testing, every successful action and assertion of a
// session is also recorded as a codegen.Step; the recording goes with the
// session. One Step renders both the code line and the exported test's.
// A secret placeholder the agent typed is never replaced by the secret: it
// becomes an environment variable the test reads.

// maxSteps bounds a session's recording.
const maxSteps = 10000

// stepLog holds each session's steps and the names given to the secret
// placeholders it typed.
type stepLog struct {
	mu       sync.Mutex
	sessions map[string]*sessionSteps
}

type sessionSteps struct {
	steps   []codegen.Step
	secrets map[string]string // placeholder -> environment variable
	dropped int
	// choosers counts the file choosers the session's actions opened;
	// openChooser is the number of the one waiting, 0 when none does.
	choosers, openChooser int
	// cur is the index of the session's current tab, as the tabs calls
	// left it; page is the tab the test drives, the one of the first
	// navigation (navigated), -1 once it is closed.
	cur, page int
	navigated bool
}

// tabsCall is what a tabs call does to the tabs' indices.
type tabsCall struct {
	closes bool
	index  *int // the tab closed; nil: the current one
}

// tabsDone follows a tabs call that left tab current the current one.
func (r *stepLog) tabsDone(id string, c tabsCall, current int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := r.get(id)
	if c.closes {
		closed := rec.cur
		if c.index != nil {
			closed = *c.index
		}
		switch {
		case closed < rec.page:
			rec.page--
		case closed == rec.page && rec.navigated:
			rec.page = -1
		}
	}
	rec.cur = current
}

// offPage reports whether a step runs on another tab than the one the
// test drives, and on which; the first navigation (first) makes its tab
// that one.
func (r *stepLog) offPage(id string, first bool) (int, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := r.get(id)
	if !rec.navigated {
		if first {
			rec.navigated, rec.page = true, rec.cur
		}
		return rec.cur, false
	}
	return rec.cur, rec.cur != rec.page
}

// chooserStep numbers the file chooser st opened, or gives an
// upload_file without a target (answers) the number of the chooser it
// answers, so that the test waits for the one and fills it with the
// other (codegen.Step.Chooser).
func (r *stepLog) chooserStep(id string, st *codegen.Step, opened, answers bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := r.get(id)
	switch {
	case answers:
		if st.Action == codegen.Upload {
			st.Chooser = rec.openChooser
		}
		rec.openChooser = 0
	case opened:
		rec.choosers++
		st.Chooser, rec.openChooser = rec.choosers, rec.choosers
	}
}

func (r *stepLog) get(id string) *sessionSteps {
	if r.sessions == nil {
		r.sessions = map[string]*sessionSteps{}
	}
	rec := r.sessions[id]
	if rec == nil {
		rec = &sessionSteps{secrets: map[string]string{}}
		r.sessions[id] = rec
	}
	return rec
}

// envFor names the environment variable that holds the secret behind a
// placeholder, the same name for the same placeholder in a session.
func (r *stepLog) envFor(id, placeholder string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := r.get(id)
	if n, ok := rec.secrets[placeholder]; ok {
		return n
	}
	n := "BROWSERMCP_SECRET_" + strconv.Itoa(len(rec.secrets)+1)
	rec.secrets[placeholder] = n
	return n
}

func (r *stepLog) add(id string, s codegen.Step) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := r.get(id)
	if len(rec.steps) >= maxSteps {
		rec.dropped++
		return
	}
	rec.steps = append(rec.steps, s)
}

// steps returns a copy of a session's recording.
func (r *stepLog) steps(id string) ([]codegen.Step, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := r.sessions[id]
	if rec == nil {
		return nil, 0
	}
	return append([]codegen.Step(nil), rec.steps...), rec.dropped
}

func (r *stepLog) end(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.sessions, id)
}

// stepArgs are the arguments of every tool a step is made of, read from
// the caller's arguments (secret placeholders kept).
type stepArgs struct {
	URL        string   `json:"url"`
	Selector   string   `json:"selector"`
	Ref        string   `json:"ref"`
	Text       string   `json:"text"`
	TextGone   string   `json:"textGone"`
	Value      string   `json:"value"`
	Values     []string `json:"values"`
	Items      []string `json:"items"`
	Files      []string `json:"files"`
	Key        string   `json:"key"`
	Modifiers  []string `json:"modifiers"`
	Button     string   `json:"button"`
	ClickCount int      `json:"clickCount"`
	Force      bool     `json:"force"`
	Clear      bool     `json:"clear"`
	State      string   `json:"state"`
	Role       string   `json:"role"`
	Name       string   `json:"name"`
	Regex      string   `json:"regex"`
	Title      string   `json:"title"`
	Source     string   `json:"source"`
	Target     string   `json:"target"`
	Action     string   `json:"action"`
	Accept     bool     `json:"accept"`
	PromptText *string  `json:"promptText"`
	X          float64  `json:"x"`
	Y          float64  `json:"y"`
	ToX        float64  `json:"toX"`
	ToY        float64  `json:"toY"`
	Time       float64  `json:"time"`
	Timeout    int      `json:"timeout"`
}

// stepTools are the tools a step is made of: prepare runs before the
// call, on the page as the call finds it.
var stepTools = map[string]bool{
	"navigate": true, "go_back": true, "go_forward": true, "reload": true,
	"click": true, "type": true, "fill": true, "select": true, "check": true, "uncheck": true,
	"press": true, "hover": true, "scroll": true, "drag_and_drop": true, "upload_file": true,
	"mouse_click": true, "mouse_move": true, "mouse_drag": true,
	"handle_dialog": true, "tabs": true, "evaluate": true, "block_resource": true, "mock_response": true,
	"wait_for": true, "wait_for_selector": true, "wait_for_load": true,
	"verify_element": true, "verify_text": true, "verify_list": true, "verify_value": true,
	"verify_url": true, "verify_title": true,
}

// codegenOn reports whether calls of tool make steps on this server.
func (d *Deps) codegenOn(tool string) bool {
	return (d.codegen != codegen.None && d.codegen != "" || d.record) && d.stepLog != nil && stepTools[tool]
}

// pendingStep is a step prepared before its call, finished after it.
type pendingStep struct {
	step   codegen.Step
	finish func(out json.RawMessage, st *codegen.Step) bool
	// answersChooser is an upload_file without a target: it fills or
	// cancels the file chooser an earlier action opened.
	answersChooser bool
	tool           string
	// tabs is a tabs call's, which moves the current tab.
	tabs *tabsCall
}

// prepareStep builds the step of a call before it runs, from its bound
// input in and the caller's own arguments.
func (d *Deps) prepareStep(ctx context.Context, s engine.Session, tool, sessionID string, in any, caller map[string]any) *pendingStep {
	p := d.buildStep(ctx, s, tool, sessionID, in, caller)
	if p == nil {
		return nil
	}
	p.tool = tool
	if tool == "tabs" {
		var a struct {
			Action string `json:"action"`
			Index  *int   `json:"index"`
		}
		if b, err := json.Marshal(in); err == nil && json.Unmarshal(b, &a) == nil {
			p.tabs = &tabsCall{closes: a.Action == "close", index: a.Index}
		}
	}
	return p
}

// buildStep is prepareStep's step.
func (d *Deps) buildStep(ctx context.Context, s engine.Session, tool, sessionID string, in any, caller map[string]any) *pendingStep {
	b, err := json.Marshal(in)
	if err != nil {
		return nil
	}
	var a stepArgs
	if json.Unmarshal(b, &a) != nil {
		return nil
	}
	// The call got the secrets behind the caller's placeholders; the step
	// keeps the placeholders.
	for k, f := range map[string]*string{"text": &a.Text, "value": &a.Value, "promptText": a.PromptText} {
		if v, ok := caller[k].(string); ok && f != nil && strings.HasPrefix(v, "{{secret:") {
			*f = v
		}
	}
	str := func(v string) codegen.Str {
		if strings.HasPrefix(v, "{{secret:") && strings.HasSuffix(v, "}}") {
			return codegen.Str{Env: d.stepLog.envFor(sessionID, v)}
		}
		return codegen.Str{Lit: v}
	}
	// loc is the element's locator, which waits for the element as the
	// call will; a failure becomes a comment step. An element asserted
	// hidden may well not be there: it is not waited for.
	wait := ms(a.Timeout)
	if wait == 0 {
		wait = engine.TimeoutsOf(s).Action
	}
	if tool == "verify_element" && a.State == "hidden" {
		wait = 0
	}
	var locErr error
	loc := func(sel, ref string) *codegen.Locator {
		if sel == "" && ref == "" {
			return nil
		}
		l, err := locateStep(ctx, s, engine.Target{Selector: sel, Ref: ref}, wait)
		if err != nil {
			locErr = err
			return nil
		}
		return &l
	}
	comment := func(f string, a ...any) *pendingStep {
		return &pendingStep{step: codegen.Step{Action: codegen.Comment, Note: fmt.Sprintf(f, a...)}}
	}
	p := &pendingStep{}
	st := &p.step
	switch tool {
	case "navigate":
		*st = codegen.Step{Action: codegen.Goto, URL: a.URL}
	case "go_back":
		st.Action = codegen.Back
	case "go_forward":
		st.Action = codegen.Forward
	case "reload":
		st.Action = codegen.Reload
	case "click":
		*st = codegen.Step{Action: codegen.Click, Locator: loc(a.Selector, a.Ref), Button: a.Button, Count: a.ClickCount, Force: a.Force}
	case "type":
		text := str(strings.TrimSuffix(a.Text, "\n"))
		*st = codegen.Step{Action: codegen.Type, Locator: loc(a.Selector, a.Ref), Text: text}
		if a.Clear {
			st.Action = codegen.Fill
		}
		// "\n" presses Enter: Playwright's fill would put a line break
		// in the field.
		st.Enter = strings.HasSuffix(a.Text, "\n")
	case "fill":
		*st = codegen.Step{Action: codegen.Fill, Locator: loc(a.Selector, a.Ref), Text: str(a.Value)}
	case "select":
		*st = codegen.Step{Action: codegen.Select, Locator: loc(a.Selector, a.Ref), Values: a.Values}
	case "check":
		*st = codegen.Step{Action: codegen.Check, Locator: loc(a.Selector, a.Ref)}
	case "uncheck":
		*st = codegen.Step{Action: codegen.Uncheck, Locator: loc(a.Selector, a.Ref)}
	case "press":
		*st = codegen.Step{Action: codegen.Press, Locator: loc(a.Selector, a.Ref), Key: strings.Join(append(append([]string{}, a.Modifiers...), a.Key), "+")}
	case "hover":
		*st = codegen.Step{Action: codegen.Hover, Locator: loc(a.Selector, a.Ref)}
	case "scroll":
		if a.Selector != "" || a.Ref != "" {
			*st = codegen.Step{Action: codegen.ScrollTo, Locator: loc(a.Selector, a.Ref)}
		} else {
			*st = codegen.Step{Action: codegen.Wheel, X: float64(a.X), Y: float64(a.Y)}
		}
	case "drag_and_drop":
		src, dst := engine.TargetOf(a.Source), engine.TargetOf(a.Target)
		*st = codegen.Step{Action: codegen.DragTo, Locator: loc(src.Selector, src.Ref), To: loc(dst.Selector, dst.Ref)}
	case "upload_file":
		*st = codegen.Step{Action: codegen.Upload, Locator: loc(a.Selector, a.Ref)}
		p.answersChooser = a.Selector == "" && a.Ref == ""
		for _, f := range a.Files {
			real, err := d.files.resolve(ctx, "files", f, false)
			if err != nil {
				return nil
			}
			rel, err := filepath.Rel(d.files.out, real)
			if err != nil || !filepath.IsLocal(rel) {
				what := "the file chooser"
				if !p.answersChooser {
					what = describeLoc(st.Locator, a.Selector, a.Ref)
				}
				c := comment("upload_file set %s from %s, outside the output directory: not replayed, as the file may not be where the test runs", what, real)
				c.answersChooser = p.answersChooser
				return c
			}
			st.Files = append(st.Files, rel)
		}
	case "mouse_click":
		*st = codegen.Step{Action: codegen.MouseClick, X: a.X, Y: a.Y, Button: a.Button, Count: a.ClickCount}
	case "mouse_move":
		*st = codegen.Step{Action: codegen.MouseMove, X: a.X, Y: a.Y}
	case "mouse_drag":
		*st = codegen.Step{Action: codegen.MouseDrag, X: a.X, Y: a.Y, ToX: a.ToX, ToY: a.ToY}
	case "handle_dialog":
		*st = codegen.Step{Action: codegen.Dialog, Accept: a.Accept}
		if a.Accept && a.PromptText != nil {
			st.Text = str(*a.PromptText)
		}
	case "tabs":
		if a.Action == "list" {
			return nil
		}
		return comment("tabs %s: not replayed; this test drives one page", a.Action)
	case "evaluate":
		return comment("evaluate ran a script here: not replayed, as its effect is not an action a user takes")
	case "block_resource", "mock_response":
		return comment("%s set a route here: not replayed; add page.route() to mock the network", tool)
	case "wait_for":
		switch {
		case a.Text != "":
			*st = codegen.Step{Action: codegen.WaitText, Text: str(a.Text)}
		case a.TextGone != "":
			*st = codegen.Step{Action: codegen.WaitGone, Text: str(a.TextGone)}
		case a.Selector != "":
			*st = codegen.Step{Action: codegen.WaitFor, Locator: selectorLocator(a.Selector)}
		default:
			*st = codegen.Step{Action: codegen.WaitTime, Timeout: int(a.Time * 1000)}
		}
	case "wait_for_selector":
		*st = codegen.Step{Action: codegen.WaitFor, Locator: loc(a.Selector, a.Ref), State: a.State}
		if st.Locator == nil && a.Selector != "" {
			st.Locator, locErr = selectorLocator(a.Selector), nil
		}
	case "wait_for_load":
		state := a.State
		if state == "" {
			state = "load"
		}
		*st = codegen.Step{Action: codegen.WaitLoad, State: state}
	case "verify_element":
		*st = codegen.Step{Action: codegen.ExpectShown}
		if a.State == "hidden" {
			st.Action = codegen.ExpectHide
		}
		if a.Role != "" {
			st.Locator = &codegen.Locator{Kind: codegen.ByRole, Role: a.Role, Name: a.Name, Exact: a.Name != ""}
			// The assertion is about any element of the role and name, as
			// the outline shows them, iframes' included: an element in an
			// iframe is found through its frameLocator chain, which
			// page.getByRole alone does not enter, and when the page has
			// several, the test's locator keeps the visible ones, as
			// Playwright's would fail in strict mode.
			p.finish = func(_ json.RawMessage, st *codegen.Step) bool {
				r, err := s.Snapshot(ctx, engine.SnapshotRequest{Target: engine.Target{Selector: ":root"}, MaxText: -1})
				if err != nil {
					return true
				}
				ms := outlineMatches(r.Text, strings.ToLower(strings.TrimSpace(a.Role)), collapse(a.Name), a.Name != "")
				if len(ms) == 0 {
					return true
				}
				l := *st.Locator
				pick := ms[0]
				for _, m := range ms {
					if m.visible {
						pick = m
						break
					}
				}
				// An element without a ref in an iframe takes the chain of
				// an element of its frame's document that has one.
				by := pick.ref
				if by == "" {
					by = pick.frameRef
				}
				if by == "" && pick.inFrame {
					*st = codegen.Step{Action: codegen.Comment, Note: fmt.Sprintf("verify_element on %s %q: no locator (the element is in an iframe whose document has no element to reach it by); this step is not replayed",
						a.Role, a.Name)}
					return true
				}
				if by != "" {
					at, err := locateStep(ctx, s, engine.Target{Ref: by}, engine.TimeoutsOf(s).Action)
					if engine.CodeOf(err) == engine.Unsupported {
						// In a cross-origin frame, which no frameLocator
						// chain reaches: page.getByRole would look for the
						// element in the page and fail the test.
						*st = codegen.Step{Action: codegen.Comment, Note: fmt.Sprintf("verify_element on %s %q: no locator (%s); this step is not replayed",
							a.Role, a.Name, engine.AsError(err).Message)}
						return true
					}
					if err == nil {
						l.Frames = at.Frames
					}
				}
				if len(ms) > 1 {
					l.Visible, l.First = true, st.Action == codegen.ExpectShown
				}
				st.Locator = &l
				return true
			}
		} else if st.Locator = loc(a.Selector, a.Ref); st.Locator == nil && a.Selector != "" {
			// A hidden element may not be there to locate.
			st.Locator, locErr = selectorLocator(a.Selector), nil
		}
	case "verify_text":
		*st = codegen.Step{Action: codegen.ExpectText, Locator: loc(a.Selector, a.Ref), Text: codegen.Str{Lit: a.Text}}
		if a.Regex != "" {
			r := codegen.ParseRegex(a.Regex)
			st.Regex = &r
		}
	case "verify_list":
		*st = codegen.Step{Action: codegen.ExpectList, Locator: loc(a.Selector, a.Ref), Values: a.Items, ItemRole: "listitem"}
		if st.Locator != nil {
			raw, err := s.Evaluate(ctx, engine.EvalRequest{Target: &engine.Target{Selector: a.Selector, Ref: a.Ref}, Function: listItemRole, Timeout: engine.TimeoutsOf(s).Action})
			var role string
			if err == nil && json.Unmarshal(raw, &role) == nil && role != "" {
				st.ItemRole = role
			}
		}
	case "verify_value":
		*st = codegen.Step{Action: codegen.ExpectValue, Locator: loc(a.Selector, a.Ref), Text: codegen.Str{Lit: a.Value}}
		p.finish = func(out json.RawMessage, st *codegen.Step) bool {
			var r struct{ Kind, Actual string }
			_ = json.Unmarshal(out, &r)
			switch r.Kind {
			case "checked":
				st.Action, st.Not = codegen.ExpectCheck, a.Value == "unchecked" || a.Value == "false"
			case "text":
				st.Action = codegen.ExpectOwn
			default:
				if r.Actual != "" {
					// A select's is the option's value, which a label matched.
					st.Text = codegen.Str{Lit: r.Actual}
				}
			}
			return true
		}
	case "verify_url":
		*st = codegen.Step{Action: codegen.ExpectURL, Text: codegen.Str{Lit: a.URL}}
		if a.Regex != "" {
			r := codegen.ParseRegex(a.Regex)
			st.Regex = &r
		}
	case "verify_title":
		*st = codegen.Step{Action: codegen.ExpectTitle, Text: codegen.Str{Lit: a.Title}}
		if a.Regex != "" {
			r := codegen.ParseRegex(a.Regex)
			st.Regex = &r
		}
	default:
		return nil
	}
	if locErr != nil {
		return comment("%s on %s: no locator (%s); this step is not replayed", tool, describeTarget(a), engine.AsError(locErr).Message)
	}
	return p
}

// locateStep is locate, waiting up to wait for the element; the
// renderer's tests, which run without a page, put a selector's CSS
// locator in its place.
var locateStep = func(ctx context.Context, s engine.Session, t engine.Target, wait time.Duration) (codegen.Locator, error) {
	if wait == engine.TimeoutsOf(s).Action {
		return locate(ctx, s, t)
	}
	// A call's own timeout (or none, for an element asserted hidden).
	l, _, err := locateIn(ctx, s, t, wait)
	return l, err
}

// listItemRole is the role of a list's items: a select's or listbox's are
// options.
const listItemRole = `el => el.matches('select, datalist, [role=listbox]') ? 'option' : 'listitem'`

func describeTarget(a stepArgs) string {
	switch {
	case a.Ref != "":
		return a.Ref
	case a.Selector != "":
		return a.Selector
	case a.Source != "":
		return a.Source + " and " + a.Target
	}
	return "the page"
}

func describeLoc(l *codegen.Locator, sel, ref string) string {
	if l != nil {
		return l.TypeScript()
	}
	if ref != "" {
		return ref
	}
	return sel
}

// selectorLocator is a selector as a locator, without the page.
func selectorLocator(sel string) *codegen.Locator {
	kind, expr := engine.ParseSelector(sel)
	if kind == engine.XPath {
		return &codegen.Locator{Kind: codegen.ByCSS, Value: "xpath=" + expr}
	}
	return &codegen.Locator{Kind: codegen.ByCSS, Value: expr}
}

// finishStep completes p with the call's result, records it and returns
// the code line for the result ("" without --codegen).
func (d *Deps) finishStep(sessionID string, p *pendingStep, out any) string {
	if p == nil {
		return ""
	}
	st := p.step
	b, _ := json.Marshal(out)
	if p.finish != nil {
		if !p.finish(b, &st) {
			return ""
		}
	}
	if p.tabs != nil {
		var r struct {
			Current *int `json:"current"`
		}
		if json.Unmarshal(b, &r) == nil && r.Current != nil {
			d.stepLog.tabsDone(sessionID, *p.tabs, *r.Current)
		}
	} else if tab, off := d.stepLog.offPage(sessionID, st.Action == codegen.Goto); off && st.Action != codegen.Comment {
		// The test drives one page: a step on another tab would run on
		// it instead.
		st = codegen.Step{Action: codegen.Comment, Note: fmt.Sprintf("%s on tab %d, not the one this test drives: not replayed", p.tool, tab)}
	}
	var opened struct {
		FileChooser bool `json:"fileChooser"`
	}
	_ = json.Unmarshal(b, &opened)
	d.stepLog.chooserStep(sessionID, &st, opened.FileChooser && st.Action != codegen.Comment, p.answersChooser)
	if d.record {
		d.stepLog.add(sessionID, st)
	}
	if d.codegen == codegen.None || d.codegen == "" {
		return ""
	}
	return strings.Join(st.Code(d.codegen), "\n")
}

// withCode adds code to a success result: to its structuredContent and to
// the JSON text block that repeats it.
func withCode(res *mcp.CallToolResult, code string) {
	if res == nil || res.IsError || code == "" {
		return
	}
	field, _ := json.Marshal(code)
	splice := func(b []byte) []byte {
		if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
			return b
		}
		sep := ","
		if len(b) == 2 {
			sep = ""
		}
		return append(append(append(append([]byte{}, b[:len(b)-1]...), sep+`"code":`...), field...), '}')
	}
	if raw, ok := res.StructuredContent.(json.RawMessage); ok {
		res.StructuredContent = json.RawMessage(splice(raw))
	}
	if len(res.Content) > 0 {
		if t, ok := res.Content[0].(mcp.TextContent); ok {
			t.Text = string(splice([]byte(t.Text)))
			res.Content[0] = t
		}
	}
}

// withCodeSchema adds the code property to a tool's output schema.
func withCodeSchema(raw json.RawMessage) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	props, _ := m["properties"].(map[string]any)
	if props == nil {
		return raw
	}
	props["code"] = map[string]any{"type": "string", "description": "Playwright code doing the same (--codegen)"}
	b, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return b
}

package tools

import (
	"context"
	_ "embed"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/page"
)

// The assertion tools of the testing group. Each waits as Playwright's
// expect does: it reads the page, and reads it again after a short pause,
// until what it asserts holds or its timeout passes. It then passes, or
// answers ASSERTION_FAILED with what was expected and what the page last
// showed: never a success that says false. Each read of the page is one
// engine call, bounded by the time left.

// defaultVerifyTimeout is how long an assertion waits when no timeout is
// given, as Playwright's expect.
const defaultVerifyTimeout = 5 * time.Second

// pollPauses are the pauses between two reads of the page, the last
// repeated, as Playwright's expect polls.
var pollPauses = []time.Duration{100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond}

// readGrace is how long one read of the page may run past the assertion's
// deadline: the last read starts at it.
const readGrace = 5 * time.Second

// noMatch is the actual of an assertion on an element that nothing
// matches.
const noMatch = "no element matches"

// VerifyArg is the timeout every assertion takes.
type VerifyArg struct {
	Timeout int `json:"timeout,omitempty" jsonschema:"ms to retry, default 5000" range:"0,60000"`
}

func (a VerifyArg) timeout() time.Duration {
	if a.Timeout > 0 {
		return ms(a.Timeout)
	}
	return defaultVerifyTimeout
}

// VerifyOut is the result of an assertion that passed.
type VerifyOut struct {
	Success bool   `json:"success"`
	Message string `json:"message" jsonschema:"What held"`
	SessionMeta
}

func passed(format string, args ...any) VerifyOut {
	return VerifyOut{Success: true, Message: fmt.Sprintf(format, args...)}
}

// expectation is what an assertion asserts: a description of it for the
// agent, and what it expects, for the error.
type expectation struct {
	what     string
	expected any
}

// expect reads the page with read until it reports that the assertion
// holds, or until timeout has passed since the start. read returns whether
// it holds and what the page showed. An error of a read ends the wait at
// once, unless it may pass (the page was navigating, a read ran out of
// time), in which case the next read is tried. On timeout the answer is
// ASSERTION_FAILED with the last thing the page showed, or the last
// error when no read answered.
func expect[A any](ctx context.Context, timeout time.Duration, e expectation, read func(ctx context.Context) (bool, A, error)) (A, error) {
	deadline := time.Now().Add(timeout)
	var last A
	var seen bool
	var lastErr error
	for i := 0; ; i++ {
		rctx, cancel := context.WithTimeout(ctx, max(time.Until(deadline), 0)+readGrace)
		ok, actual, err := read(rctx)
		cancel()
		if ctx.Err() != nil {
			return last, ctx.Err()
		}
		switch {
		case err == nil && ok:
			return actual, nil
		case err == nil:
			last, seen, lastErr = actual, true, nil
		case transient(err):
			lastErr = err
		default:
			return last, err
		}
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		t := time.NewTimer(min(pollPauses[min(i, len(pollPauses)-1)], left))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return last, ctx.Err()
		}
	}
	if !seen {
		return last, lastErr
	}
	return last, assertionFailed(e, last, timeout)
}

// transient reports whether a read that failed with err may succeed if
// tried again: the page was between two documents, or the read ran out of
// time on a busy page.
func transient(err error) bool {
	c := engine.CodeOf(err)
	return c == engine.BrowserError || c == engine.Timeout
}

// assertionFailed is the ASSERTION_FAILED error of e, whose page last
// showed actual.
func assertionFailed(e expectation, actual any, timeout time.Duration) *engine.Error {
	return engine.Errorf(engine.AssertionFailed, "expected %s; the page shows %s (retried for %d ms)",
		e.what, quoteActual(actual), timeout.Milliseconds()).
		With("expected", e.expected).With("actual", actual).With("timeout", timeout.Milliseconds())
}

// maxActualInMessage is the most characters of the actual value the
// message quotes; details.actual holds more.
const maxActualInMessage = 200

// quoteActual quotes what the page showed as the outline quotes the
// page's strings (engine/page.Quote), so that no part of it reads as a
// ref: `[ref=e7]` in a paragraph's text is `\[ref=e7\]` here too.
func quoteActual(a any) string {
	switch a := a.(type) {
	case string:
		if a == noMatch {
			return a
		}
		return page.Quote(clipRunes(a, maxActualInMessage))
	case []string:
		q := make([]string, len(a))
		for i, s := range a {
			q[i] = page.Quote(clipRunes(s, 60))
		}
		return clipRunes("["+strings.Join(q, ", ")+"]", maxActualInMessage)
	}
	return fmt.Sprint(a)
}

// clipRunes cuts s to n characters, marking the cut.
func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// collapse collapses every run of whitespace to one space and trims the
// ends, as the page's text is compared.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// pattern is a text or a regex to match, as verify_text, verify_url and
// verify_title take them.
type pattern struct {
	text string
	re   *regexp.Regexp
	// field is the argument the text came from, for messages.
	field string
}

// regexSource reads a regex written /pattern/flags (flags i, m, s): RE2
// source with its flags in front. Any other string is RE2 source as it
// stands.
func regexSource(s string) string {
	if len(s) < 2 || s[0] != '/' {
		return s
	}
	end := strings.LastIndexByte(s, '/')
	if end == 0 {
		return s
	}
	flags := s[end+1:]
	if strings.Trim(flags, "ims") != "" {
		return s
	}
	if flags == "" {
		return s[1:end]
	}
	return "(?" + flags + ")" + s[1:end]
}

// compileRegex compiles the regex argument field: INVALID_PARAMETERS
// naming it when it does not compile.
func compileRegex(field, s string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(regexSource(s))
	if err != nil {
		return nil, invalid(field, "%s is not an RE2 regular expression: %v", field, err)
	}
	return re, nil
}

// patternOf checks that exactly one of text (the argument textField) and
// regex is given, and compiles the regex.
func patternOf(textField, text, regex string) (pattern, error) {
	switch {
	case (text == "") == (regex == ""):
		return pattern{}, engine.Errorf(engine.InvalidParameters, "give exactly one of %s and regex", textField).
			With("field", textField).With("fields", []string{textField, "regex"})
	case regex != "":
		re, err := compileRegex("regex", regex)
		return pattern{re: re, field: "regex"}, err
	}
	return pattern{text: text, field: textField}, nil
}

// expected is the pattern as ASSERTION_FAILED's expected shows it.
func (p pattern) expected() string {
	if p.re != nil {
		return "/" + p.re.String() + "/"
	}
	return p.text
}

func (p pattern) String() string {
	if p.re != nil {
		return "/" + p.re.String() + "/"
	}
	return strconv.Quote(p.text)
}

// equals matches s whole against a text (whitespace collapsed on both
// sides), or finds the regex in s.
func (p pattern) equals(s string) bool {
	if p.re != nil {
		return p.re.MatchString(s)
	}
	return collapse(s) == collapse(p.text)
}

// contains finds a text (whitespace collapsed on both sides) or the regex
// in s.
func (p pattern) contains(s string) bool {
	if p.re != nil {
		return p.re.MatchString(s)
	}
	return strings.Contains(collapse(s), collapse(p.text))
}

// firstOf runs a function on the first element t names, without waiting for
// it: a selector that matches nothing gives it an empty array, a stale ref
// is ELEMENT_NOT_FOUND.
func firstOf(t engine.Target, fn string, args ...any) engine.EvalRequest {
	return engine.EvalRequest{Target: &t, All: true, Function: fn, Args: args}
}

// VerifyElementIn is the input of verify_element.
type VerifyElementIn struct {
	SessionArg
	Role string `json:"role,omitempty" jsonschema:"ARIA role, e.g. button"`
	Name string `json:"name,omitempty" jsonschema:"Accessible name, exact"`
	TargetArg
	State string `json:"state,omitempty" jsonschema:"Default visible,enum=visible,enum=hidden"`
	VerifyArg
}

func (in VerifyElementIn) validate() error {
	switch {
	case in.Role != "" && in.TargetArg.given():
		f := "selector"
		if in.Ref != "" {
			f = "ref"
		}
		return engine.Errorf(engine.InvalidParameters, "give role (and name) or selector or ref, not both").
			With("field", f).With("fields", []string{"role", f})
	case in.Name != "" && in.Role == "":
		return invalid("name", "name needs role: give role and name, e.g. role button and name Save")
	case in.Role == "" && !in.TargetArg.given():
		return engine.Errorf(engine.InvalidParameters, "give role (and name) or selector or ref to name the element").
			With("field", "role").With("fields", []string{"role", "selector", "ref"})
	}
	if err := validTarget(in.Selector, in.Ref, false); err != nil {
		return err
	}
	return oneOf("state", in.State, "visible", "hidden")
}

//go:embed js/verify_visible.js
var verifyVisibleJS string

func verifyElement(d *Deps) Tool {
	return inGroup(Testing, sessionTool(d, "verify_element",
		"Assert that an element, by role and name or by selector/ref, is visible (or hidden with state). Retries until timeout, then ASSERTION_FAILED.", readOnly,
		func(ctx context.Context, s engine.Session, in VerifyElementIn) (VerifyOut, error) {
			state := in.State
			if state == "" {
				state = "visible"
			}
			want := state == "visible"
			if in.Role != "" {
				return verifyRole(ctx, s, in, want)
			}
			tg := in.target()
			e := expectation{what: fmt.Sprintf("%s to be %s", tg, state), expected: state}
			_, err := expect(ctx, in.timeout(), e, func(ctx context.Context) (bool, string, error) {
				r, err := evalInto[[2]bool](ctx, s, firstOf(tg, verifyVisibleJS))
				switch {
				case err != nil:
					return false, "", err
				case !r[0]:
					return !want, noMatch, nil
				case r[1]:
					return want, "visible", nil
				}
				return !want, "hidden", nil
			})
			if err != nil {
				return VerifyOut{}, err
			}
			return passed("%s is %s", tg, state), nil
		}))
}

// verifyRole asserts that an element of in.Role named in.Name (any name
// when none is given) is visible, or with want false that none is. It
// reads the page's outline, which gives every engine, and a browser we
// attached to, our accessibility semantics: an element is visible when its
// line is there and neither it nor a line above it is [offscreen]. The
// outline is of the root element rather than of the page, so that it does
// not become the agent's view of the page (Changes).
func verifyRole(ctx context.Context, s engine.Session, in VerifyElementIn, want bool) (VerifyOut, error) {
	role, name := strings.ToLower(strings.TrimSpace(in.Role)), collapse(in.Name)
	desc := role
	if in.Name != "" {
		desc += " " + strconv.Quote(name)
	}
	state := "visible"
	if !want {
		state = "hidden"
	}
	e := expectation{what: fmt.Sprintf("%s to be %s", desc, state), expected: fmt.Sprintf("%s %s", desc, state)}
	_, err := expect(ctx, in.timeout(), e, func(ctx context.Context) (bool, string, error) {
		r, err := s.Snapshot(ctx, engine.SnapshotRequest{Target: engine.Target{Selector: ":root"}, MaxText: -1})
		if err != nil {
			return false, "", err
		}
		var shown, unseen []string
		for _, m := range outlineMatches(r.Text, role, name, in.Name != "") {
			if m.visible {
				shown = append(shown, m.line)
			} else {
				unseen = append(unseen, m.line)
			}
		}
		if want == (len(shown) > 0) {
			return true, "", nil
		}
		return false, describeMatches(shown, unseen), nil
	})
	if err != nil {
		return VerifyOut{}, err
	}
	return passed("%s is %s", desc, state), nil
}

// describeMatches is the actual of a role assertion that failed: the
// lines of the matching elements, visible or not, or noMatch.
func describeMatches(shown, unseen []string) string {
	var parts []string
	for _, l := range shown {
		parts = append(parts, l+" (visible)")
	}
	for _, l := range unseen {
		parts = append(parts, l+" (hidden)")
	}
	if len(parts) == 0 {
		return noMatch
	}
	const most = 5
	if len(parts) > most {
		parts = append(parts[:most], fmt.Sprintf("and %d more", len(parts)-most))
	}
	return strings.Join(parts, "; ")
}

// outlineMatch is one line of an outline whose role and name matched.
type outlineMatch struct {
	line    string // without indentation
	ref     string // the element's ref, when the outline gave it one
	visible bool
	// inFrame: the element is in an iframe's document; frameRef is then
	// the ref of an element of that same document, when the outline gives
	// one, whose frame chain is the element's own.
	inFrame  bool
	frameRef string
}

// outlineMatches lists the lines of outline of role named name (any name
// when !named), read as find reads them (parseLine), each visible unless
// it or a line that holds it is marked [offscreen].
func outlineMatches(outline, role, name string, named bool) []outlineMatch {
	var out []outlineMatch
	// offAt holds the indentations of the [offscreen] lines that hold the
	// current one; frameAt those of the iframe lines, and frames their
	// numbers (from 1) in firstRef, the first ref of each frame's own
	// document.
	var offAt, frameAt, frames []int
	firstRef := map[int]string{}
	frameOf := map[int]int{} // out's index to its frame's number
	n := 0
	for raw := range strings.SplitSeq(outline, "\n") {
		l := parseLine(raw)
		if l.role == "" {
			continue
		}
		for len(offAt) > 0 && offAt[len(offAt)-1] >= l.indent {
			offAt = offAt[:len(offAt)-1]
		}
		for len(frameAt) > 0 && frameAt[len(frameAt)-1] >= l.indent {
			frameAt, frames = frameAt[:len(frameAt)-1], frames[:len(frames)-1]
		}
		frame := 0
		if len(frames) > 0 {
			frame = frames[len(frames)-1]
			if _, ok := firstRef[frame]; !ok && l.ref != "" {
				firstRef[frame] = l.ref
			}
		}
		if l.role == "iframe" {
			n++
			frameAt, frames = append(frameAt, l.indent), append(frames, n)
		}
		// The marks come before the text, which cannot hold one: the
		// outline quotes a text with a bracket in it.
		head := raw
		if l.textAt >= 0 {
			head = raw[:l.textAt]
		}
		off := strings.Contains(head, "[offscreen]")
		if l.role == role && (!named || collapse(l.name) == name) {
			if frame > 0 {
				frameOf[len(out)] = frame
			}
			out = append(out, outlineMatch{line: strings.TrimSpace(raw), ref: l.ref, visible: !off && len(offAt) == 0})
		}
		if off {
			offAt = append(offAt, l.indent)
		}
	}
	for i, f := range frameOf {
		out[i].inFrame, out[i].frameRef = true, firstRef[f]
	}
	return out
}

// VerifyTextIn is the input of verify_text.
type VerifyTextIn struct {
	SessionArg
	Text  string `json:"text,omitempty" jsonschema:"Substring of the visible text"`
	Regex string `json:"regex,omitempty" jsonschema:"RE2, or /pattern/flags"`
	TargetArg
	VerifyArg
}

func (in VerifyTextIn) validate() error {
	if _, err := patternOf("text", in.Text, in.Regex); err != nil {
		return err
	}
	return validTarget(in.Selector, in.Ref, false)
}

//go:embed js/verify_text.js
var verifyTextJS string

// pageTextJS reads the page's text as verifyTextJS reads an element's:
// that of its body.
var pageTextJS = `() => document.body ? (` + verifyTextJS + `)([document.body]) : ["", ""]`

func verifyText(d *Deps) Tool {
	return inGroup(Testing, sessionTool(d, "verify_text",
		"Assert that the page's visible text (or an element's, by selector/ref) contains text or matches regex. Retries until timeout, then ASSERTION_FAILED.", readOnly,
		func(ctx context.Context, s engine.Session, in VerifyTextIn) (VerifyOut, error) {
			p, _ := patternOf("text", in.Text, in.Regex)
			where, req := "the page", engine.EvalRequest{Function: pageTextJS}
			if in.TargetArg.given() {
				where, req = in.target().String(), firstOf(in.target(), verifyTextJS)
			}
			e := expectation{what: fmt.Sprintf("the text of %s to contain %s", where, p), expected: p.expected()}
			_, err := expect(ctx, in.timeout(), e, func(ctx context.Context) (bool, string, error) {
				// The text as rendered (innerText), and as written, before
				// CSS text-transform, as the exported toContainText reads it.
				t, err := evalInto[*[2]string](ctx, s, req)
				switch {
				case err != nil:
					return false, "", err
				case t == nil:
					return false, noMatch, nil
				}
				return p.contains(t[0]) || p.contains(t[1]), collapse(t[0]), nil
			})
			if err != nil {
				return VerifyOut{}, err
			}
			return passed("the text of %s contains %s", where, p), nil
		}))
}

// maxListItems bounds the items verify_list takes.
const maxListItems = 1000

// VerifyListIn is the input of verify_list.
type VerifyListIn struct {
	SessionArg
	TargetArg
	Items []string `json:"items" jsonschema:"Texts the list's items contain, in order"`
	VerifyArg
}

func (in VerifyListIn) validate() error {
	switch {
	case len(in.Items) == 0:
		return invalid("items", "items must name at least one item's text")
	case len(in.Items) > maxListItems:
		return invalid("items", "items may hold at most %d texts, not %d", maxListItems, len(in.Items))
	}
	return in.TargetArg.validate()
}

//go:embed js/verify_list.js
var verifyListJS string

// maxActualItems is the most item texts a failed verify_list shows.
const maxActualItems = 50

func verifyList(d *Deps) Tool {
	return inGroup(Testing, sessionTool(d, "verify_list",
		"Assert that a list's items (listitem, option) contain items' texts, in this order; others may come between. Retries until timeout, then ASSERTION_FAILED.", readOnly,
		func(ctx context.Context, s engine.Session, in VerifyListIn) (VerifyOut, error) {
			tg := in.target()
			e := expectation{what: fmt.Sprintf("the items of %s to contain %s in order", tg, quoteActual(in.Items)), expected: in.Items}
			_, err := expect(ctx, in.timeout(), e, func(ctx context.Context) (bool, any, error) {
				items, err := evalInto[*[]string](ctx, s, firstOf(tg, verifyListJS))
				switch {
				case err != nil:
					return false, nil, err
				case items == nil:
					return false, noMatch, nil
				}
				got := *items
				if got == nil {
					got = []string{}
				}
				ok := inOrder(got, in.Items)
				if len(got) > maxActualItems {
					got = append(got[:maxActualItems:maxActualItems], fmt.Sprintf("… and %d more", len(got)-maxActualItems))
				}
				return ok, got, nil
			})
			if err != nil {
				return VerifyOut{}, err
			}
			return passed("the items of %s contain the %d texts in order", tg, len(in.Items)), nil
		}))
}

// inOrder reports whether distinct items of got, in order, contain the
// texts of want, in theirs (whitespace collapsed).
func inOrder(got, want []string) bool {
	i := 0
	for _, g := range got {
		if i == len(want) {
			break
		}
		if strings.Contains(collapse(g), collapse(want[i])) {
			i++
		}
	}
	return i == len(want)
}

// VerifyValueIn is the input of verify_value.
type VerifyValueIn struct {
	SessionArg
	TargetArg
	Value string `json:"value" jsonschema:"Field value; select: value or label; checkbox/radio: checked or unchecked" size:"1048576"`
	VerifyArg
}

func (in VerifyValueIn) validate() error { return in.TargetArg.validate() }

// VerifyValueOut is the result of verify_value.
type VerifyValueOut struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
	Kind    string `json:"kind" jsonschema:"What was compared,enum=value,enum=checked,enum=text"`
	Actual  string `json:"actual" jsonschema:"The field's value (a select's option value), checked/unchecked, or text"`
	SessionMeta
}

// fieldState is what verify_value reads of a field (js/verify_value.js).
type fieldState struct {
	Kind   string `json:"kind"`
	Actual string `json:"actual"`
	Label  string `json:"label"`
	Tag    string `json:"tag"`
}

//go:embed js/verify_value.js
var verifyValueJS string

// checkedWords are the values verify_value takes for a checkbox or radio.
var checkedWords = map[string]string{"checked": "checked", "true": "checked", "unchecked": "unchecked", "false": "unchecked"}

func verifyValue(d *Deps) Tool {
	return inGroup(Testing, sessionTool(d, "verify_value",
		"Assert a field's value: input/textarea value, select's value or label, checkbox/radio checked or unchecked, contenteditable text. Retries until timeout, then ASSERTION_FAILED.", readOnly,
		func(ctx context.Context, s engine.Session, in VerifyValueIn) (VerifyValueOut, error) {
			tg := in.target()
			e := expectation{what: fmt.Sprintf("the value of %s to be %q", tg, in.Value), expected: in.Value}
			var last fieldState
			_, err := expect(ctx, in.timeout(), e, func(ctx context.Context) (bool, string, error) {
				f, err := evalInto[*fieldState](ctx, s, firstOf(tg, verifyValueJS))
				switch {
				case err != nil:
					return false, "", err
				case f == nil:
					return false, noMatch, nil
				}
				last = *f
				switch f.Kind {
				case "checked":
					want, ok := checkedWords[strings.ToLower(strings.TrimSpace(in.Value))]
					if !ok {
						return false, "", invalid("value", "%s is a checkbox or radio: value must be checked or unchecked (or true or false), not %q", tg, clip(in.Value))
					}
					return f.Actual == want, f.Actual, nil
				case "text":
					return collapse(f.Actual) == collapse(in.Value), collapse(f.Actual), nil
				case "value":
					return f.Actual == in.Value || f.Label != "" && f.Label == in.Value, f.Actual, nil
				}
				return false, "", engine.Errorf(engine.ElementNotEditable, "%s is a %s, which has no value: verify_value reads inputs, textareas, selects, checkboxes, radios and contenteditable elements", tg, f.Tag).
					With("reason", "no_value").With("tag", f.Tag).Suggest("Use verify_text for the text of other elements.")
			})
			if err != nil {
				return VerifyValueOut{}, err
			}
			actual := last.Actual
			if last.Kind == "text" {
				actual = collapse(actual)
			}
			return VerifyValueOut{Success: true, Message: fmt.Sprintf("the %s of %s is %q", valueNoun(last.Kind), tg, in.Value), Kind: last.Kind, Actual: actual}, nil
		}))
}

func valueNoun(kind string) string {
	switch kind {
	case "checked":
		return "state"
	case "text":
		return "text"
	}
	return "value"
}

// pageLocationJS reads the page's URL and title.
//
//go:embed js/page_location.js
var pageLocationJS string

// VerifyURLIn is the input of verify_url.
type VerifyURLIn struct {
	SessionArg
	URL   string `json:"url,omitempty" jsonschema:"The whole URL" size:"65536"`
	Regex string `json:"regex,omitempty" jsonschema:"RE2, or /pattern/flags"`
	VerifyArg
}

func (in VerifyURLIn) validate() error {
	_, err := patternOf("url", in.URL, in.Regex)
	return err
}

func verifyURL(d *Deps) Tool {
	return inGroup(Testing, sessionTool(d, "verify_url",
		"Assert the page's URL: equal to url, or matching regex. Retries until timeout, then ASSERTION_FAILED.", readOnly,
		func(ctx context.Context, s engine.Session, in VerifyURLIn) (VerifyOut, error) {
			p, _ := patternOf("url", in.URL, in.Regex)
			e := expectation{what: "the URL to be " + p.String(), expected: p.expected()}
			if p.re != nil {
				e.what = "the URL to match " + p.String()
			}
			u, err := expect(ctx, in.timeout(), e, func(ctx context.Context) (bool, string, error) {
				loc, err := evalInto[[2]string](ctx, s, engine.EvalRequest{Function: pageLocationJS})
				if err != nil {
					return false, "", err
				}
				u := loc[0]
				if p.re != nil {
					return p.re.MatchString(u), u, nil
				}
				return u == p.text, u, nil
			})
			if err != nil {
				return VerifyOut{}, err
			}
			return passed("the URL is %s", u), nil
		}))
}

// VerifyTitleIn is the input of verify_title.
type VerifyTitleIn struct {
	SessionArg
	Title string `json:"title,omitempty" jsonschema:"The whole title"`
	Regex string `json:"regex,omitempty" jsonschema:"RE2, or /pattern/flags"`
	VerifyArg
}

func (in VerifyTitleIn) validate() error {
	_, err := patternOf("title", in.Title, in.Regex)
	return err
}

func verifyTitle(d *Deps) Tool {
	return inGroup(Testing, sessionTool(d, "verify_title",
		"Assert the page's title: equal to title (whitespace collapsed), or matching regex. Retries until timeout, then ASSERTION_FAILED.", readOnly,
		func(ctx context.Context, s engine.Session, in VerifyTitleIn) (VerifyOut, error) {
			p, _ := patternOf("title", in.Title, in.Regex)
			e := expectation{what: "the title to be " + p.String(), expected: p.expected()}
			if p.re != nil {
				e.what = "the title to match " + p.String()
			}
			t, err := expect(ctx, in.timeout(), e, func(ctx context.Context) (bool, string, error) {
				loc, err := evalInto[[2]string](ctx, s, engine.EvalRequest{Function: pageLocationJS})
				if err != nil {
					return false, "", err
				}
				return p.equals(loc[1]), loc[1], nil
			})
			if err != nil {
				return VerifyOut{}, err
			}
			return passed("the title is %q", t), nil
		}))
}

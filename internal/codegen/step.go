package codegen

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The actions of a Step: what one tool call did, as Playwright does it.
const (
	Goto        = "goto"
	Back        = "back"
	Forward     = "forward"
	Reload      = "reload"
	Click       = "click"
	Fill        = "fill"
	Type        = "type" // pressSequentially
	Select      = "select"
	Check       = "check"
	Uncheck     = "uncheck"
	Press       = "press" // on Locator, or the page's keyboard without one
	Hover       = "hover"
	ScrollTo    = "scrollTo" // the element into view
	Wheel       = "wheel"    // the page by X,Y
	DragTo      = "dragTo"
	Upload      = "upload"
	MouseClick  = "mouseClick"
	MouseMove   = "mouseMove"
	MouseDrag   = "mouseDrag"
	WaitText    = "waitText"     // Text visible on the page
	WaitGone    = "waitTextGone" // Text no longer visible
	WaitFor     = "waitFor"      // Locator reaches State
	WaitTime    = "waitTime"     // Timeout ms
	WaitLoad    = "waitLoad"     // State: load, domcontentloaded, networkidle
	Comment     = "comment"      // not replayed; Note says why
	Dialog      = "dialog"       // a dialog accepted (Accept, Text a prompt's answer) or dismissed
	ExpectShown = "expectVisible"
	ExpectHide  = "expectHidden"
	ExpectText  = "expectText"   // Text or Regex within Locator, or the page without one
	ExpectList  = "expectList"   // Values, in order, within Locator's ItemRole items
	ExpectValue = "expectValue"  // Text is Locator's value
	ExpectCheck = "expectCheck"  // Locator is checked, or not with Not
	ExpectOwn   = "expectOwnTxt" // Locator's text is Text (a contenteditable's)
	ExpectURL   = "expectURL"
	ExpectTitle = "expectTitle"
)

// Str is a string argument of a step: a literal, or, for a secret, the
// environment variable the test reads it from, so that the secret is
// never written into the code.
type Str struct {
	Lit string `json:"lit,omitempty"`
	Env string `json:"env,omitempty"`
}

// Regex is a Go RE2 pattern with the flags i, m, s.
type Regex struct {
	Pattern string `json:"pattern"`
	Flags   string `json:"flags,omitempty"`
}

// ParseRegex reads a verify tool's regex: "pattern" or "/pattern/flags".
func ParseRegex(s string) Regex {
	if len(s) >= 2 && s[0] == '/' {
		if i := strings.LastIndexByte(s, '/'); i > 0 && strings.Trim(s[i+1:], "ims") == "" {
			return Regex{Pattern: s[1:i], Flags: s[i+1:]}
		}
	}
	return Regex{Pattern: s}
}

// Step is one recorded tool call, rendered as Playwright code: the code
// line of an action's result and a line of an exported test come from the
// same Step, so that they cannot disagree.
type Step struct {
	Action  string   `json:"action"`
	Locator *Locator `json:"locator,omitempty"`
	// To is drag_and_drop's destination.
	To       *Locator `json:"to,omitempty"`
	URL      string   `json:"url,omitempty"`
	Text     Str      `json:"text,omitempty"`
	Regex    *Regex   `json:"regex,omitempty"`
	Values   []string `json:"values,omitempty"`
	Key      string   `json:"key,omitempty"`
	Button   string   `json:"button,omitempty"`
	Count    int      `json:"count,omitempty"`
	Force    bool     `json:"force,omitempty"`
	Not      bool     `json:"not,omitempty"`
	State    string   `json:"state,omitempty"`
	ItemRole string   `json:"itemRole,omitempty"`
	X        float64  `json:"x,omitempty"`
	Y        float64  `json:"y,omitempty"`
	ToX      float64  `json:"toX,omitempty"`
	ToY      float64  `json:"toY,omitempty"`
	Timeout  int      `json:"timeout,omitempty"`
	// Files are Upload's paths relative to the test file's directory.
	Files []string `json:"files,omitempty"`
	// Chooser numbers the native file chooser an action opened (from 1
	// in a session): the action waits for it as it runs, as Playwright's
	// page.waitForEvent('filechooser') does, and the Upload without a
	// Locator that answers it names the same number. An Upload without a
	// Locator has no other way to reach the input: page.setInputFiles
	// takes a selector.
	Chooser int `json:"chooser,omitempty"`
	// Enter presses Enter in Locator after a Fill or Type.
	Enter bool `json:"enter,omitempty"`
	// Accept is a Dialog's answer: accepted, or dismissed.
	Accept bool `json:"accept,omitempty"`
	// Note is a Comment's text: what was done and why it is not replayed.
	Note string `json:"note,omitempty"`
}

// Code renders s in lang as the lines of a test body, without indent.
func (s Step) Code(lang Language) []string {
	if s.Action == Dialog {
		return s.dialogNote(lang)
	}
	if lang == Python {
		return s.withChooserPy(s.python())
	}
	return s.withChooserTS(s.typeScript())
}

// withChooserTS waits for the file chooser an action opens while it runs.
func (s Step) withChooserTS(lines []string) []string {
	if s.Chooser == 0 || s.Action == Upload {
		return lines
	}
	return append([]string{fmt.Sprintf("const fileChooser%d = page.waitForEvent('filechooser');", s.Chooser)}, lines...)
}

func (s Step) withChooserPy(lines []string) []string {
	if s.Chooser == 0 || s.Action == Upload {
		return lines
	}
	out := []string{fmt.Sprintf("with page.expect_file_chooser() as file_chooser_info%d:", s.Chooser)}
	for _, l := range lines {
		out = append(out, "    "+l)
	}
	return append(out, fmt.Sprintf("file_chooser%d = file_chooser_info%d.value", s.Chooser, s.Chooser))
}

// DialogHandler is the line a test runs before the action that opens the
// dialog s answers, so that the dialog is answered as in the session
// (Playwright dismisses a dialog no handler takes).
func (s Step) DialogHandler(lang Language) string {
	if lang == Python {
		switch {
		case !s.Accept:
			return `page.once("dialog", lambda dialog: dialog.dismiss())`
		case s.Text != (Str{}):
			return `page.once("dialog", lambda dialog: dialog.accept(` + s.Text.py() + `))`
		}
		return `page.once("dialog", lambda dialog: dialog.accept())`
	}
	switch {
	case !s.Accept:
		return "page.once('dialog', (dialog) => dialog.dismiss());"
	case s.Text != (Str{}):
		return "page.once('dialog', (dialog) => dialog.accept(" + s.Text.ts() + "));"
	}
	return "page.once('dialog', (dialog) => dialog.accept());"
}

// dialogNote is a Dialog's code line alone: the handler must come before
// the action, whose code line was already given.
func (s Step) dialogNote(lang Language) []string {
	c := "//"
	if lang == Python {
		c = "#"
	}
	verb := "dismissed"
	if s.Accept {
		verb = "accepted"
	}
	return []string{c + " the dialog was " + verb + " here: the exported test runs " + s.DialogHandler(lang) + " before the action that opened it"}
}

// uploadNote is the comment of an Upload without a Locator that no
// recorded action's file chooser leads to.
const uploadNote = "upload_file answered a file chooser that no recorded action opened: not replayed"

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func (s Str) ts() string {
	if s.Env != "" {
		return "process.env." + s.Env
	}
	return TSString(s.Lit)
}

func (s Str) py() string {
	if s.Env != "" {
		return "os.environ[" + PyString(s.Env) + "]"
	}
	return PyString(s.Lit)
}

// leadingFlags matches RE2's flag group at the start of a pattern,
// (?i) or (?is), which JavaScript does not take.
var leadingFlags = regexp.MustCompile(`^\(\?([ims]+)\)`)

// JS renders r as a JavaScript regular expression literal. What RE2
// writes otherwise than JavaScript is rewritten: a leading flag group
// (?i) becomes the literal's flags, a named group (?P<n> is (?<n>, and \A
// and \z, the start and end of the text, become lookarounds; JavaScript
// would refuse the first two (the whole test file would not load) and
// read \A and \z as the letters. A pattern using other RE2 syntax (see
// plain) is written anew from its parsed form, with the u flag.
func (r Regex) JS() string {
	if !r.plain() {
		if re := r.parsed(); re != nil {
			return r.jsFromSyntax(re)
		}
	}
	pattern, flags := r.Pattern, r.Flags
	if m := leadingFlags.FindStringSubmatch(pattern); m != nil {
		pattern = pattern[len(m[0]):]
		for _, f := range m[1] {
			if !strings.ContainsRune(flags, f) {
				flags += string(f)
			}
		}
	}
	var b strings.Builder
	b.WriteByte('/')
	esc := false
	class := false
	rs := []rune(pattern)
	for i, c := range rs {
		switch {
		case esc:
			esc = false
			if !class && c == 'A' {
				b.WriteString(`(?<![\s\S])`)
				continue
			}
			if !class && c == 'z' {
				b.WriteString(`(?![\s\S])`)
				continue
			}
			b.WriteByte('\\')
		case c == '\\':
			esc = true
			continue
		case c == '[':
			class = true
		case c == ']':
			class = false
		case c == '/' && !class:
			b.WriteByte('\\')
		case c == '\n':
			b.WriteString(`\n`)
			continue
		case c == 'P' && !class && i >= 2 && rs[i-1] == '?' && rs[i-2] == '(' && (i < 3 || rs[i-3] != '\\'):
			continue
		}
		b.WriteRune(c)
	}
	if pattern == "" {
		b.WriteString("(?:)")
	}
	b.WriteByte('/')
	b.WriteString(flags)
	return b.String()
}

// Py renders r as a compiled Python regular expression; RE2's \z, the
// end of the text, is Python's \Z. A pattern using other RE2 syntax (see
// plain) is written anew from its parsed form.
func (r Regex) Py() string {
	if !r.plain() {
		if re := r.parsed(); re != nil {
			return r.pyFromSyntax(re)
		}
	}
	var flags []string
	for _, f := range r.Flags {
		flags = append(flags, "re."+map[rune]string{'i': "IGNORECASE", 'm': "MULTILINE", 's': "DOTALL"}[f])
	}
	var p strings.Builder
	esc := false
	for _, c := range r.Pattern {
		if esc && c == 'z' {
			c = 'Z'
		}
		esc = !esc && c == '\\'
		p.WriteRune(c)
	}
	if len(flags) == 0 {
		return "re.compile(" + PyString(p.String()) + ")"
	}
	return "re.compile(" + PyString(p.String()) + ", " + strings.Join(flags, " | ") + ")"
}

func tsList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = TSString(v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func pyList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = PyString(v)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// expected is the text or regex an expectation compares with.
func (s Step) expectedTS() string {
	if s.Regex != nil {
		return s.Regex.JS()
	}
	return s.Text.ts()
}

func (s Step) expectedPy() string {
	if s.Regex != nil {
		return s.Regex.Py()
	}
	return s.Text.py()
}

func (s Step) loc(lang Language) string {
	if s.Locator == nil {
		return "page"
	}
	return s.Locator.In(lang)
}

func commentLines(prefix, note string) []string {
	var out []string
	for _, l := range strings.Split(note, "\n") {
		out = append(out, prefix+" "+l)
	}
	return out
}

func (s Step) typeScript() []string {
	l := s.loc(TypeScript)
	w := func(f string, a ...any) []string { return []string{"await " + fmt.Sprintf(f, a...) + ";"} }
	switch s.Action {
	case Goto:
		return w("page.goto(%s)", TSString(s.URL))
	case Back:
		return w("page.goBack()")
	case Forward:
		return w("page.goForward()")
	case Reload:
		return w("page.reload()")
	case Click:
		var opts []string
		if s.Button != "" && s.Button != "left" {
			opts = append(opts, "button: "+TSString(s.Button))
		}
		if s.Count > 2 {
			opts = append(opts, "clickCount: "+strconv.Itoa(s.Count))
		}
		if s.Force {
			opts = append(opts, "force: true")
		}
		method := "click"
		if s.Count == 2 {
			method = "dblclick"
		}
		if len(opts) > 0 {
			return w("%s.%s({ %s })", l, method, strings.Join(opts, ", "))
		}
		return w("%s.%s()", l, method)
	case Fill, Type:
		m := "fill"
		if s.Action == Type {
			m = "pressSequentially"
		}
		var out []string
		if s.Text != (Str{}) || !s.Enter {
			out = w("%s.%s(%s)", l, m, s.Text.ts())
		}
		if s.Enter {
			out = append(out, w("%s.press('Enter')", l)...)
		}
		return out
	case Select:
		if len(s.Values) == 1 {
			return w("%s.selectOption(%s)", l, TSString(s.Values[0]))
		}
		return w("%s.selectOption(%s)", l, tsList(s.Values))
	case Check:
		return w("%s.check()", l)
	case Uncheck:
		return w("%s.uncheck()", l)
	case Press:
		if s.Locator == nil {
			return w("page.keyboard.press(%s)", TSString(s.Key))
		}
		return w("%s.press(%s)", l, TSString(s.Key))
	case Hover:
		return w("%s.hover()", l)
	case ScrollTo:
		return w("%s.scrollIntoViewIfNeeded()", l)
	case Wheel:
		return w("page.mouse.wheel(%s, %s)", num(s.X), num(s.Y))
	case DragTo:
		return w("%s.dragTo(%s)", l, s.To.TypeScript())
	case Upload:
		fs := make([]string, len(s.Files))
		for i, f := range s.Files {
			fs[i] = "path.join(path.dirname(test.info().file), " + TSString(f) + ")"
		}
		if s.Locator == nil {
			switch {
			case s.Chooser == 0:
				return commentLines("//", uploadNote)
			case len(fs) == 0:
				// The session cancelled it as a user closing the chooser
				// does: the input hears cancel.
				return w("(await fileChooser%d).element().dispatchEvent('cancel')", s.Chooser)
			}
			return w("(await fileChooser%d).setFiles([%s])", s.Chooser, strings.Join(fs, ", "))
		}
		return w("%s.setInputFiles([%s])", l, strings.Join(fs, ", "))
	case MouseClick:
		var opts []string
		if s.Button != "" && s.Button != "left" {
			opts = append(opts, "button: "+TSString(s.Button))
		}
		if s.Count > 1 {
			opts = append(opts, "clickCount: "+strconv.Itoa(s.Count))
		}
		if len(opts) > 0 {
			return w("page.mouse.click(%s, %s, { %s })", num(s.X), num(s.Y), strings.Join(opts, ", "))
		}
		return w("page.mouse.click(%s, %s)", num(s.X), num(s.Y))
	case MouseMove:
		return w("page.mouse.move(%s, %s)", num(s.X), num(s.Y))
	case MouseDrag:
		return []string{
			fmt.Sprintf("await page.mouse.move(%s, %s);", num(s.X), num(s.Y)),
			"await page.mouse.down();",
			fmt.Sprintf("await page.mouse.move(%s, %s);", num(s.ToX), num(s.ToY)),
			"await page.mouse.up();",
		}
	case WaitText:
		return w("expect(page.getByText(%s).first()).toBeVisible()", s.Text.ts())
	case WaitGone:
		return w("expect(page.getByText(%s)).toHaveCount(0)", s.Text.ts())
	case WaitFor:
		if s.State == "" || s.State == "visible" {
			return w("%s.waitFor()", l)
		}
		return w("%s.waitFor({ state: %s })", l, TSString(s.State))
	case WaitTime:
		return w("page.waitForTimeout(%d)", s.Timeout)
	case WaitLoad:
		return w("page.waitForLoadState(%s)", TSString(s.State))
	case ExpectShown:
		return w("expect(%s).toBeVisible()", l)
	case ExpectHide:
		if s.Locator != nil && s.Locator.Visible {
			// Of several elements, none is visible.
			return w("expect(%s).toHaveCount(0)", l)
		}
		return w("expect(%s).toBeHidden()", l)
	case ExpectText:
		if s.Locator == nil {
			l = "page.locator('body')"
		}
		return w("expect(%s).toContainText(%s)", l, s.expectedTS())
	case ExpectList:
		return w("expect(%s.getByRole(%s)).toContainText(%s)", l, TSString(s.ItemRole), tsList(s.Values))
	case ExpectValue:
		return w("expect(%s).toHaveValue(%s)", l, s.expectedTS())
	case ExpectCheck:
		if s.Not {
			return w("expect(%s).not.toBeChecked()", l)
		}
		return w("expect(%s).toBeChecked()", l)
	case ExpectOwn:
		return w("expect(%s).toHaveText(%s)", l, s.expectedTS())
	case ExpectURL:
		return w("expect(page).toHaveURL(%s)", s.expectedTS())
	case ExpectTitle:
		return w("expect(page).toHaveTitle(%s)", s.expectedTS())
	default:
		return commentLines("//", s.Note)
	}
}

func (s Step) python() []string {
	l := s.loc(Python)
	w := func(f string, a ...any) []string { return []string{fmt.Sprintf(f, a...)} }
	switch s.Action {
	case Goto:
		return w("page.goto(%s)", PyString(s.URL))
	case Back:
		return w("page.go_back()")
	case Forward:
		return w("page.go_forward()")
	case Reload:
		return w("page.reload()")
	case Click:
		var opts []string
		if s.Button != "" && s.Button != "left" {
			opts = append(opts, "button="+PyString(s.Button))
		}
		if s.Count > 2 {
			opts = append(opts, "click_count="+strconv.Itoa(s.Count))
		}
		if s.Force {
			opts = append(opts, "force=True")
		}
		method := "click"
		if s.Count == 2 {
			method = "dblclick"
		}
		return w("%s.%s(%s)", l, method, strings.Join(opts, ", "))
	case Fill, Type:
		m := "fill"
		if s.Action == Type {
			m = "press_sequentially"
		}
		var out []string
		if s.Text != (Str{}) || !s.Enter {
			out = w("%s.%s(%s)", l, m, s.Text.py())
		}
		if s.Enter {
			out = append(out, w(`%s.press("Enter")`, l)...)
		}
		return out
	case Select:
		if len(s.Values) == 1 {
			return w("%s.select_option(%s)", l, PyString(s.Values[0]))
		}
		return w("%s.select_option(%s)", l, pyList(s.Values))
	case Check:
		return w("%s.check()", l)
	case Uncheck:
		return w("%s.uncheck()", l)
	case Press:
		if s.Locator == nil {
			return w("page.keyboard.press(%s)", PyString(s.Key))
		}
		return w("%s.press(%s)", l, PyString(s.Key))
	case Hover:
		return w("%s.hover()", l)
	case ScrollTo:
		return w("%s.scroll_into_view_if_needed()", l)
	case Wheel:
		return w("page.mouse.wheel(%s, %s)", num(s.X), num(s.Y))
	case DragTo:
		return w("%s.drag_to(%s)", l, s.To.Python())
	case Upload:
		fs := make([]string, len(s.Files))
		for i, f := range s.Files {
			fs[i] = "os.path.join(os.path.dirname(__file__), " + PyString(f) + ")"
		}
		if s.Locator == nil {
			switch {
			case s.Chooser == 0:
				return commentLines("#", uploadNote)
			case len(fs) == 0:
				return w("file_chooser%d.element.dispatch_event(\"cancel\")", s.Chooser)
			}
			return w("file_chooser%d.set_files([%s])", s.Chooser, strings.Join(fs, ", "))
		}
		return w("%s.set_input_files([%s])", l, strings.Join(fs, ", "))
	case MouseClick:
		var opts []string
		if s.Button != "" && s.Button != "left" {
			opts = append(opts, "button="+PyString(s.Button))
		}
		if s.Count > 1 {
			opts = append(opts, "click_count="+strconv.Itoa(s.Count))
		}
		return w("page.mouse.click(%s)", strings.Join(append([]string{num(s.X), num(s.Y)}, opts...), ", "))
	case MouseMove:
		return w("page.mouse.move(%s, %s)", num(s.X), num(s.Y))
	case MouseDrag:
		return []string{
			fmt.Sprintf("page.mouse.move(%s, %s)", num(s.X), num(s.Y)),
			"page.mouse.down()",
			fmt.Sprintf("page.mouse.move(%s, %s)", num(s.ToX), num(s.ToY)),
			"page.mouse.up()",
		}
	case WaitText:
		return w("expect(page.get_by_text(%s).first).to_be_visible()", s.Text.py())
	case WaitGone:
		return w("expect(page.get_by_text(%s)).to_have_count(0)", s.Text.py())
	case WaitFor:
		if s.State == "" || s.State == "visible" {
			return w("%s.wait_for()", l)
		}
		return w("%s.wait_for(state=%s)", l, PyString(s.State))
	case WaitTime:
		return w("page.wait_for_timeout(%d)", s.Timeout)
	case WaitLoad:
		return w("page.wait_for_load_state(%s)", PyString(s.State))
	case ExpectShown:
		return w("expect(%s).to_be_visible()", l)
	case ExpectHide:
		if s.Locator != nil && s.Locator.Visible {
			return w("expect(%s).to_have_count(0)", l)
		}
		return w("expect(%s).to_be_hidden()", l)
	case ExpectText:
		if s.Locator == nil {
			l = `page.locator("body")`
		}
		return w("expect(%s).to_contain_text(%s)", l, s.expectedPy())
	case ExpectList:
		return w("expect(%s.get_by_role(%s)).to_contain_text(%s)", l, PyString(s.ItemRole), pyList(s.Values))
	case ExpectValue:
		return w("expect(%s).to_have_value(%s)", l, s.expectedPy())
	case ExpectCheck:
		if s.Not {
			return w("expect(%s).not_to_be_checked()", l)
		}
		return w("expect(%s).to_be_checked()", l)
	case ExpectOwn:
		return w("expect(%s).to_have_text(%s)", l, s.expectedPy())
	case ExpectURL:
		return w("expect(page).to_have_url(%s)", s.expectedPy())
	case ExpectTitle:
		return w("expect(page).to_have_title(%s)", s.expectedPy())
	default:
		return commentLines("#", s.Note)
	}
}

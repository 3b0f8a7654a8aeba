package page

import (
	_ "embed"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/seed4af8c199/browsermcp/engine"
)

//go:embed js/snapshot.js
var snapshotJS string

// SnapshotScript returns js/snapshot.js, the in-page walk that builds the
// accessibility outline and keeps the ref registry (window.__bmcp). Every
// engine evaluates it, so that they print the same outline and give out
// refs under the same rules.
func SnapshotScript() string { return snapshotJSQ }

var snapshotJSQ = withQuery(snapshotJS)

// SnapshotArgs are the arguments of SnapshotScript.
type SnapshotArgs struct {
	Prefix          string `json:"prefix"`
	Next            int    `json:"next"`
	Depth           int    `json:"depth"`
	InteractiveOnly bool   `json:"interactiveOnly"`
	// MaxText caps each string of the outline (engine.SnapshotRequest's
	// TextCap); 0: no cap.
	MaxText int    `json:"maxText,omitempty"`
	Kind    string `json:"kind,omitempty"`
	Sel     string `json:"sel,omitempty"`
	// Track makes the walk the agent's view of the document for change
	// tracking (changes.go): set on whole-page walks only.
	Track bool `json:"track,omitempty"`
	// Fresh makes a tracked walk visit every element again, reusing
	// nothing an earlier walk kept: a snapshot, and the changes after an
	// action that can change the page through CSS alone.
	Fresh bool `json:"fresh,omitempty"`
	// Doc and Base name the view the engine holds (View.Doc, View.Gen): a
	// tracked walk of that document answers Clean when nothing changed
	// since, else a Patch to that view's lines.
	Doc  string `json:"doc,omitempty"`
	Base int    `json:"base,omitempty"`
}

// ArgsFor are the SnapshotScript arguments of a snapshot for req, refs
// numbered from next; the engine adds the frame's ref prefix and
// whether the walk reuses nothing (Fresh).
func ArgsFor(req engine.SnapshotRequest, next int) SnapshotArgs {
	return SnapshotArgs{Next: next, Depth: req.Depth, InteractiveOnly: req.InteractiveOnly, MaxText: req.TextCap(), Track: Tracked(req)}
}

// Tracked reports whether a snapshot for req is a walk of the whole page,
// which becomes the agent's view of the document for Changes.
func Tracked(req engine.SnapshotRequest) bool {
	return req.Target == (engine.Target{}) && req.Depth == 0 && !req.InteractiveOnly
}

// SnapshotOutcome is what SnapshotScript returns, decoded from JSON.
type SnapshotOutcome struct {
	Text    string `json:"text"`
	Next    int    `json:"next"`
	Frames  int    `json:"frames"`
	Error   string `json:"error"`
	Message string `json:"message"`
	// URL and Title are the walked document's location and title.
	URL   string `json:"url"`
	Title string `json:"title"`
	// Doc names the walked document in the walk's world, and Gen counts
	// its tracked walks (changes.go).
	Doc string `json:"doc"`
	Gen int    `json:"gen"`
	// Clean says that nothing changed since the view SnapshotArgs named;
	// Patch, in place of Text, gives the lines that differ from it.
	Clean bool   `json:"clean"`
	Patch *Patch `json:"patch"`
	// Transient are the outline text lines ("- text: ...") of what was
	// added since the view a tracked walk follows and went away before
	// it: a toast.
	Transient []string `json:"transient"`
}

// Patch is an outline given as the view it follows, with the lines
// between Head lines and Tail lines of it replaced by Mid.
type Patch struct {
	Head int      `json:"head"`
	Tail int      `json:"tail"`
	Mid  []string `json:"mid"`
}

// Apply returns the outline p makes of the view text, or false when p
// does not fit it.
func (p *Patch) Apply(text string) (string, bool) {
	old := strings.Split(text, "\n")
	if text == "" {
		old = nil
	}
	if p.Head < 0 || p.Tail < 0 || p.Head+p.Tail > len(old) {
		return "", false
	}
	lines := make([]string, 0, p.Head+len(p.Mid)+p.Tail)
	lines = append(lines, old[:p.Head]...)
	lines = append(lines, p.Mid...)
	lines = append(lines, old[len(old)-p.Tail:]...)
	return strings.Join(lines, "\n"), true
}

// frameLine is a line that stands for a cross-origin frame's content.
var frameLine = regexp.MustCompile("^( *)\x01([0-9]+)$")

// refToken counts refs in the outline. A backslash before the closing
// bracket is the page's text, quoted: \[ref=e7\] is no ref.
var refToken = regexp.MustCompile(`\[ref=[^\]\s\\]+\]`)

// SnapshotError classifies a failed SnapshotOutcome for the subtree tg into
// the engine error every engine returns for it; nil when the walk succeeded.
func SnapshotError(out SnapshotOutcome, tg engine.Target) error {
	switch out.Error {
	case "":
		return nil
	case "registry_taken":
		return engine.Errorf(engine.Unsupported, "the page defines window.__bmcp, where this engine keeps the refs of a snapshot in the page's own world: the page may be trying to steer refs").
			Suggest("Use the cdp engine (Chromium), which keeps refs in a world the page cannot reach.")
	case "not_found":
		return engine.Errorf(engine.ElementNotFound, "no element matches %s", tg).With("selector", tg.Selector)
	case "invalid_selector":
		return engine.Errorf(engine.InvalidSelector, "invalid selector %q: %s", tg.Selector, out.Message).
			With("field", "selector").With("reason", out.Message)
	}
	return engine.Errorf(engine.BrowserError, "snapshot failed: %s %s", out.Error, out.Message)
}

// MaxFrameDepth bounds the nesting of cross-origin frames a snapshot walks,
// against pages that nest frames without end.
const MaxFrameDepth = 8

// SpliceFrames replaces each line of out that stands for a cross-origin
// frame by frame's outline of that frame's content (given its index in the
// walk's frame list), indented to the line.
func SpliceFrames(out SnapshotOutcome, frame func(idx int) (string, error)) (string, error) {
	if out.Frames == 0 {
		return out.Text, nil
	}
	lines := strings.Split(out.Text, "\n")
	var b strings.Builder
	for i, line := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		m := frameLine.FindStringSubmatch(line)
		if m == nil {
			b.WriteString(line)
			continue
		}
		idx, _ := strconv.Atoi(m[2])
		text, err := frame(idx)
		if err != nil {
			return "", err
		}
		for j, l := range strings.Split(text, "\n") {
			if j > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(m[1])
			b.WriteString(l)
		}
	}
	return b.String(), nil
}

// TruncateOutline cuts an outline at the last line boundary within max
// characters (0: no limit) and says so, and how to ask for less; it reports
// whether it cut.
func TruncateOutline(text string, max int) (string, bool) {
	if max <= 0 || len(text) <= max {
		return text, false
	}
	cut := strings.LastIndexByte(text[:max], '\n')
	if cut < 0 {
		cut = max
	}
	return text[:cut] + fmt.Sprintf("\n[... truncated: showing %d of %d characters. Narrow it with selector or ref (a subtree), depth, or interactiveOnly:true, or raise maxChars.]", cut, len(text)), true
}

// CountRefs counts the refs an outline shows.
func CountRefs(text string) int { return len(refToken.FindAllStringIndex(text, -1)) }

// syntaxChar reports whether r makes a text be quoted in an outline, as
// the snapshot script decides (SYN there): " \ [ ] | and control and
// bidi characters.
func syntaxChar(r rune) bool {
	switch {
	case r == '"' || r == '\\' || r == '[' || r == ']' || r == '|':
		return true
	case r < 0x20 || r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// collapse turns every run of white space, line separators included,
// into one space and trims the ends, so that no string starts a line.
func collapse(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || r == '\u2028' || r == '\u2029'
	}), " ")
}

// Quote writes s as the snapshot script writes a name: white space
// collapsed, in double quotes, with \ " [ ] escaped by a backslash and
// control and bidi characters as \uXXXX.
func Quote(s string) string {
	s = collapse(s)
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\' || r == '[' || r == ']':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r != '|' && syntaxChar(r):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Text writes s as the snapshot script writes text: white space
// collapsed, and quoted (Quote) only when it holds a character of the
// outline's syntax or is just "…".
func Text(s string) string {
	s = collapse(s)
	if s == "…" || strings.IndexFunc(s, syntaxChar) >= 0 {
		return Quote(s)
	}
	return s
}

// TextCut writes s as Text does, cut at max code points (0: no cap) as
// the snapshot script cuts a string: quoted, and marked "…" [+N chars],
// N the code points left out.
func TextCut(s string, max int) string {
	s = collapse(s)
	if max <= 0 || utf8.RuneCountInString(s) <= max {
		return Text(s)
	}
	r := []rune(s)
	q := Quote(string(r[:max]))
	return q[:len(q)-1] + `…" [+` + strconv.Itoa(len(r)-max) + " chars]"
}

// URLCut writes u as URL does, cut at max code points (0: no cap) as
// the snapshot script cuts a link's URL: marked … [+N chars].
func URLCut(u string, max int) string {
	u = URL(u)
	if max <= 0 || utf8.RuneCountInString(u) <= max {
		return u
	}
	r := []rune(u)
	return string(r[:max]) + "… [+" + strconv.Itoa(len(r)-max) + " chars]"
}

// URL writes u as the snapshot script writes a link's URL: white space,
// " [ ] \ and control and bidi characters percent-encoded, so that it
// reads as one token that no outline syntax hides in.
func URL(u string) string {
	if strings.IndexFunc(u, urlEscaped) < 0 {
		return u
	}
	var b strings.Builder
	for _, r := range u {
		if !urlEscaped(r) {
			b.WriteRune(r)
			continue
		}
		var buf [utf8.UTFMax]byte
		for _, c := range buf[:utf8.EncodeRune(buf[:], r)] {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func urlEscaped(r rune) bool {
	return r != '|' && syntaxChar(r) || unicode.IsSpace(r) || r == '\u2028' || r == '\u2029' || r == '…'
}

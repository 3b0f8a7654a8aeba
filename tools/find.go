package tools

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/seed4af8c199/browsermcp/engine"
)

// find answers with the lines of the page's outline that match, each with
// the lines that place it, so that an agent on a long page pays for the
// few lines it needs rather than for the whole outline (issue 25, §3).
// It takes a whole-page snapshot through the engine, as snapshot does, and
// keeps its refs the same way: a ref find shows works in every later call.

// FindIn is the input of find.
type FindIn struct {
	SessionArg
	Text  string `json:"text,omitempty" jsonschema:"Substring, any case"`
	Regex string `json:"regex,omitempty" jsonschema:"Or RE2"`
	Role  string `json:"role,omitempty" jsonschema:"Only this role"`
	Limit int    `json:"limit,omitempty" jsonschema:"Default 20" range:"0,500"`
}

func (in FindIn) validate() error {
	switch {
	case in.Text != "" && in.Regex != "":
		return engine.Errorf(engine.InvalidParameters, "give either text or regex, not both").
			With("field", "regex").With("fields", []string{"text", "regex"})
	case in.Text == "" && in.Regex == "":
		return engine.Errorf(engine.InvalidParameters, "give text (a substring, any case) or regex (RE2) to match the outline's lines").
			With("field", "text").With("fields", []string{"text", "regex"})
	}
	if in.Regex != "" {
		if _, err := regexp.Compile(in.Regex); err != nil {
			return invalid("regex", "regex %q does not parse: %v", clip(in.Regex), err)
		}
	}
	return nil
}

// findLimit is how many matches find shows unless told otherwise.
const findLimit = 20

// contextText is the most bytes of a context line's text that find shows:
// a paragraph around a link is context, not the answer.
const contextText = 80

// FindOut is the result of find. The text the model reads is the matching
// lines with their context, indented as in the outline, not this JSON.
type FindOut struct {
	Matches []FindMatch `json:"matches"`
	More    int         `json:"more,omitempty" jsonschema:"Matches past limit"`
	Lines   int         `json:"lines" jsonschema:"Lines searched"`
	// excerpt is the text the model reads.
	excerpt string
	SessionMeta
}

// FindMatch is one matching line.
type FindMatch struct {
	Ref     string   `json:"ref,omitempty"`
	Role    string   `json:"role"`
	Name    string   `json:"name,omitempty"`
	Line    string   `json:"line"`
	Context []string `json:"context,omitempty" jsonschema:"Outermost first"`
}

func (o FindOut) text() string { return o.excerpt }

func find(d *Deps) Tool {
	return sessionTool(d, "find",
		"Outline lines matching text or regex, with their context.",
		readOnly,
		func(ctx context.Context, s engine.Session, in FindIn) (FindOut, error) {
			// The cap snapshot prints with: this walk is the agent's
			// view, and changes compare only views printed alike.
			r, err := s.Snapshot(ctx, engine.SnapshotRequest{MaxText: d.SnapshotMaxText})
			if err != nil {
				return FindOut{}, err
			}
			// Refs as snapshot gives them out (ctxrefs.go).
			text := prefixOutline(r.Text, refPrefix(engine.SessionNameFrom(ctx)))
			d.refs.remember(engine.SessionIDFrom(ctx), text)
			return findLines(text, in), nil
		})
}

// findLines is find on an outline.
func findLines(outline string, in FindIn) FindOut {
	var raw []string // an empty page has no line
	if outline != "" {
		raw = strings.Split(outline, "\n")
	}
	lines := make([]outlineLine, len(raw))
	for i, l := range raw {
		lines[i] = parseLine(l)
	}
	parent, heading := outlineTree(lines)

	lower := strings.ToLower(in.Text)
	match := func(s string) bool { return strings.Contains(strings.ToLower(s), lower) }
	if in.Regex != "" {
		match = regexp.MustCompile(in.Regex).MatchString // validate compiled it
	}
	limit := limitOr(in.Limit, findLimit)
	var hits []int
	more := 0
	for i, l := range lines {
		if in.Role != "" && !strings.EqualFold(l.role, in.Role) {
			continue
		}
		if !(l.name != "" && match(l.name)) && !(l.text != "" && match(l.text)) {
			continue
		}
		if len(hits) == limit {
			more++
			continue
		}
		hits = append(hits, i)
	}

	// The context of a line: its ancestors, and the heading that leads
	// each of them and the line among their siblings ("Add to cart" in
	// the list item under the heading "Blue mug"). A heading is led by
	// none: the one before it heads another section.
	contextOf := func(i int) []int {
		var c []int
		for a := i; a >= 0; a = parent[a] {
			if a != i {
				c = append(c, a)
			}
			if h := heading[a]; h >= 0 && lines[a].role != "heading" {
				c = append(c, h)
			}
		}
		slices.Sort(c)
		return c
	}
	shown := map[int]bool{}
	out := FindOut{Lines: len(lines), More: more, Matches: []FindMatch{}}
	for _, i := range hits {
		m := FindMatch{Ref: lines[i].ref, Role: lines[i].role, Name: lines[i].name, Line: strings.TrimLeft(raw[i], " ")}
		for _, c := range contextOf(i) {
			m.Context = append(m.Context, strings.TrimLeft(clipContext(raw[c], lines[c]), " "))
			shown[c] = true
		}
		shown[i] = true
		out.Matches = append(out.Matches, m)
	}

	var b strings.Builder
	// The answer repeats the query, clipped: it may be long.
	what := fmt.Sprintf("text %q", clip(in.Text))
	if in.Regex != "" {
		what = fmt.Sprintf("regex %q", clip(in.Regex))
	}
	if in.Role != "" {
		what += fmt.Sprintf(", role %q", clip(in.Role))
	}
	if len(hits) == 0 {
		fmt.Fprintf(&b, "No line matches %s (searched %d lines).", what, len(lines))
		out.excerpt = b.String()
		return out
	}
	fmt.Fprintf(&b, "%d of %d lines match %s:", len(hits)+more, len(lines), what)
	isHit := map[int]bool{}
	for _, i := range hits {
		isHit[i] = true
	}
	for i := range raw {
		switch {
		case isHit[i]:
			b.WriteString("\n" + raw[i])
		case shown[i]:
			b.WriteString("\n" + clipContext(raw[i], lines[i]))
		}
	}
	if more > 0 {
		fmt.Fprintf(&b, "\n… %d more matches: narrow with role, a longer text or regex, or raise limit (max 500).", more)
	}
	out.excerpt = b.String()
	return out
}

// outlineTree finds each line's parent, the nearest line above it that is
// indented less (-1 at the top), and the heading that leads it: the
// nearest heading above it among its siblings (-1 when none does).
func outlineTree(lines []outlineLine) (parent, heading []int) {
	parent, heading = make([]int, len(lines)), make([]int, len(lines))
	type open struct{ line, indent, heading int }
	stack := []open{{line: -1, indent: -1, heading: -1}} // the root
	for i, l := range lines {
		for len(stack) > 1 && stack[len(stack)-1].indent >= l.indent {
			stack = stack[:len(stack)-1]
		}
		top := &stack[len(stack)-1]
		parent[i], heading[i] = top.line, top.heading
		if l.role == "heading" {
			top.heading = i
		}
		stack = append(stack, open{line: i, indent: l.indent, heading: -1})
	}
	return parent, heading
}

// clipContext cuts the text of a context line (what follows its ": ") to
// contextText bytes; its role, name, attributes and ref stay whole.
func clipContext(raw string, l outlineLine) string {
	if l.textAt < 0 || len(raw)-l.textAt <= contextText {
		return raw
	}
	cut := l.textAt + contextText
	for cut > l.textAt && !utf8.RuneStart(raw[cut]) {
		cut--
	}
	return raw[:cut] + "…"
}

// outlineLine is one line of an outline, read for find.
type outlineLine struct {
	indent int
	role   string
	// name is the quoted name, unescaped; text is what follows ": ", the
	// value or the text, unescaped when quoted.
	name, text string
	ref        string
	// textAt is where text starts in the line, or -1.
	textAt int
}

// parseLine reads an outline line, `- role "name" [attr] [ref=eN] url:
// text`, indented. It is lenient on purpose: it takes a quoted name and
// a quoted text wherever they are, skips what it does not know (a link's
// URL, a mark after the name), and takes the first [ref=...] token, which
// the outline prints before anything that comes from the page but the
// name. A line that is not "- " something is text.
func parseLine(raw string) outlineLine {
	s := strings.TrimLeft(raw, " ")
	l := outlineLine{indent: len(raw) - len(s), textAt: -1}
	base := l.indent
	if !strings.HasPrefix(s, "- ") {
		l.text, l.textAt = s, base
		return l
	}
	s, base = s[2:], base+2
	end := strings.IndexAny(s, " :")
	if end < 0 {
		l.role = s
		return l
	}
	l.role = s[:end]
	for j := end; j < len(s); {
		switch s[j] {
		case ':':
			if j+1 < len(s) && s[j+1] != ' ' {
				j++
				continue
			}
			if j+1 < len(s) {
				l.text, l.textAt = s[j+2:], base+j+2
				if q, n := unquote(l.text); n == len(l.text) {
					l.text = q
				}
			}
			return l
		case '"':
			q, n := unquote(s[j:])
			if l.name == "" {
				l.name = q
			}
			j += max(n, 1)
		case '[':
			k := strings.IndexByte(s[j:], ']')
			if k < 0 {
				return l
			}
			if tok := s[j+1 : j+k]; l.ref == "" && strings.HasPrefix(tok, "ref=") {
				l.ref = tok[len("ref="):]
			}
			j += k + 1
		default:
			j++
		}
	}
	return l
}

// unquote reads the quoted string at the start of s, as the outline
// quotes names and values (a backslash escapes the next byte), and
// returns it and the bytes it took; an unterminated one runs to the end.
func unquote(s string) (string, int) {
	if !strings.HasPrefix(s, `"`) {
		return "", 0
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			}
		case '"':
			return b.String(), i + 1
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), len(s)
}

package enginetest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// outlineNode is one line of an outline as a strict reader takes it: the
// rules README's "Reading a snapshot" gives an agent, and nothing more.
type outlineNode struct {
	Line   string
	Depth  int
	Parent *outlineNode
	Role   string
	Name   string // unescaped
	Named  bool
	Attrs  []string // without ref
	Ref    string
	URL    string
	Value  string   // unescaped text or quoted value after ": "
	Parts  []string // a row's cells, unescaped
	Quoted bool     // Value was quoted
	// Cut holds how many characters a [+N chars] mark says were left out
	// of the name, the URL and the value.
	NameCut, URLCut, ValueCut int
	// PartOff says which of a row's cells are marked [offscreen].
	PartOff []bool
}

// offscreen reports whether the node's line, or an ancestor's, says
// [offscreen].
func (n *outlineNode) offscreen() bool {
	for ; n != nil; n = n.Parent {
		for _, a := range n.Attrs {
			if a == "offscreen" {
				return true
			}
		}
	}
	return false
}

var (
	outlineRole = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9-]*`)
	outlineAttr = regexp.MustCompile(`^(?:[a-z]+(?:=[a-z0-9]+)?)$`)
	outlineRef  = regexp.MustCompile(`^(?:[^\]\s:\\]+:)?(?:f[1-9][0-9]*)?e[1-9][0-9]*$`)
	outlineCut  = regexp.MustCompile(`^ \[\+([1-9][0-9]*) chars\]`)
)

// parseOutline reads every line of an outline strictly: a line is an
// indent of two spaces per level, "- role", an optional quoted name with
// an optional cut mark, [attr]s, an optional [ref=…], a link's URL, and an
// optional ": " with a text, a quoted value or a row's cells. Bare text
// holds none of " \ [ ] |. A line it cannot read is an error: then
// something the page wrote passed for syntax, or the outline broke it.
func parseOutline(text string) ([]*outlineNode, error) {
	var nodes, stack []*outlineNode
	for i, line := range strings.Split(text, "\n") {
		n, err := parseOutlineLine(line)
		if err != nil {
			return nil, fmt.Errorf("line %d %q: %w", i+1, line, err)
		}
		for len(stack) > 0 && stack[len(stack)-1].Depth >= n.Depth {
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 {
			if n.Depth != stack[len(stack)-1].Depth+1 {
				return nil, fmt.Errorf("line %d %q: indented past its parent", i+1, line)
			}
			n.Parent = stack[len(stack)-1]
		} else if n.Depth != 0 && len(nodes) == 0 {
			return nil, fmt.Errorf("line %d %q: the first line is indented", i+1, line)
		}
		stack = append(stack, n)
		nodes = append(nodes, n)
	}
	return nodes, nil
}

func parseOutlineLine(line string) (*outlineNode, error) {
	n := &outlineNode{Line: line}
	s := strings.TrimLeft(line, " ")
	ind := len(line) - len(s)
	if ind%2 != 0 {
		return nil, fmt.Errorf("odd indent")
	}
	n.Depth = ind / 2
	if !strings.HasPrefix(s, "- ") {
		return nil, fmt.Errorf("no \"- \"")
	}
	s = s[2:]
	n.Role = outlineRole.FindString(s)
	if n.Role == "" {
		return nil, fmt.Errorf("no role")
	}
	s = s[len(n.Role):]
	var err error
	if strings.HasPrefix(s, ` "`) {
		n.Named = true
		if n.Name, n.NameCut, s, err = parseQuoted(s[1:]); err != nil {
			return nil, fmt.Errorf("name: %w", err)
		}
	}
	for strings.HasPrefix(s, " [") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return nil, fmt.Errorf("unclosed attribute")
		}
		at := s[2:end]
		s = s[end+1:]
		if ref, ok := strings.CutPrefix(at, "ref="); ok {
			if !outlineRef.MatchString(ref) || n.Ref != "" {
				return nil, fmt.Errorf("bad ref %q", ref)
			}
			n.Ref = ref
			continue
		}
		if n.Ref != "" || !outlineAttr.MatchString(at) {
			return nil, fmt.Errorf("bad attribute %q", at)
		}
		n.Attrs = append(n.Attrs, at)
	}
	// A link's URL: one token, then maybe its cut mark.
	if n.Role == "link" && strings.HasPrefix(s, " ") && !strings.HasPrefix(s, " …") {
		tok := s[1:]
		if i := strings.IndexAny(tok, " "); i >= 0 {
			tok = tok[:i]
		}
		// The colon that opens the text or the children ends the token:
		// "/x: text", "/x:" + ":" before children. A URL may end in a
		// colon itself ("javascript:").
		rest := s[1+len(tok):]
		if strings.HasSuffix(tok, ":") && (rest != "" || strings.HasSuffix(tok, "::")) {
			tok = tok[:len(tok)-1]
		}
		s = s[1+len(tok):]
		if m := outlineCut.FindStringSubmatch(s); m != nil && strings.HasSuffix(tok, "…") {
			n.URLCut, _ = strconv.Atoi(m[1])
			tok = strings.TrimSuffix(tok, "…")
			s = s[len(m[0]):]
		}
		if strings.ContainsAny(tok, "\"[]\\") {
			return nil, fmt.Errorf("URL %q holds syntax", tok)
		}
		n.URL = tok
	}
	switch {
	case s == "", s == ":", s == " …", s == ": …":
		return n, nil
	case !strings.HasPrefix(s, ": "):
		return nil, fmt.Errorf("unreadable %q", s)
	}
	s = s[2:]
	if n.Role == "row" {
		for {
			var p string
			if strings.HasPrefix(s, `"`) {
				if p, _, s, err = parseQuoted(s); err != nil {
					return nil, fmt.Errorf("cell: %w", err)
				}
			} else {
				end := strings.Index(s, " | ")
				if end < 0 {
					end = len(s)
				}
				p, s = s[:end], s[end:]
				p, _ = strings.CutSuffix(p, " [offscreen]")
				if strings.ContainsAny(p, "\"[]\\|") {
					return nil, fmt.Errorf("bare cell %q holds syntax", p)
				}
			}
			off := false
			if rest, ok := strings.CutPrefix(s, " [offscreen]"); ok {
				s, off = rest, true
			}
			n.Parts, n.PartOff = append(n.Parts, p), append(n.PartOff, off)
			if s == "" {
				return n, nil
			}
			rest, ok := strings.CutPrefix(s, " | ")
			if !ok {
				return nil, fmt.Errorf("after a cell: %q", s)
			}
			s = rest
		}
	}
	if strings.HasPrefix(s, `"`) {
		n.Quoted = true
		if n.Value, n.ValueCut, s, err = parseQuoted(s); err != nil {
			return nil, fmt.Errorf("value: %w", err)
		}
		if s != "" {
			return nil, fmt.Errorf("after the value: %q", s)
		}
		return n, nil
	}
	if strings.ContainsAny(s, "\"[]\\|") {
		return nil, fmt.Errorf("bare text %q holds syntax", s)
	}
	n.Value = s
	return n, nil
}

// parseQuoted reads a quoted string at the start of s, escapes \\ \" \[
// \] and \uXXXX, and the cut mark after it (…" [+N chars]); it returns
// the string, the characters the mark says were left out, and the rest.
func parseQuoted(s string) (string, int, string, error) {
	if !strings.HasPrefix(s, `"`) {
		return "", 0, s, fmt.Errorf("no opening quote")
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			rest, cut := s[i+1:], 0
			if m := outlineCut.FindStringSubmatch(rest); m != nil {
				v, ok := strings.CutSuffix(b.String(), "…")
				if !ok {
					return "", 0, s, fmt.Errorf("a cut mark after a string without …")
				}
				cut, _ = strconv.Atoi(m[1])
				return v, cut, rest[len(m[0]):], nil
			}
			return b.String(), 0, rest, nil
		case '\\':
			if i+1 >= len(s) {
				return "", 0, s, fmt.Errorf("dangling backslash")
			}
			i++
			switch e := s[i]; e {
			case '\\', '"', '[', ']':
				b.WriteByte(e)
			case 'u':
				if i+4 >= len(s) {
					return "", 0, s, fmt.Errorf("short \\u")
				}
				r, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
				if err != nil {
					return "", 0, s, fmt.Errorf("bad \\u: %w", err)
				}
				b.WriteRune(rune(r))
				i += 4
			default:
				return "", 0, s, fmt.Errorf("unknown escape \\%c", e)
			}
		case '[', ']':
			return "", 0, s, fmt.Errorf("unescaped %c in a string", c)
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, s, fmt.Errorf("unclosed string")
}

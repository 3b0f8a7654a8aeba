package codegen

import (
	"fmt"
	"regexp/syntax"
	"strings"
	"unicode"
)

// plain reports whether r's pattern uses only RE2 syntax that JS and Py
// rewrite by hand: escapes that mean the same in JavaScript and Python
// (punctuation, \d \w \s \b \n \t ..., \xHH), a leading flag group and
// (?: (?P< (?< groups. Anything else (a POSIX class [[:alpha:]], \Q...\E,
// \pL, \x{41}, \a, an octal escape, a flag group later in the pattern,
// (?U)) reads otherwise there, or does not compile at all: such a
// pattern is rewritten from its parsed form instead.
func (r Regex) plain() bool {
	p := r.Pattern
	if m := leadingFlags.FindString(p); m != "" {
		p = p[len(m):]
	}
	if strings.Contains(p, "[:") {
		return false
	}
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			if i+1 >= len(p) {
				return false
			}
			c := p[i+1]
			switch {
			case c == 'x':
				if i+3 >= len(p) || !isHex(p[i+2]) || !isHex(p[i+3]) {
					return false
				}
			case c < 0x80 && !isAlnum(c):
			case strings.IndexByte("dDwWsSbBntrfvAz", c) >= 0:
			default:
				return false
			}
			i++
		case '(':
			if i+1 < len(p) && p[i+1] == '?' {
				rest := p[i+2:]
				if !strings.HasPrefix(rest, ":") && !strings.HasPrefix(rest, "P<") && !strings.HasPrefix(rest, "<") {
					return false
				}
			}
		}
	}
	return true
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// parsed is r as RE2 reads it, flags included, or nil when it does not
// compile (the verify tools refuse such a pattern before it is recorded).
func (r Regex) parsed() *syntax.Regexp {
	src := r.Pattern
	if r.Flags != "" {
		src = "(?" + r.Flags + ")" + src
	}
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil
	}
	return re.Simplify()
}

// allFold reports whether every literal of re with a letter ignores case,
// and at least one does: the whole pattern then takes the i flag and its
// literals are written as they are. Classes come folded from the parser.
func allFold(re *syntax.Regexp) (all, any bool) {
	all = true
	var walk func(*syntax.Regexp)
	walk = func(re *syntax.Regexp) {
		if re.Op == syntax.OpLiteral {
			for _, c := range re.Rune {
				if unicode.SimpleFold(c) != c {
					if re.Flags&syntax.FoldCase != 0 {
						any = true
					} else {
						all = false
					}
				}
			}
		}
		for _, s := range re.Sub {
			walk(s)
		}
	}
	walk(re)
	return all && any, any
}

// regexWriter writes a parsed RE2 pattern in JavaScript's syntax (with
// the u flag, so that it matches code points as RE2 does) or Python's.
type regexWriter struct {
	py bool
	// fold: the i flag holds for the whole pattern.
	fold bool
	b    strings.Builder
}

// jsFromSyntax renders r, parsed, as a JavaScript literal with the u flag.
func (r Regex) jsFromSyntax(re *syntax.Regexp) string {
	all, _ := allFold(re)
	w := &regexWriter{fold: all}
	w.node(re)
	flags := "u"
	if all {
		flags = "iu"
	}
	s := w.b.String()
	if s == "" {
		s = "(?:)"
	}
	return "/" + s + "/" + flags
}

// pyFromSyntax renders r, parsed, as a compiled Python expression.
func (r Regex) pyFromSyntax(re *syntax.Regexp) string {
	all, _ := allFold(re)
	w := &regexWriter{py: true, fold: all}
	w.node(re)
	if all {
		return "re.compile(" + PyString(w.b.String()) + ", re.IGNORECASE)"
	}
	return "re.compile(" + PyString(w.b.String()) + ")"
}

func (w *regexWriter) node(re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpNoMatch:
		w.b.WriteString(`[^\s\S]`)
	case syntax.OpEmptyMatch:
		w.b.WriteString(`(?:)`)
	case syntax.OpLiteral:
		for _, c := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 && !w.fold && unicode.SimpleFold(c) != c {
				w.class(foldRanges(c), false)
				continue
			}
			if re.Flags&syntax.FoldCase != 0 {
				// The parser keeps the first of the case orbit, an
				// upper-case letter; the i flag takes any.
				c = unicode.ToLower(c)
			}
			w.literal(c)
		}
	case syntax.OpCharClass:
		w.class(re.Rune, true)
	case syntax.OpAnyCharNotNL:
		w.b.WriteString(`[^\n]`)
	case syntax.OpAnyChar:
		w.b.WriteString(`[\s\S]`)
	case syntax.OpBeginLine:
		if w.py {
			w.b.WriteString(`(?m:^)`)
		} else {
			w.b.WriteString(`(?<![^\n])`)
		}
	case syntax.OpEndLine:
		if w.py {
			w.b.WriteString(`(?m:$)`)
		} else {
			w.b.WriteString(`(?![^\n])`)
		}
	case syntax.OpBeginText:
		if w.py {
			w.b.WriteString(`\A`)
		} else {
			w.b.WriteString(`^`)
		}
	case syntax.OpEndText:
		if w.py {
			w.b.WriteString(`\Z`)
		} else {
			w.b.WriteString(`$`)
		}
	case syntax.OpWordBoundary:
		w.b.WriteString(`\b`)
	case syntax.OpNoWordBoundary:
		w.b.WriteString(`\B`)
	case syntax.OpCapture:
		switch {
		case re.Name != "" && w.py:
			w.b.WriteString("(?P<" + re.Name + ">")
		case re.Name != "":
			w.b.WriteString("(?<" + re.Name + ">")
		default:
			w.b.WriteByte('(')
		}
		w.node(re.Sub[0])
		w.b.WriteByte(')')
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		w.atom(re.Sub[0])
		switch re.Op {
		case syntax.OpStar:
			w.b.WriteByte('*')
		case syntax.OpPlus:
			w.b.WriteByte('+')
		case syntax.OpQuest:
			w.b.WriteByte('?')
		default:
			switch {
			case re.Max == -1:
				fmt.Fprintf(&w.b, "{%d,}", re.Min)
			case re.Max == re.Min:
				fmt.Fprintf(&w.b, "{%d}", re.Min)
			default:
				fmt.Fprintf(&w.b, "{%d,%d}", re.Min, re.Max)
			}
		}
		if re.Flags&syntax.NonGreedy != 0 {
			w.b.WriteByte('?')
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if s.Op == syntax.OpAlternate {
				w.group(s)
				continue
			}
			w.node(s)
		}
	case syntax.OpAlternate:
		for i, s := range re.Sub {
			if i > 0 {
				w.b.WriteByte('|')
			}
			w.node(s)
		}
	}
}

// atom writes re so that a repetition after it applies to the whole.
func (w *regexWriter) atom(re *syntax.Regexp) {
	switch {
	case re.Op == syntax.OpLiteral && len(re.Rune) == 1,
		re.Op == syntax.OpCharClass, re.Op == syntax.OpAnyChar, re.Op == syntax.OpAnyCharNotNL,
		re.Op == syntax.OpCapture:
		w.node(re)
	default:
		w.group(re)
	}
}

func (w *regexWriter) group(re *syntax.Regexp) {
	w.b.WriteString("(?:")
	w.node(re)
	w.b.WriteByte(')')
}

func (w *regexWriter) literal(c rune) {
	if c < 0x80 && strings.ContainsRune(`\^$.|?*+()[]{}/`, c) {
		w.b.WriteByte('\\')
		w.b.WriteRune(c)
		return
	}
	w.char(c)
}

// char writes c, escaped when it does not print.
func (w *regexWriter) char(c rune) {
	switch {
	case c == '\n':
		w.b.WriteString(`\n`)
	case c == '\t':
		w.b.WriteString(`\t`)
	case c == '\r':
		w.b.WriteString(`\r`)
	case unicode.IsPrint(c):
		w.b.WriteRune(c)
	case c <= 0xFFFF:
		fmt.Fprintf(&w.b, `\u%04x`, c)
	case w.py:
		fmt.Fprintf(&w.b, `\U%08x`, c)
	default:
		fmt.Fprintf(&w.b, `\u{%x}`, c)
	}
}

// class writes the ranges (pairs lo, hi) as a bracket expression, or its
// complement when that is shorter to read.
func (w *regexWriter) class(ranges []rune, mayNegate bool) {
	if len(ranges) == 0 {
		w.b.WriteString(`[^\s\S]`)
		return
	}
	w.b.WriteByte('[')
	if mayNegate && ranges[0] == 0 && ranges[len(ranges)-1] == unicode.MaxRune {
		w.b.WriteByte('^')
		var neg []rune
		for i := 1; i+1 < len(ranges); i += 2 {
			neg = append(neg, ranges[i]+1, ranges[i+1]-1)
		}
		ranges = neg
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		w.classChar(lo)
		if hi > lo {
			if hi > lo+1 {
				w.b.WriteByte('-')
			}
			w.classChar(hi)
		}
	}
	w.b.WriteByte(']')
}

func (w *regexWriter) classChar(c rune) {
	if c < 0x80 && strings.ContainsRune(`\]^-[/`, c) {
		w.b.WriteByte('\\')
		w.b.WriteRune(c)
		return
	}
	w.char(c)
}

// foldRanges is the class of c and the runes that equal it ignoring case.
func foldRanges(c rune) []rune {
	var rs []rune
	for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
		rs = append(rs, f)
	}
	rs = append(rs, c)
	// Sorted single-rune ranges.
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && rs[j] < rs[j-1]; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
	out := make([]rune, 0, 2*len(rs))
	for _, r := range rs {
		out = append(out, r, r)
	}
	return out
}

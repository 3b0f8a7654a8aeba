package tools

import (
	"context"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"unicode"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
)

// Context-prefixed refs (seed 004, "Parallel operations"). Every ref the
// server hands out for a session with a name other than "default" carries
// that name: [ref=uk:e5], uk:f1e3. Refs of the default context and of
// unnamed sessions stay plain (e5), as before contexts.
//
// A prefixed ref names its context wherever a ref is taken: a call without
// sessionId acts on that context rather than the active one, which lets an
// agent work on two contexts side by side; a call whose sessionId names
// another session is INVALID_PARAMETERS; an unknown prefix is the
// SESSION_NOT_FOUND of an unknown context name. Plain refs keep working on
// every session. The adapter resolves all this once (scopeRefs), before
// the session is looked up; the engines only ever see plain refs.

// maxContextName is the most bytes a session or context name may hold: the
// name is repeated in every ref of its snapshots.
const maxContextName = 64

// checkContextName refuses a name that cannot stand in [ref=NAME:eN]:
// one with whitespace, a control character, ':' (which ends the prefix)
// or a bracket (which ends the ref token). Its size is bounded by the
// argument's size tag.
func checkContextName(name string) error {
	if i := strings.IndexFunc(name, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) || r == ':' || r == '[' || r == ']'
	}); i >= 0 {
		return invalid("name", "name %q may not hold whitespace, control characters, ':', '[' or ']': it prefixes the context's refs (name:e5)", clip(name))
	}
	return nil
}

// refPrefix is what the refs of the session named name carry: "name:", or
// "" for the default context, an unnamed session, or a name that cannot
// stand in a ref (one saved before names were checked).
func refPrefix(name string) string {
	if name == "" || name == sessions.DefaultName || len(name) > maxContextName || checkContextName(name) != nil {
		return ""
	}
	return name + ":"
}

// splitRef splits a context-prefixed ref ("uk:e5") into the context's name
// and the plain ref; ok is false for anything else, which is left as it is.
func splitRef(s string) (name, ref string, ok bool) {
	s = strings.TrimSpace(s)
	i := strings.LastIndexByte(s, ':')
	if i <= 0 || !engine.IsRef(s[i+1:]) {
		return "", "", false
	}
	return s[:i], s[i+1:], true
}

// refLine finds the ref of an outline line: the first [ref=...] after the
// role, the quoted name and the attributes, so that a ref-like text inside
// a name or a text line is never taken for one. An attribute may hold a
// space: a cut name's mark, [+N chars].
var refLine = regexp.MustCompile(`(?m)^( *- [^\s:"\[\]]+(?: "(?:[^"\\\n]|\\.)*")?(?: \[[^\]\n]+\])*?) \[ref=((?:f[1-9][0-9]*)?e[1-9][0-9]*)\]`)

// prefixOutline gives every ref of an outline the prefix.
func prefixOutline(text, prefix string) string {
	if prefix == "" {
		return text
	}
	return refLine.ReplaceAllString(text, "$1 [ref="+strings.ReplaceAll(prefix, "$", "$$")+"$2]")
}

// refArg is one argument of a call that takes a ref.
type refArg struct {
	field string
	val   *string
	// either: the argument takes a selector or a ref (drag_and_drop's
	// source and target), so only a value shaped as a ref is one.
	either bool
}

// refArgs finds the arguments of in (a pointer to a tool's input) that take
// a ref: every string field named "ref" in JSON, and those tagged
// ref:"either", in nested and embedded structs and in arrays of them.
func refArgs(in any) []refArg {
	var out []refArg
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem(), path)
			}
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i), path+"[]")
			}
		case reflect.Struct:
			t := v.Type()
			for i := range t.NumField() {
				f := t.Field(i)
				if !f.IsExported() {
					continue
				}
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if f.Anonymous && name == "" {
					walk(v.Field(i), path)
					continue
				}
				if name == "" {
					name = f.Name
				}
				field := strings.TrimPrefix(path+"."+name, ".")
				if f.Type.Kind() == reflect.String && (name == "ref" || f.Tag.Get("ref") == "either") {
					out = append(out, refArg{field: field, val: v.Field(i).Addr().Interface().(*string), either: f.Tag.Get("ref") == "either"})
					continue
				}
				walk(v.Field(i), field)
			}
		}
	}
	walk(reflect.ValueOf(in), "")
	return out
}

// scoped is what scopeRefs made of a call's refs.
type scoped struct {
	// session is the session the call runs on: its sessionId, or else
	// the context its refs name, or else "" (the active context).
	session string
	// given maps each plain ref the engine gets back to the prefixed ref
	// the caller gave, for the errors that quote it.
	given map[string]string
}

// scopeRefs takes the context prefix off every ref argument of in (a
// pointer to a tool's input) and finds the session the call runs on:
// sessionID when given, which must then be the context the refs name;
// else that context. All prefixed refs of one call must name one context.
func scopeRefs(ctx context.Context, m *sessions.Manager, sessionID string, in any) (scoped, error) {
	sc := scoped{session: sessionID}
	var name, first, firstVal string
	for _, a := range refArgs(in) {
		n, ref, ok := splitRef(*a.val)
		if !ok {
			continue
		}
		switch {
		case name == "":
			name, first, firstVal = n, a.field, *a.val
		case n != name:
			return sc, engine.Errorf(engine.InvalidParameters, "%s names context %q and %s context %q: one call acts in one context", first, name, a.field, n).
				With("field", a.field).With("fields", []string{first, a.field})
		}
		if sc.given == nil {
			sc.given = map[string]string{}
		}
		sc.given[ref] = *a.val
		*a.val = ref
	}
	if name == "" {
		return sc, nil
	}
	c, err := m.Find(ctx, name)
	if err == nil && c.Name != name {
		// An id is no context's name: unnamed sessions hand out plain refs.
		err = engine.Errorf(engine.SessionNotFound, "no session named %q", name)
	}
	if err != nil {
		return sc, refContextErr(noContext(err, name), first)
	}
	if sessionID == "" {
		sc.session = c.ID
		return sc, nil
	}
	s, err := m.Find(ctx, sessionID)
	if err != nil {
		return sc, err
	}
	if s.ID != c.ID {
		return sc, engine.Errorf(engine.InvalidParameters, "%s %q is a ref of context %q, but sessionId names %s", first, firstVal, name, describeSession(s)).
			With("field", first).With("context", name)
	}
	return sc, nil
}

// describeSession names a session for a message: context "name", or its
// id.
func describeSession(i engine.SessionInfo) string {
	if i.Name != "" {
		return fmt.Sprintf("context %q", i.Name)
	}
	return "session " + i.ID
}

// refContextErr adds the field to the error of a ref's unknown context.
func refContextErr(err error, field string) error {
	e := engine.AsError(err)
	if e.Code == engine.SessionNotFound {
		e.With("field", field)
	}
	return e
}

// restore puts back, in an error that quotes a ref (details.ref, and
// "ref eN" in its message), the prefixed ref the caller gave.
func (sc scoped) restore(err error) error {
	if err == nil || len(sc.given) == 0 {
		return err
	}
	e := engine.AsError(err)
	if r, ok := e.Details["ref"].(string); ok {
		if orig, ok := sc.given[r]; ok {
			e.Details["ref"] = orig
		}
	}
	e.Message = sc.restoreText(e.Message)
	return e
}

// restoreText puts back the prefixed refs the caller gave where a message
// of ours names an element by its plain ref ("Clicked ref e8", "ref e8 was
// never given out"; engine.Target.String). Only the first mention of each
// is ours: what follows may quote the page.
func (sc scoped) restoreText(msg string) string {
	for plain, orig := range sc.given {
		loc := regexp.MustCompile(`\bref ` + regexp.QuoteMeta(plain) + `\b`).FindStringIndex(msg)
		if loc != nil {
			msg = msg[:loc[0]] + "ref " + strings.TrimSpace(orig) + msg[loc[1]:]
		}
	}
	return msg
}

// restoreMessage does restoreText on the message of a tool's result.
func (sc scoped) restoreMessage(out any) {
	if len(sc.given) == 0 {
		return
	}
	v := reflect.ValueOf(out).Elem()
	if v.Kind() != reflect.Struct {
		return
	}
	if f := v.FieldByName("Message"); f.IsValid() && f.Kind() == reflect.String && f.CanSet() {
		f.SetString(sc.restoreText(f.String()))
	}
}

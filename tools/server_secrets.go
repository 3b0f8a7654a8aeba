package tools

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/page"
)

// secretTTL bounds how long a password placeholder works.
const secretTTL = 30 * time.Minute

// maxSecretsPerOwner bounds the memory one API key can make us hold.
const maxSecretsPerOwner = 32

// secrets holds values that must not enter the conversation, behind
// placeholders that only their owner can use with the typing tools.
type secrets struct {
	mu    sync.Mutex
	m     map[string]secret
	cache map[string]cachedRedactor // by owner; see redactor
}

type secret struct {
	owner, value string
	expires      time.Time
}

func newSecrets() *secrets { return &secrets{m: map[string]secret{}} }

func (s *secrets) put(owner, value string) (string, error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	handle := "{{secret:" + hex.EncodeToString(b) + "}}"
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	n := 0
	var oldest string
	for h, v := range s.m {
		if now.After(v.expires) {
			delete(s.m, h)
			continue
		}
		if v.owner == owner {
			n++
			if oldest == "" || v.expires.Before(s.m[oldest].expires) {
				oldest = h
			}
		}
	}
	if n >= maxSecretsPerOwner {
		delete(s.m, oldest)
	}
	s.m[handle] = secret{owner: owner, value: value, expires: now.Add(secretTTL)}
	delete(s.cache, owner)
	return handle, nil
}

func (s *secrets) get(owner, handle string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[handle]
	if !ok || v.owner != owner || time.Now().After(v.expires) {
		return "", false
	}
	return v.value, true
}

// minRedacted is the shortest secret value redacted from results: a
// shorter one would also hide ordinary text that happens to contain it.
const minRedacted = 4

// minRedactedPart is the shortest piece of a secret (a slice of it, or of
// it reversed) redacted on its own: at least this many characters and at
// least two thirds of the secret, so that a label such as "Password"
// stays readable while a value with a character or two cut off does not.
const minRedactedPart = 6

// redactor replaces the owner's secret values in text by their
// placeholders; nil when the owner has none. It is rebuilt only when the
// owner's secrets change or one expires.
func (s *secrets) redactor(owner string) *strings.Replacer {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if c, ok := s.cache[owner]; ok && now.Before(c.until) {
		return c.r
	}
	var pairs []string
	until := now.Add(secretTTL)
	for h, v := range s.m {
		if v.owner != owner || now.After(v.expires) || len(v.value) < minRedacted {
			continue
		}
		for _, f := range secretForms(v.value) {
			pairs = append(pairs, f, h)
		}
		if v.expires.Before(until) {
			until = v.expires
		}
	}
	// Longest first: where forms overlap, strings.Replacer takes the
	// first one listed that matches, and the whole value must win over
	// its pieces.
	type pair struct{ form, handle string }
	ps := make([]pair, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		ps = append(ps, pair{pairs[i], pairs[i+1]})
	}
	slices.SortStableFunc(ps, func(a, b pair) int { return len(b.form) - len(a.form) })
	pairs = pairs[:0]
	for _, p := range ps {
		pairs = append(pairs, p.form, p.handle)
	}
	var r *strings.Replacer
	if len(pairs) > 0 {
		r = strings.NewReplacer(pairs...)
	}
	if s.cache == nil {
		s.cache = map[string]cachedRedactor{}
	}
	s.cache[owner] = cachedRedactor{r: r, until: until}
	return r
}

type cachedRedactor struct {
	r     *strings.Replacer
	until time.Time // the owner's first secret to expire, when r goes stale
}

// secretForms lists the text forms in which a result could show the
// secret v: v itself, the usual whole-value encodings a page or script
// applies (base64 also inside a longer encoded text such as a Basic
// Authorization header, hex, URL and HTML escaping, character codes, upper
// and lower case, reversed), the pieces of v and of v reversed of at least
// minRedactedPart characters and two thirds of v, each form as the
// snapshot outline writes it, and each form as it
// appears inside a JSON string. It does not, and cannot, list every
// computation of v: see the README's "Secrets".
func secretForms(v string) []string {
	seen := map[string]bool{}
	var out []string
	one := func(f string) {
		if len(f) < minRedacted || seen[f] {
			return
		}
		seen[f] = true
		out = append(out, f)
		for _, esc := range jsonEscapes(f) {
			if !seen[esc] {
				seen[esc] = true
				out = append(out, esc)
			}
		}
	}
	// Each form, and each as a JSON string holds it (a page may print
	// JSON), also as the outline writes page text: inside quotes, with
	// \ " [ ] escaped (engine/page.Quote), and in a link's URL.
	add := func(f string) {
		for _, g := range append([]string{f}, jsonEscapes(f)...) {
			one(g)
			one(strings.TrimSuffix(strings.TrimPrefix(page.Quote(g), `"`), `"`))
			one(page.URL(g))
		}
	}
	rev := reverse(v)
	for _, w := range []string{v, rev} {
		add(w)
		add(strings.ToUpper(w))
		add(strings.ToLower(w))
		add(hex.EncodeToString([]byte(w)))
		add(strings.ToUpper(hex.EncodeToString([]byte(w))))
		add(url.QueryEscape(w))
		add(url.PathEscape(w))
		add(encodeURIComponent(w))
		add(html.EscapeString(w))
		// As an error message quotes it (%q): an assertion's expected value.
		add(strings.TrimSuffix(strings.TrimPrefix(strconv.Quote(w), `"`), `"`))
		codes := make([]string, 0, len(w))
		for _, r := range w {
			codes = append(codes, strconv.Itoa(int(r)))
		}
		add(strings.Join(codes, ","))
		for _, b64 := range base64Forms([]byte(w)) {
			add(b64)
		}
	}
	// Pieces, by bytes on rune boundaries.
	runes := []rune(v)
	part := max(minRedactedPart, (2*len(runes)+2)/3)
	for _, w := range [][]rune{runes, []rune(rev)} {
		for n := len(w) - 1; n >= part; n-- {
			for i := 0; i+n <= len(w); i++ {
				add(string(w[i : i+n]))
			}
		}
	}
	return out
}

// jsonEscapes is s as it appears inside a JSON string, with and without
// the HTML escaping of <, > and & that encoding/json applies by default.
func jsonEscapes(s string) []string {
	var out []string
	for _, html := range []bool{true, false} {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		if enc.Encode(s) == nil {
			j := strings.TrimSuffix(b.String(), "\n")
			out = append(out, j[1:len(j)-1])
		}
	}
	return out
}

// base64Forms is v in standard and URL-safe base64, padded or not, alone
// and at each of the three alignments it can have inside a longer encoded
// text (less the characters its neighbours change).
func base64Forms(v []byte) []string {
	var out []string
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		out = append(out, enc.EncodeToString(v))
		raw := enc.WithPadding(base64.NoPadding)
		for k := 0; k < 3; k++ {
			e := raw.EncodeToString(append(make([]byte, k), v...))
			// The first ceil(k*8/6) characters mix in the bytes before v;
			// the last character may mix in the bytes after it.
			lead := (k*8 + 5) / 6
			tail := 0
			if (k+len(v))%3 != 0 {
				tail = 1
			}
			if len(e)-tail > lead {
				out = append(out, e[lead:len(e)-tail])
			}
		}
	}
	return out
}

// encodeURIComponent escapes as JavaScript's function does: all but
// A-Z a-z 0-9 - _ . ! ~ * ' ( ).
func encodeURIComponent(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

func reverse(s string) string {
	r := []rune(s)
	slices.Reverse(r)
	return string(r)
}

// redactResult removes the owner's secrets from a tool result: a password
// typed from the authenticate prompt never comes back to the model, from
// get_value, evaluate, a snapshot or any other tool.
func redactResult(r *strings.Replacer, res *mcp.CallToolResult) {
	if r == nil || res == nil {
		return
	}
	var structured string
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			structured = string(b)
			if red := redactJSON(r, structured); red != structured {
				res.StructuredContent = json.RawMessage(red)
			}
		}
	}
	for i, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			if t.Text == structured {
				t.Text = redactJSON(r, t.Text)
			} else {
				t.Text = r.Replace(t.Text)
			}
			res.Content[i] = t
		}
	}
}

// redacted is res with the ctx owner's secrets redacted, for the
// observers: a copy when there is anything to redact, so that the result
// the client gets is redacted once, by the middleware, as before.
func (s *secrets) redacted(ctx context.Context, res *mcp.CallToolResult) *mcp.CallToolResult {
	r := s.redactor(engine.OwnerOf(ctx))
	if r == nil || res == nil {
		return res
	}
	c := *res
	c.Content = slices.Clone(res.Content)
	redactResult(r, &c)
	return &c
}

// redactJSON redacts a JSON text and keeps it JSON: a string is redacted
// in place, and an array, object or number whose JSON shows a secret (the
// character codes [115,51,…] of a password, say) becomes that JSON as a
// redacted string. Text that is not JSON is redacted as text.
func redactJSON(r *strings.Replacer, text string) string {
	// Not a prefilter on text: a string holding quoted text (a snapshot's
	// outline) shows a secret with a quote in it escaped twice.
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return r.Replace(text)
	}
	before, err := json.Marshal(v)
	if err != nil {
		return r.Replace(text)
	}
	after, err := json.Marshal(redactValue(r, v)) // redactValue edits v
	if err != nil {
		return r.Replace(text)
	}
	if string(after) == string(before) {
		return text // as it was, keys in their order
	}
	return string(after)
}

func redactValue(r *strings.Replacer, v any) any {
	switch x := v.(type) {
	case string:
		return r.Replace(x)
	case json.Number:
		if red := r.Replace(x.String()); red != x.String() {
			return red
		}
		return x
	case []any:
		for i := range x {
			x[i] = redactValue(r, x[i])
		}
	case map[string]any:
		for k, e := range x {
			e = redactValue(r, e)
			if rk := r.Replace(k); rk != k {
				delete(x, k)
				k = rk
			}
			x[k] = e
		}
	default:
		return v
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	if red := r.Replace(string(b)); red != string(b) {
		return red
	}
	return v
}

// secretTools may receive placeholders (verify_value to check a field
// typed with one); other tools (evaluate, navigate)
// never see the secret.
var secretTools = []string{"type", "fill", "fill_form", "verify_value"}

// middleware substitutes the caller's placeholders in string arguments of
// the typing tools, and redacts the caller's secrets from every result.
func (s *secrets) middleware(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	substitute := s.substitute(next)
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := substitute(ctx, req)
		redactResult(s.redactor(engine.OwnerOf(ctx)), res)
		return res, err
	}
}

// substitute replaces the caller's placeholders in string arguments of the
// typing tools.
func (s *secrets) substitute(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, ok := req.Params.Arguments.(map[string]any)
		if !ok || !slices.Contains(secretTools, req.Params.Name) {
			return next(ctx, req)
		}
		owner := engine.OwnerOf(ctx)
		var copied map[string]any
		for k, v := range args {
			str, ok := v.(string)
			if !ok || !strings.HasPrefix(str, "{{secret:") {
				continue
			}
			val, ok := s.get(owner, str)
			if !ok {
				return errorResult(invalid(k, "%s is an unknown or expired secret placeholder; get a new one from the authenticate prompt", k)), nil
			}
			if copied == nil {
				copied = make(map[string]any, len(args))
				for k2, v2 := range args {
					copied[k2] = v2
				}
			}
			copied[k] = val
		}
		if copied != nil {
			// The observers see the caller's arguments (observe.go).
			ctx = context.WithValue(ctx, callerArgsKey{}, args)
			req.Params.Arguments = copied
		}
		return next(ctx, req)
	}
}

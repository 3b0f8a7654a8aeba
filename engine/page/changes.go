package page

import (
	"context"
	"regexp"
	"strings"
	"sync"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Change tracking, shared by the engines. The snapshot script, asked to
// track (SnapshotArgs.Track), records in the page whether anything changed
// since its last tracked walk of the document (a MutationObserver, and
// listeners for what changes a field's state without a mutation); Views
// keeps, per document, the outline that walk printed: the agent's last
// view. ChangesOf asks the page first (ProbeScript): when nothing was
// recorded, nothing changed, and no walk is needed. Otherwise it walks the
// page again and diffs the two outlines line by line (Diff).

// ProbeScript is an expression that reads the change-tracking state of the
// document in the world it runs in: null before a tracked walk, else
// {doc, gen, dirty, url, title}.
const ProbeScript = `(() => {
  const R = window.__bmcp;
  if (!R || !R.mo) return null;
  R.note(R.mo.takeRecords());
  if (R.fields() !== R.fieldState) R.dirty = true;
  return { doc: R.doc, gen: R.gen, dirty: R.dirty, url: document.location.href, title: document.title };
})()`

// Probe is ProbeScript's answer.
type Probe struct {
	Doc   string `json:"doc"`
	Gen   int    `json:"gen"`
	Dirty bool   `json:"dirty"`
	URL   string `json:"url"`
	Title string `json:"title"`
}

// View is the outline a tracked walk of one document printed, with its
// cross-origin frames spliced in.
type View struct {
	Doc string
	// Gen is the document's count of tracked walks after this one.
	Gen int
	// Frames is how many cross-origin frames the walk of the top document
	// found; their documents record their changes in their own worlds, so
	// a view with frames is always walked again.
	Frames int
	Text   string
}

// maxViews is how many documents' views a tab keeps: the agent may come
// back to a document through history (bfcache) or another tab.
const maxViews = 8

// Views keeps the agent's last view of each of a tab's documents.
type Views struct {
	mu    sync.Mutex
	views []View // the most recent last
}

// Set makes v the view of its document.
func (vs *Views) Set(v View) {
	if v.Doc == "" {
		return
	}
	vs.mu.Lock()
	defer vs.mu.Unlock()
	vs.views = append(vs.drop(v.Doc), v)
	if len(vs.views) > maxViews {
		vs.views = vs.views[1:]
	}
}

func (vs *Views) drop(doc string) []View {
	out := vs.views[:0]
	for _, v := range vs.views {
		if v.Doc != doc {
			out = append(out, v)
		}
	}
	return out
}

// Get returns the view of document doc.
func (vs *Views) Get(doc string) (View, bool) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	for _, v := range vs.views {
		if v.Doc == doc {
			return v, true
		}
	}
	return View{}, false
}

// last is the document of the most recent view.
func (vs *Views) last() string {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if len(vs.views) == 0 {
		return ""
	}
	return vs.views[len(vs.views)-1].Doc
}

// Walked is a whole-page walk: the spliced outline and the document it is of.
type Walked struct {
	Text   string
	Doc    string
	Gen    int
	Frames int
	URL    string
	Title  string
}

// ChangeWalker is what an engine gives ChangesOf: a probe of the top
// document's tracking state (ok false when the page has none), and a walk
// of the whole page, tracked (the new view; fresh: reusing nothing an
// earlier walk kept) or, for an outline, interactive only.
type ChangeWalker interface {
	Probe(ctx context.Context) (p Probe, ok bool, err error)
	Walk(ctx context.Context, interactiveOnly, fresh bool) (Walked, error)
}

// ChangesOf answers engine.Session.Changes for a tab whose views are vs.
func ChangesOf(ctx context.Context, vs *Views, w ChangeWalker, req engine.ChangesRequest) (engine.ChangesResult, error) {
	p, ok, err := w.Probe(ctx)
	if err != nil {
		return engine.ChangesResult{}, err
	}
	if ok && !req.Full && !p.Dirty {
		if v, seen := vs.Get(p.Doc); seen && v.Gen == p.Gen && v.Frames == 0 {
			vs.Set(v) // the most recent again
			return engine.ChangesResult{URL: p.URL, Title: p.Title}, nil
		}
	}
	last := vs.last()
	now, err := w.Walk(ctx, false, req.Full)
	if err != nil {
		return engine.ChangesResult{}, err
	}
	res := engine.ChangesResult{URL: now.URL, Title: now.Title}
	before, seen := vs.Get(now.Doc)
	vs.Set(View{Doc: now.Doc, Gen: now.Gen, Frames: now.Frames, Text: now.Text})
	if seen {
		res.Changes = Diff(before.Text, now.Text)
		return res, nil
	}
	res.Fresh = engine.FreshNoView
	if last != "" && last != now.Doc {
		res.Fresh = engine.FreshNavigated
	}
	o, err := w.Walk(ctx, true, false)
	if err != nil {
		return engine.ChangesResult{}, err
	}
	res.Outline = o.Text
	return res, nil
}

// lineHead parses an outline line without its indentation: the role, the
// quoted name, and the bracketed attributes up to and with the ref.
var lineHead = regexp.MustCompile(`^- ([^\s:"\[\]]+)(?: "((?:[^"\\]|\\.)*)")?((?: \[[^\]\s]+\])*)`)

// refAttr finds the ref among a line's attributes.
var refAttr = regexp.MustCompile(`\[ref=([^\]\s]+)\]`)

// contextRoles are the roles whose line places a change: the dialogs,
// landmarks, headings, lists, tables, forms and frames that hold it.
var contextRoles = map[string]bool{
	"dialog": true, "alertdialog": true, "banner": true, "navigation": true, "main": true, "contentinfo": true,
	"complementary": true, "search": true, "form": true, "region": true, "heading": true, "list": true,
	"table": true, "grid": true, "treegrid": true, "iframe": true, "tablist": true, "tabpanel": true, "menu": true,
	"menubar": true, "listbox": true, "tree": true, "toolbar": true, "radiogroup": true,
}

// line is one parsed outline line.
type line struct {
	raw    string // as printed, indentation included
	indent int
	body   string // without indentation
	role   string
	name   string
	ref    string
	head   string // role, name and attributes: the line as a context
}

func parseLines(text string) []line {
	if text == "" {
		return nil
	}
	raw := strings.Split(text, "\n")
	out := make([]line, len(raw))
	for i, r := range raw {
		body := strings.TrimLeft(r, " ")
		l := line{raw: r, indent: len(r) - len(body), body: body}
		if m := lineHead.FindStringSubmatch(body); m != nil {
			l.role, l.head = m[1], m[0]
			l.name = strings.ReplaceAll(strings.ReplaceAll(m[2], `\"`, `"`), `\\`, `\`)
			if r := refAttr.FindStringSubmatch(m[3]); r != nil {
				l.ref = r[1]
			}
			if l.role == "text" {
				l.name = strings.TrimPrefix(body, "- text: ")
			}
		}
		out[i] = l
	}
	return out
}

// contexts gives each line the index of the nearest line above it, by
// indentation, whose role places a change; -1 for none.
func contexts(ls []line) []int {
	out := make([]int, len(ls))
	type open struct{ indent, ctx int }
	var stack []open
	for i, l := range ls {
		for len(stack) > 0 && stack[len(stack)-1].indent >= l.indent {
			stack = stack[:len(stack)-1]
		}
		ctx := -1
		if len(stack) > 0 {
			ctx = stack[len(stack)-1].ctx
		}
		out[i] = ctx
		own := ctx
		if contextRoles[l.role] {
			own = i
		}
		stack = append(stack, open{l.indent, own})
	}
	return out
}

// maxEdits bounds the edit script Diff searches for; past it, the
// outlines are compared as sets of lines.
const maxEdits = 500

// Diff returns the lines that appeared, went away or changed from the
// outline old to the outline now, in page order. A removed and an added
// line with the same ref are one change of that element, and so are a
// removed and an added line of the same role and indentation in the same
// run of edits (a text that changed where it stands).
func Diff(old, now string) []engine.Change {
	a, b := parseLines(old), parseLines(now)
	ops := editScript(a, b)
	ca, cb := contexts(a), contexts(b)
	ctxOf := func(ls []line, cs []int, i int) string {
		if c := cs[i]; c >= 0 {
			return ls[c].head
		}
		return ""
	}
	var out []engine.Change
	// Pair removed and added lines by ref across the whole script.
	addedRef := map[string]int{}
	for _, o := range ops {
		if o.kind == opAdd && b[o.j].ref != "" {
			addedRef[b[o.j].ref] = o.j
		}
	}
	pairedAdd := map[int]bool{}
	removedTo := map[int]int{} // removed line -> the added line it became
	for _, o := range ops {
		if o.kind == opDel && a[o.i].ref != "" {
			if j, ok := addedRef[a[o.i].ref]; ok && !pairedAdd[j] {
				pairedAdd[j], removedTo[o.i] = true, j
			}
		}
	}
	// Pair the rest within each run of edits.
	for s := 0; s < len(ops); {
		if ops[s].kind == opSame {
			s++
			continue
		}
		e := s
		for e < len(ops) && ops[e].kind != opSame {
			e++
		}
		var dels, adds []int
		for _, o := range ops[s:e] {
			if o.kind == opDel && a[o.i].ref == "" {
				dels = append(dels, o.i)
			} else if o.kind == opAdd && b[o.j].ref == "" && !pairedAdd[o.j] {
				adds = append(adds, o.j)
			}
		}
		for _, i := range dels {
			for k, j := range adds {
				if j >= 0 && a[i].role == b[j].role && a[i].indent == b[j].indent && a[i].role != "" {
					pairedAdd[j], removedTo[i] = true, j
					adds[k] = -1
					break
				}
			}
		}
		s = e
	}
	changedAt := map[int]int{} // added line -> the removed line it replaced
	for i, j := range removedTo {
		changedAt[j] = i
	}
	for _, o := range ops {
		switch o.kind {
		case opDel:
			if _, ok := removedTo[o.i]; ok {
				continue
			}
			l := a[o.i]
			out = append(out, engine.Change{Kind: engine.ChangeRemoved, Ref: l.ref, Role: l.role, Name: l.name, Old: l.body, Context: ctxOf(a, ca, o.i)})
		case opAdd:
			l := b[o.j]
			c := engine.Change{Kind: engine.ChangeAdded, Ref: l.ref, Role: l.role, Name: l.name, New: l.body, Context: ctxOf(b, cb, o.j)}
			if i, ok := changedAt[o.j]; ok {
				if a[i].body == l.body {
					continue // only its indentation or place moved
				}
				c.Kind, c.Old = engine.ChangeChanged, a[i].body
			}
			out = append(out, c)
		}
	}
	return out
}

type opKind uint8

const (
	opSame opKind = iota
	opDel
	opAdd
)

// op is one step of an edit script: line i of the old outline kept as
// line j of the new, deleted (i), or added (j).
type op struct {
	kind opKind
	i, j int
}

// editScript is a shortest edit script from a to b (Myers' O(ND)
// algorithm) after their common head and tail, compared by the lines as
// printed; past maxEdits it is the lines of a missing from b, and of b
// missing from a, counted as multisets.
func editScript(a, b []line) []op {
	var ops []op
	p := 0
	for p < len(a) && p < len(b) && a[p].raw == b[p].raw {
		ops = append(ops, op{opSame, p, p})
		p++
	}
	sa, sb := len(a), len(b)
	for sa > p && sb > p && a[sa-1].raw == b[sb-1].raw {
		sa--
		sb--
	}
	mid, ok := myers(a[p:sa], b[p:sb], p)
	if !ok {
		mid = setDiff(a[p:sa], b[p:sb], p)
	}
	ops = append(ops, mid...)
	for k := 0; sa+k < len(a); k++ {
		ops = append(ops, op{opSame, sa + k, sb + k})
	}
	return ops
}

func myers(a, b []line, off int) ([]op, bool) {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		var ops []op
		for i := range a {
			ops = append(ops, op{kind: opDel, i: off + i})
		}
		for j := range b {
			ops = append(ops, op{kind: opAdd, j: off + j})
		}
		return ops, true
	}
	maxD := min(n+m, maxEdits)
	size := 2*maxD + 3
	v := make([]int, size)
	var trace [][]int
	o := maxD + 1
	found := -1
	for d := 0; d <= maxD && found < 0; d++ {
		// Keep the part of v this round can read: diagonals -d..d.
		snap := make([]int, 2*d+3)
		copy(snap, v[o-d-1:o+d+2])
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[o+k-1] < v[o+k+1] {
				x = v[o+k+1]
			} else {
				x = v[o+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x].raw == b[y].raw {
				x++
				y++
			}
			v[o+k] = x
			if x >= n && y >= m {
				found = d
				break
			}
		}
	}
	if found < 0 {
		return nil, false
	}
	// Walk back through the rounds.
	var rev []op
	x, y := n, m
	for d := found; d > 0; d-- {
		vd := trace[d] // v before round d: index k maps to vd[k+d+1]
		at := func(k int) int { return vd[k+d+1] }
		k := x - y
		var pk int
		if k == -d || k != d && at(k-1) < at(k+1) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			x--
			y--
			rev = append(rev, op{opSame, off + x, off + y})
		}
		if pk == k+1 {
			y--
			rev = append(rev, op{kind: opAdd, j: off + y})
		} else {
			x--
			rev = append(rev, op{kind: opDel, i: off + x})
		}
	}
	for x > 0 && y > 0 {
		x--
		y--
		rev = append(rev, op{opSame, off + x, off + y})
	}
	ops := make([]op, len(rev))
	for i, o := range rev {
		ops[len(rev)-1-i] = o
	}
	return ops, true
}

// setDiff is the fallback of an edit script too long to search: each
// line of a not matched by an equal line of b is deleted, then each line
// of b not matched is added.
func setDiff(a, b []line, off int) []op {
	count := map[string]int{}
	for _, l := range b {
		count[l.raw]++
	}
	var ops []op
	for i, l := range a {
		if count[l.raw] > 0 {
			count[l.raw]--
			continue
		}
		ops = append(ops, op{kind: opDel, i: off + i})
	}
	count = map[string]int{}
	for _, l := range a {
		count[l.raw]++
	}
	for j, l := range b {
		if count[l.raw] > 0 {
			count[l.raw]--
			continue
		}
		ops = append(ops, op{kind: opAdd, j: off + j})
	}
	return ops
}

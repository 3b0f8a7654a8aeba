package page

import (
	"context"
	"regexp"
	"strings"
	"sync"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Change tracking, shared by the engines. The snapshot script, asked to
// track (SnapshotArgs.Track), records in the page what changed since its
// last tracked walk of the document (a MutationObserver, and listeners for
// what changes a field's state without a mutation); Views keeps, per
// document, the outline that walk printed: the agent's last view.
// ChangesOf walks again, naming the view it holds (SnapshotArgs.Doc and
// Base): the page answers at once that nothing changed when it recorded
// nothing, or else walks only what changed and answers the lines that
// differ from the view (Patch); ChangesOf diffs the two outlines (Diff).

// View is the outline a tracked walk of one document printed, with its
// cross-origin frames spliced in.
type View struct {
	Doc string
	// Gen is the document's count of tracked walks after this one.
	Gen int
	// Frames is how many cross-origin frames the walk of the top document
	// found; their documents record their changes in their own worlds, so
	// a view with frames is always walked again, in full.
	Frames int
	// Cap is the cap on one string the outline was printed with
	// (engine.SnapshotRequest.TextCap).
	Cap  int
	Text string
}

// maxViews is how many documents' views a tab keeps: the agent may come
// back to a document through history (bfcache) or another tab.
const maxViews = 8

// Views keeps the agent's last view of each of a tab's documents.
type Views struct {
	mu    sync.Mutex
	views []View // the most recent last
}

// Set makes v the view of its document, and the most recent.
func (vs *Views) Set(v View) {
	if v.Doc == "" {
		return
	}
	vs.mu.Lock()
	defer vs.mu.Unlock()
	out := vs.views[:0]
	for _, w := range vs.views {
		if w.Doc != v.Doc {
			out = append(out, w)
		}
	}
	vs.views = append(out, v)
	if len(vs.views) > maxViews {
		vs.views = vs.views[1:]
	}
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

// latest is the most recent view.
func (vs *Views) latest() (View, bool) {
	vs.mu.Lock()
	defer vs.mu.Unlock()
	if len(vs.views) == 0 {
		return View{}, false
	}
	return vs.views[len(vs.views)-1], true
}

// Walked is a whole-page walk: the spliced outline, or Clean (nothing
// changed since the view WalkArgs named) or a Patch to that view; and
// the document it is of.
type Walked struct {
	Text  string
	Clean bool
	Patch *Patch
	// Transient are text lines that appeared and went away since the
	// view (SnapshotOutcome.Transient).
	Transient []string
	Doc       string
	Gen       int
	Frames    int
	URL       string
	Title     string
}

// WalkArgs ask a ChangeWalker for a walk of the whole page: tracked (the
// new view, naming the view it follows in Doc and Base; Fresh: reusing
// nothing earlier walks kept), or, for an outline, InteractiveOnly and
// untracked.
type WalkArgs struct {
	InteractiveOnly bool
	Fresh           bool
	Doc             string
	Base            int
	// MaxText is the cap on one string (engine.SnapshotRequest.TextCap).
	MaxText int
}

// Args are the SnapshotScript arguments of the walk a asks for, refs
// numbered from next; a walk of the whole outline is tracked.
func (a WalkArgs) Args(next int) SnapshotArgs {
	return SnapshotArgs{Next: next, InteractiveOnly: a.InteractiveOnly, MaxText: a.MaxText, Track: !a.InteractiveOnly,
		Fresh: a.Fresh, Doc: a.Doc, Base: a.Base}
}

// Walked is what a walk's outcome tells ChangesOf, before an engine
// splices its cross-origin frames into Text.
func (out SnapshotOutcome) Walked() Walked {
	return Walked{Clean: out.Clean, Patch: out.Patch, Transient: out.Transient, Doc: out.Doc, Gen: out.Gen,
		Frames: out.Frames, URL: out.URL, Title: out.Title}
}

// ChangeWalker is what an engine gives ChangesOf: a walk of the tab's
// whole page, its cross-origin frames spliced in.
type ChangeWalker interface {
	Walk(ctx context.Context, a WalkArgs) (Walked, error)
}

// ChangesOf answers engine.Session.Changes for a tab whose views are vs.
func ChangesOf(ctx context.Context, vs *Views, w ChangeWalker, req engine.ChangesRequest) (engine.ChangesResult, error) {
	tc := engine.SnapshotRequest{MaxText: req.MaxText}.TextCap()
	a := WalkArgs{Fresh: req.Full, MaxText: tc}
	last, ok := vs.latest()
	if ok && last.Frames == 0 && last.Cap == tc {
		a.Doc, a.Base = last.Doc, last.Gen
	}
	now, err := w.Walk(ctx, a)
	if err != nil {
		return engine.ChangesResult{}, err
	}
	res := engine.ChangesResult{URL: now.URL, Title: now.Title}
	if now.Clean {
		return res, nil
	}
	text := now.Text
	if now.Patch != nil {
		t, fits := now.Patch.Apply(last.Text)
		if now.Doc != last.Doc || !fits {
			return engine.ChangesResult{}, engine.Errorf(engine.BrowserError, "the page answered changes to another view than the one held")
		}
		text = t
	}
	before, seen := vs.Get(now.Doc)
	vs.Set(View{Doc: now.Doc, Gen: now.Gen, Frames: now.Frames, Cap: tc, Text: text})
	if seen && before.Cap == tc {
		res.Changes = append(Diff(before.Text, text), transients(now.Transient)...)
		return res, nil
	}
	res.Fresh = engine.FreshNoView
	if ok && last.Doc != now.Doc {
		res.Fresh = engine.FreshNavigated
	}
	o, err := w.Walk(ctx, WalkArgs{InteractiveOnly: true, MaxText: tc})
	if err != nil {
		return engine.ChangesResult{}, err
	}
	res.Outline = o.Text
	return res, nil
}

// transients are the changes of the text lines the page printed of what
// appeared and went away since the view. A line that is not one outline
// text line is not the walk's, and is dropped.
func transients(lines []string) []engine.Change {
	var out []engine.Change
	for _, l := range lines {
		if !strings.HasPrefix(l, "- text: ") || strings.ContainsAny(l, "\n\r") {
			continue
		}
		p := newOutline(l).at(0)
		out = append(out, engine.Change{Kind: engine.ChangeTransient, Role: p.role, Name: p.name, Old: p.body})
	}
	return out
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
	indent int
	body   string // without indentation
	role   string
	name   string
	ref    string
	head   string // role, name and attributes: the line as a context
}

// outline is an outline's lines, parsed as they are asked for: a diff
// reads the lines that changed and the lines that hold them, not the page.
type outline struct {
	raw    []string
	parsed map[int]line
}

func newOutline(text string) *outline {
	o := &outline{parsed: map[int]line{}}
	if text != "" {
		o.raw = strings.Split(text, "\n")
	}
	return o
}

func indentOf(r string) int {
	n := 0
	for n < len(r) && r[n] == ' ' {
		n++
	}
	return n
}

func (o *outline) at(i int) line {
	if l, ok := o.parsed[i]; ok {
		return l
	}
	r := o.raw[i]
	body := r[indentOf(r):]
	l := line{indent: len(r) - len(body), body: body}
	if m := lineHead.FindStringSubmatch(body); m != nil {
		l.role, l.head = m[1], m[0]
		l.name = strings.ReplaceAll(strings.ReplaceAll(m[2], `\"`, `"`), `\\`, `\`)
		if r := refAttr.FindStringSubmatch(m[3]); r != nil {
			l.ref = r[1]
		}
		if l.role == "text" {
			// What follows "- text: " or "- text [offscreen]: ".
			if _, t, ok := strings.Cut(body, ": "); ok {
				l.name = t
			}
		}
	}
	o.parsed[i] = l
	return l
}

// context is the head of the nearest line above line i, by indentation,
// whose role places a change; "" for none.
func (o *outline) context(i int) string {
	cur := indentOf(o.raw[i])
	for j := i - 1; j >= 0 && cur > 0; j-- {
		ind := indentOf(o.raw[j])
		if ind >= cur {
			continue
		}
		cur = ind
		if l := o.at(j); contextRoles[l.role] {
			return l.head
		}
	}
	return ""
}

// maxEdits bounds the edit script Diff searches for; past it, the
// outlines are compared as sets of lines.
const maxEdits = 500

// maxPairs bounds the removed and added lines of one run of edits that
// Diff tries to pair as changed lines.
const maxPairs = 1 << 24

// Diff returns the lines that appeared, went away or changed from the
// outline old to the outline now, in page order. A removed and an added
// line with the same ref are one change of that element, and so are a
// removed and an added line of the same role and indentation in the same
// run of edits (a text that changed where it stands). It parses only the
// lines that changed and the lines that hold them.
func Diff(old, now string) []engine.Change {
	a, b := newOutline(old), newOutline(now)
	ops := editScript(a.raw, b.raw)
	var out []engine.Change
	// Pair removed and added lines by ref across the whole script.
	addedRef := map[string]int{}
	for _, o := range ops {
		if o.kind == opAdd {
			if r := b.at(o.j).ref; r != "" {
				addedRef[r] = o.j
			}
		}
	}
	pairedAdd := map[int]bool{}
	removedTo := map[int]int{} // removed line -> the added line it became
	for _, o := range ops {
		if o.kind == opDel {
			if r := a.at(o.i).ref; r != "" {
				if j, ok := addedRef[r]; ok && !pairedAdd[j] {
					pairedAdd[j], removedTo[o.i] = true, j
				}
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
			if o.kind == opDel && a.at(o.i).ref == "" {
				dels = append(dels, o.i)
			} else if o.kind == opAdd && b.at(o.j).ref == "" && !pairedAdd[o.j] {
				adds = append(adds, o.j)
			}
		}
		if len(dels)*len(adds) > maxPairs {
			// A page rebuilt whole: its lines read as removed and added.
			dels = nil
		}
		for _, i := range dels {
			li := a.at(i)
			for k, j := range adds {
				if j < 0 {
					continue
				}
				if lj := b.at(j); li.role != "" && li.role == lj.role && li.indent == lj.indent {
					pairedAdd[j], removedTo[i] = true, j
					adds[k] = -1
					break
				}
			}
		}
		s = e
	}
	// Pair the rest by their line: the same line, at the same depth,
	// removed in one place and added in another moved there (a table's
	// rows sorted).
	byLine := map[string][]int{}
	for _, o := range ops {
		if _, paired := removedTo[o.i]; o.kind == opDel && !paired && a.at(o.i).ref == "" {
			byLine[a.raw[o.i]] = append(byLine[a.raw[o.i]], o.i)
		}
	}
	for _, o := range ops {
		if o.kind == opAdd && !pairedAdd[o.j] && b.at(o.j).ref == "" {
			if is := byLine[b.raw[o.j]]; len(is) > 0 {
				pairedAdd[o.j], removedTo[is[0]] = true, o.j
				byLine[b.raw[o.j]] = is[1:]
			}
		}
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
			l := a.at(o.i)
			out = append(out, engine.Change{Kind: engine.ChangeRemoved, Ref: l.ref, Role: l.role, Name: l.name, Old: l.body, Context: a.context(o.i)})
		case opAdd:
			l := b.at(o.j)
			c := engine.Change{Kind: engine.ChangeAdded, Ref: l.ref, Role: l.role, Name: l.name, New: l.body, Context: b.context(o.j)}
			if i, ok := changedAt[o.j]; ok {
				if a.at(i).body == l.body {
					if a.at(i).indent != l.indent {
						continue // only its indentation changed: a wrapper came or went
					}
					// The same line at the same depth, out of its old
					// order: the page moved it, which "no change" would
					// deny (a list sorted by a click).
					c.Kind, c.Old = engine.ChangeMoved, l.body
					out = append(out, c)
					continue
				}
				c.Kind, c.Old = engine.ChangeChanged, a.at(i).body
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
func editScript(a, b []string) []op {
	var ops []op
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		ops = append(ops, op{opSame, p, p})
		p++
	}
	sa, sb := len(a), len(b)
	for sa > p && sb > p && a[sa-1] == b[sb-1] {
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

func myers(a, b []string, off int) ([]op, bool) {
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
			for x < n && y < m && a[x] == b[y] {
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
func setDiff(a, b []string, off int) []op {
	count := map[string]int{}
	for _, l := range b {
		count[l]++
	}
	var ops []op
	for i, l := range a {
		if count[l] > 0 {
			count[l]--
			continue
		}
		ops = append(ops, op{kind: opDel, i: off + i})
	}
	count = map[string]int{}
	for _, l := range a {
		count[l]++
	}
	for j, l := range b {
		if count[l] > 0 {
			count[l]--
			continue
		}
		ops = append(ops, op{kind: opAdd, j: off + j})
	}
	return ops
}

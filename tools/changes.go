package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/tokens/estimate"
)

// What an action answers (issue 25): after it settled, every action tool's
// result carries what changed on the page since the agent's last view of
// it (engine.Changer), in the outline's own lines, grouped under the line
// that places them; after a navigation to a new document, that page's
// outline of interactive elements, headings and landmarks. Both are capped
// at a number of o200k tokens. --action-result chooses: changes (the
// default), none, or full (the whole outline after every action).

// The --action-result settings.
const (
	ActionResultChanges = "changes"
	ActionResultNone    = "none"
	ActionResultFull    = "full"
)

// DefaultChangesCap is how many o200k tokens an action's changes or
// outline may take by default.
const DefaultChangesCap = 1500

// ChangesOut is what changed on the page, in an action's result.
type ChangesOut struct {
	Items []engine.Change `json:"items,omitempty" jsonschema:"Changed lines: kind, ref, role, name, old, new, context"`
	// More counts the changes (or outline lines) past the cap.
	More int `json:"more,omitempty" jsonschema:"Changes past the cap"`
	// Outline stands in for the changes when Fresh says why.
	Outline string `json:"outline,omitempty" jsonschema:"New page's outline"`
	Fresh   string `json:"fresh,omitempty" jsonschema:"Why outline: no_view, navigated, full"`
}

// changeCarrier is a result that can carry the page's changes: every
// action's (ActionOut), and go_back's, go_forward's and reload's
// (HistoryOut). navigate answers the page it loaded instead. leftPage
// says whether the action itself loaded another page.
type changeCarrier interface {
	changesSlot() **ChangesOut
	leftPage() bool
}

func (o *ActionOut) changesSlot() **ChangesOut  { return &o.Changes }
func (o *HistoryOut) changesSlot() **ChangesOut { return &o.Changes }

// An action's URL is set only when it navigated; go_back, go_forward and
// reload move to another entry by definition.
func (o *ActionOut) leftPage() bool  { return o.URL != "" }
func (o *HistoryOut) leftPage() bool { return true }

// cssActions are the tools that can change the page through CSS alone
// (:hover), which records no mutation: their changes walk the page again.
var cssActions = map[string]bool{"hover": true, "mouse_move": true, "mouse_click": true, "mouse_drag": true, "drag_and_drop": true}

// addChanges puts in out, the result of the action tool, what the action
// changed on the page, as the --action-result setting asks. A page that
// cannot be read now (a dialog the action opened blocks it) leaves the
// result without changes: the action itself succeeded.
func (d *Deps) addChanges(ctx context.Context, tool string, s engine.Session, out any) {
	cc, ok := out.(changeCarrier)
	if !ok || d.actionResult == ActionResultNone {
		return
	}
	slot := cc.changesSlot()
	if slot == nil {
		return
	}
	prefix := refPrefix(engine.SessionNameFrom(ctx))
	id := engine.SessionIDFrom(ctx)
	if d.actionResult == ActionResultFull {
		r, err := s.Snapshot(ctx, engine.SnapshotRequest{MaxText: d.SnapshotMaxText})
		if err != nil {
			d.Log.DebugContext(ctx, "no outline for the action's result", "tool", tool, "err", err)
			return
		}
		text := prefixOutline(r.Text, prefix)
		d.refs.remember(id, text)
		*slot = &ChangesOut{Outline: text, Fresh: ActionResultFull}
		return
	}
	r, err := s.Changes(ctx, engine.ChangesRequest{Full: cssActions[tool], MaxText: d.SnapshotMaxText})
	if err != nil {
		d.Log.DebugContext(ctx, "no changes for the action's result", "tool", tool, "err", err)
		return
	}
	if r.Fresh == engine.FreshNavigated && !cc.leftPage() {
		// The tab holds another document than the last view, but this
		// action did not load it (navigate did, or a tab was opened or
		// selected): "New page" would say the action navigated.
		r.Fresh = engine.FreshNoView
	}
	c := &ChangesOut{Fresh: r.Fresh}
	if r.Fresh != "" {
		text := prefixOutline(r.Outline, prefix)
		c.Outline, c.More = capOutline(text, d.changesCap)
		d.refs.remember(id, c.Outline)
	} else {
		c = d.capped(ctx, r.Changes, prefix)
	}
	*slot = c
}

// capped gives the changes of the calling session the context's prefix,
// caps them, and remembers the refs they show.
func (d *Deps) capped(ctx context.Context, items []engine.Change, prefix string) *ChangesOut {
	if prefix != "" {
		for i := range items {
			ch := &items[i]
			ch.Old, ch.New, ch.Context = prefixOutline(ch.Old, prefix), prefixOutline(ch.New, prefix), prefixOutline(ch.Context, prefix)
			if ch.Ref != "" {
				ch.Ref = prefix + ch.Ref
			}
		}
	}
	c := &ChangesOut{}
	c.Items, c.More = capChanges(items, d.changesCap)
	var refs []string
	for _, ch := range c.Items {
		if ch.Ref != "" && ch.Kind != engine.ChangeRemoved {
			refs = append(refs, ch.Ref)
		}
	}
	d.refs.add(engine.SessionIDFrom(ctx), refs)
	return c
}

// capOutline keeps the lines of an outline that fit in max tokens, and
// counts the lines left out.
func capOutline(text string, max int) (string, int) {
	lines := strings.Split(text, "\n")
	used := 0
	for i, l := range lines {
		used += countTokens(l) + 1
		if used > max && i > 0 {
			return strings.Join(lines[:i], "\n"), len(lines) - i
		}
	}
	return text, 0
}

// capChanges keeps the changes whose lines fit in max tokens, and counts
// those left out.
func capChanges(items []engine.Change, max int) ([]engine.Change, int) {
	used, ctx := 0, ""
	for i, c := range items {
		if c.Context != ctx {
			used += countTokens(c.Context) + 2
			ctx = c.Context
		}
		used += countTokens(changeLine(c)) + 1
		if used > max && i > 0 {
			return items[:i], len(items) - i
		}
	}
	return items, 0
}

// countTokens estimates the o200k tokens of s (internal/tokens/estimate):
// the exact tokenizer would hold ~23 MiB in every server for a cap.
func countTokens(s string) int { return estimate.O200k(s) }

// changeLine prints one change: "+ " and the line that appeared, "- " and
// the line that went away, or "~ " and the line as it is now with what it
// was before: the words of the old line that differ, or the whole old
// line when that would be unclear.
func changeLine(c engine.Change) string {
	switch c.Kind {
	case engine.ChangeAdded:
		return "+ " + c.New
	case engine.ChangeRemoved:
		return "- " + c.Old
	case engine.ChangeTransient:
		return "± " + c.Old + " (appeared and went away)"
	case engine.ChangeMoved:
		return "↕ " + c.New + " (moved)"
	}
	return "~ " + c.New + " " + was(c.Old, c.New)
}

// was says what a changed line was: "(was [collapsed])" when up to three
// words changed for as many, "(was without [checked])" when attributes
// were only added, "(was [disabled])" when they were only taken away,
// else "(was: <old line>)". Words are named alone only when they start and
// end outside the line's quoted strings: `(was "Before)`, a word taken out
// of one, opened a quote that never closed, and a parser read the rest of
// the line as the page's text.
func was(old, now string) string {
	o, n := strings.Split(old, " "), strings.Split(now, " ")
	p := 0
	for p < len(o) && p < len(n) && o[p] == n[p] {
		p++
	}
	s := 0
	for s < len(o)-p && s < len(n)-p && o[len(o)-1-s] == n[len(n)-1-s] {
		s++
	}
	om, nm := strings.Join(o[p:len(o)-s], " "), strings.Join(n[p:len(n)-s], " ")
	whole := quotedWhole(o, p, len(o)-s) && quotedWhole(n, p, len(n)-s)
	plain := func(s string) bool { return whole && !strings.Contains(s, "[ref=") && !strings.HasSuffix(s, ":") }
	switch {
	case om == "" && nm != "" && plain(nm) && strings.HasPrefix(nm, "["):
		return "(was without " + nm + ")"
	case nm == "" && om != "" && plain(om) && strings.HasPrefix(om, "["):
		return "(was " + om + ")"
	case om != "" && nm != "" && len(o)-p-s == len(n)-p-s && len(o)-p-s <= 3 && plain(om) && plain(nm):
		return "(was " + om + ")"
	}
	return "(was: " + old + ")"
}

// quotedWhole says whether words[from:to] of a line split at spaces start
// and end outside its quoted strings, where `\"` is a quote of the page's.
func quotedWhole(words []string, from, to int) bool {
	in := false
	for i, w := range words {
		if (i == from || i == to) && in {
			return false
		}
		if i >= to {
			break
		}
		for j := 0; j < len(w); j++ {
			switch w[j] {
			case '\\':
				j++
			case '"':
				in = !in
			}
		}
	}
	return !in || to < len(words)
}

// text prints the changes for the model: each group of changes under the
// line of the dialog, landmark, heading, list, table, form or frame that
// holds them, given once.
func (c *ChangesOut) text() string {
	var b strings.Builder
	switch c.Fresh {
	case "":
		if len(c.Items) == 0 {
			return "No change on the page."
		}
		b.WriteString("Changes:")
		ctx := ""
		for _, it := range c.Items {
			if it.Context != ctx {
				ctx = it.Context
				if ctx != "" {
					b.WriteString("\nin " + strings.TrimPrefix(ctx, "- ") + ":")
				}
			}
			b.WriteByte('\n')
			if ctx != "" {
				b.WriteString("  ")
			}
			b.WriteString(changeLine(it))
		}
		if c.More > 0 {
			fmt.Fprintf(&b, "\n%d more changes; call snapshot or find.", c.More)
		}
		return b.String()
	case engine.FreshNavigated:
		b.WriteString("New page; its interactive elements, headings and landmarks:\n")
	case engine.FreshNoView:
		b.WriteString("No earlier view of this page to compare with; its interactive elements, headings and landmarks:\n")
	default:
		b.WriteString("Page outline:\n")
	}
	b.WriteString(c.Outline)
	if c.More > 0 {
		fmt.Fprintf(&b, "\n%d more lines; call snapshot or find.", c.More)
	}
	return b.String()
}

// changesResult renders the result of an action that carries changes:
// structuredContent holds them as data; the first text block is the rest
// of the result's JSON, as for every result, and a second one the changes
// in the outline's own lines, which read better and cost fewer tokens than
// the same lines escaped in JSON.
func changesResult(out any, slot **ChangesOut) *mcp.CallToolResult {
	b, err := json.Marshal(out)
	if err != nil {
		return errorResult(fmt.Errorf("encoding the result: %w", err))
	}
	c := *slot
	*slot = nil
	rest, err := json.Marshal(out)
	*slot = c
	if err != nil {
		return errorResult(fmt.Errorf("encoding the result: %w", err))
	}
	res := mcp.NewToolResultStructured(json.RawMessage(b), string(rest))
	res.Content = append(res.Content, mcp.NewTextContent(c.text()))
	return res
}

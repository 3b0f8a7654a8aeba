package tools

import (
	"context"
	"strings"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/page"
)

// SnapshotIn is the input of snapshot.
type SnapshotIn struct {
	SessionArg
	Selector        string `json:"selector,omitempty" jsonschema:"Subtree root"`
	Ref             string `json:"ref,omitempty" jsonschema:"Subtree root"`
	Depth           int    `json:"depth,omitempty" jsonschema:"Max nesting" range:"0,1000"`
	InteractiveOnly bool   `json:"interactiveOnly,omitempty" jsonschema:"Only refs, headings, landmarks"`
	MaxChars        int    `json:"maxChars,omitempty" jsonschema:"Truncate at this length" range:"0,10000000"`
}

func (in SnapshotIn) validate() error {
	return validTarget(in.Selector, in.Ref, false)
}

// SnapshotOut is the result of snapshot. The text the model reads is the
// page line and the outline itself, not this JSON.
type SnapshotOut struct {
	Snapshot  string `json:"snapshot" jsonschema:"Outline: one line per node, - role \"name\" [attrs] [ref=eN], nested by indentation"`
	URL       string `json:"url"`
	Title     string `json:"title"`
	Refs      int    `json:"refs" jsonschema:"Number of refs in the outline"`
	Truncated bool   `json:"truncated,omitempty" jsonschema:"The outline was cut at maxChars"`
	SessionMeta
}

func (o SnapshotOut) text() string {
	var b strings.Builder
	b.Grow(len(o.Snapshot) + len(o.URL) + len(o.Title) + 32)
	// The URL and title are the page's to write: printed as the outline
	// prints them, they cannot pass for its lines.
	b.WriteString("Page: ")
	b.WriteString(page.URL(o.URL))
	b.WriteString("\nTitle: ")
	b.WriteString(page.Text(o.Title))
	b.WriteString("\n")
	b.WriteString(o.Snapshot)
	return b.String()
}

func snapshot(d *Deps) Tool {
	return sessionTool(d, "snapshot",
		"Accessibility outline of the page, frames inline; actionable elements have refs.",
		readOnly,
		func(ctx context.Context, s engine.Session, in SnapshotIn) (SnapshotOut, error) {
			// A named context's refs carry its name (ctxrefs.go); the
			// outline is cut at maxChars once they do.
			prefix := refPrefix(engine.SessionNameFrom(ctx))
			req := engine.SnapshotRequest{
				Target: engine.Target{Selector: in.Selector, Ref: in.Ref}, Depth: in.Depth,
				InteractiveOnly: in.InteractiveOnly, MaxChars: in.MaxChars, MaxText: d.SnapshotMaxText,
			}
			if prefix != "" {
				req.MaxChars = 0
			}
			r, err := s.Snapshot(ctx, req)
			if err != nil {
				return SnapshotOut{}, err
			}
			if prefix != "" {
				r.Text, r.Truncated = page.TruncateOutline(prefixOutline(r.Text, prefix), in.MaxChars)
				r.Refs = page.CountRefs(r.Text)
			}
			d.refs.remember(engine.SessionIDFrom(ctx), r.Text)
			return SnapshotOut{Snapshot: r.Text, URL: r.URL, Title: r.Title, Refs: r.Refs, Truncated: r.Truncated}, nil
		})
}

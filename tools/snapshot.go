package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

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
	File            bool   `json:"file,omitempty" jsonschema:"Answer a file's path"`
	Changes         bool   `json:"changes,omitempty" jsonschema:"Only what changed since your last view"`
}

func (in SnapshotIn) validate() error {
	if in.File && in.MaxChars > 0 {
		// The file holds the whole outline, and the answer none of it.
		return engine.Errorf(engine.InvalidParameters, "maxChars cuts the outline in the answer; with file:true the answer holds no outline and the file all of it").
			With("field", "maxChars").With("fields", []string{"file", "maxChars"})
	}
	if in.Changes {
		for _, f := range []struct {
			name  string
			given bool
		}{{"selector", in.Selector != ""}, {"ref", in.Ref != ""}, {"depth", in.Depth != 0}, {"interactiveOnly", in.InteractiveOnly}, {"file", in.File}} {
			if f.given {
				return invalid(f.name, "changes compares the whole page with your last view of it: give it without %s", f.name)
			}
		}
	}
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
	// Path and Bytes are set with file:true, and Snapshot is then empty.
	Path  string `json:"path,omitempty"`
	Bytes int    `json:"bytes,omitempty"`
	// Changes is, with changes:true, what changed as data; Snapshot
	// holds the same in lines (changes.go).
	Changes *ChangesOut `json:"changes,omitempty"`
	SessionMeta
	// textCap cuts the URL and title in the text as the outline's
	// strings are cut (engine.SnapshotRequest.TextCap).
	textCap int
}

func (o SnapshotOut) text() string {
	var b strings.Builder
	b.Grow(len(o.Snapshot) + len(o.URL) + len(o.Title) + 32)
	// The URL and title are the page's to write: printed as the outline
	// prints them, they cannot pass for its lines.
	b.WriteString("Page: ")
	b.WriteString(page.URLCut(o.URL, o.textCap))
	b.WriteString("\nTitle: ")
	b.WriteString(page.TextCut(o.Title, o.textCap))
	b.WriteString("\n")
	if o.Path != "" {
		fmt.Fprintf(&b, "Outline saved to %s (%d bytes, %d refs).", o.Path, o.Bytes, o.Refs)
		return b.String()
	}
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
			if in.Changes {
				return d.changedSince(ctx, s, in, prefix)
			}
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
			d.viewed(ctx, s, req)
			out := SnapshotOut{Snapshot: r.Text, URL: r.URL, Title: r.Title, Refs: r.Refs, Truncated: r.Truncated, textCap: req.TextCap()}
			if in.File {
				// The file is read next, past the middleware that redacts
				// results: it holds the outline as the answer would.
				text := r.Text
				if red := d.secrets.redactor(engine.OwnerOf(ctx)); red != nil {
					text = red.Replace(text)
				}
				if out.Path, out.Bytes, err = d.saveOutline(engine.SessionIDFrom(ctx), text); err != nil {
					return SnapshotOut{}, err
				}
				out.Snapshot = ""
			}
			return out, nil
		})
}

// changedSince answers snapshot {changes: true}: what changed since the
// agent's last view of the page, as an action's result says it; with no
// earlier view of this document, the whole outline and a line saying why.
func (d *Deps) changedSince(ctx context.Context, s engine.Session, in SnapshotIn, prefix string) (SnapshotOut, error) {
	// Asked for, the page is walked even when it recorded no mutation:
	// CSS alone (a hover) may have changed it.
	r, err := s.Changes(ctx, engine.ChangesRequest{Full: true, MaxText: d.SnapshotMaxText})
	if err != nil {
		return SnapshotOut{}, err
	}
	id := engine.SessionIDFrom(ctx)
	tc := engine.SnapshotRequest{MaxText: d.SnapshotMaxText}.TextCap()
	if r.Fresh != "" {
		full, err := s.Snapshot(ctx, engine.SnapshotRequest{MaxText: d.SnapshotMaxText})
		if err != nil {
			return SnapshotOut{}, err
		}
		why := "No earlier view of this page to compare with: the whole outline.\n"
		if r.Fresh == engine.FreshNavigated {
			why = "The page navigated since your last view: the whole outline.\n"
		}
		text, cut := page.TruncateOutline(prefixOutline(full.Text, prefix), in.MaxChars)
		d.refs.remember(id, text)
		return SnapshotOut{Snapshot: why + text, URL: full.URL, Title: full.Title, Refs: page.CountRefs(text), Truncated: cut,
			Changes: &ChangesOut{Fresh: r.Fresh}, textCap: tc}, nil
	}
	c := d.capped(ctx, r.Changes, prefix)
	text, cut := page.TruncateOutline(c.text(), in.MaxChars)
	return SnapshotOut{Snapshot: text, URL: r.URL, Title: r.Title, Refs: page.CountRefs(text), Truncated: cut, Changes: c, textCap: tc}, nil
}

// outlineCount numbers the outlines saved by snapshot {file:true}.
var outlineCount atomic.Int64

// saveOutline writes an outline to a new file in the session's output
// directory, OutputDir/<sessionId>/snapshots, where its downloads are too,
// and returns its path and size. The file goes with the session, as
// those do (shotLog.end). It is written whatever file access allows:
// like a download or a screenshot under --image-responses omit, its path
// is the server's choice, not an argument's.
func (d *Deps) saveOutline(session, outline string) (string, int, error) {
	dir := filepath.Join(d.OutputDir, session, "snapshots")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", 0, engine.Wrap(engine.BrowserError, err, "cannot save the outline: "+err.Error())
	}
	// A stamp as well as a count: a session restored after a restart
	// must not overwrite the files it saved before.
	name := fmt.Sprintf("snapshot-%s-%d.txt", time.Now().UTC().Format("20060102T150405.000"), outlineCount.Add(1))
	path := filepath.Join(dir, name)
	b := []byte(outline + "\n")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		_, err = f.Write(b)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
		}
	}
	if err != nil {
		return "", 0, engine.FileError(engine.BrowserError, err, "cannot save the outline")
	}
	d.shots.saved(session, path)
	return path, len(b), nil
}

// viewed makes a whole-page outline the agent asked for in brief
// (interactiveOnly or depth) its view of the page, as a full one is, so
// that the next action answers with its changes rather than the whole
// outline: the engine walks the full page once to keep it, or answers
// at once when nothing changed since its last view.
func (d *Deps) viewed(ctx context.Context, s engine.Session, req engine.SnapshotRequest) {
	if d.actionResult != ActionResultChanges || req.Target != (engine.Target{}) || !req.InteractiveOnly && req.Depth == 0 {
		return
	}
	if _, err := s.Changes(ctx, engine.ChangesRequest{MaxText: d.SnapshotMaxText}); err != nil {
		d.Log.DebugContext(ctx, "the brief outline is not the view", "err", err)
	}
}

package engine

import (
	"context"
	"time"
)

// What an action changed on the page. An agent that acts and then reads a
// whole snapshot to learn what its action did pays for the whole page on
// every step; an action's result tells it instead, in the outline's own
// lines. The engine compares the page with what the agent last saw of that
// document: its last whole-page snapshot, or the last Changes call. Both
// set that view ("the baseline") again.

// ChangeKind says how an outline line changed.
type ChangeKind string

// The kinds of change.
const (
	ChangeAdded   ChangeKind = "added"
	ChangeRemoved ChangeKind = "removed"
	ChangeChanged ChangeKind = "changed"
	// ChangeTransient is text that appeared after the last view and went
	// away again before the page was read (a toast saying "Saved!"): no
	// outline holds it, yet it is what an agent checks its work by. Old
	// holds its text line; it has no ref and no context.
	ChangeTransient ChangeKind = "transient"
	// ChangeMoved is an element whose line is the same, now in another
	// place among the lines around it (a list sorted or reversed). Old and
	// New hold its line; Context is the line that holds it now.
	ChangeMoved ChangeKind = "moved"
)

// Change is one line of the outline that appeared, went away or changed.
type Change struct {
	Kind ChangeKind `json:"kind"`
	// Ref is the element's ref, when the line has one.
	Ref  string `json:"ref,omitempty"`
	Role string `json:"role,omitempty"`
	Name string `json:"name,omitempty"`
	// Old and New are the line before and after, without indentation;
	// an added line has no Old, a removed one no New.
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
	// Context is the line of the nearest dialog, landmark, heading, list,
	// table, form or iframe that holds the changed line, without
	// indentation; empty at the top of the page.
	Context string `json:"context,omitempty"`
}

// Why a ChangesResult has an outline instead of changes.
const (
	// FreshNoView: there was no earlier view of this document to compare
	// with (no snapshot yet, or a view the engine no longer keeps).
	FreshNoView = "no_view"
	// FreshNavigated: the tab holds another document than the one last
	// seen: it navigated.
	FreshNavigated = "navigated"
)

// ChangesRequest asks what changed on the page since the agent's last view.
type ChangesRequest struct {
	// Full walks the page again even when the page recorded no mutation
	// since the last view: an action that can change the page through CSS
	// alone (a hover, a mouse move) sets it.
	Full bool
	// MaxText is the cap on one string of the outline, as in
	// SnapshotRequest: changes compare outlines printed with the same cap.
	MaxText int
}

// ChangesResult is what changed since the last view, or, when there is
// nothing to compare with (Fresh), the page's outline of interactive
// elements, headings and landmarks.
type ChangesResult struct {
	// Changes are in the order of the page; empty with Fresh, or when
	// nothing changed.
	Changes []Change
	// Fresh is FreshNoView or FreshNavigated when Outline stands in for
	// the changes; empty otherwise.
	Fresh   string
	Outline string
	URL     string
	Title   string
}

// Changer is the part of a Session that tells what changed on the page.
type Changer interface {
	// Changes compares the page with the agent's last view of its
	// document and makes the page as it is now that view.
	Changes(ctx context.Context, req ChangesRequest) (ChangesResult, error)
}

// ChangesTimeout bounds a Changes call: one walk of the page (or, past a
// navigation, two) and the comparison.
const ChangesTimeout = 15 * time.Second

func (b *bounded) Changes(ctx context.Context, req ChangesRequest) (ChangesResult, error) {
	return Within(ctx, "reading the page's changes", ChangesTimeout, func(ctx context.Context) (ChangesResult, error) { return b.s.Changes(ctx, req) })
}

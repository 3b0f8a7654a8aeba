package enginetest

import (
	"regexp"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
)

var countRef = regexp.MustCompile(`- button "Count" \[ref=(e[0-9]+)\]`)

func (h *harness) testSnapshot(t *testing.T) {
	s := h.open(t, "/form.html")
	snap, err := s.Snapshot(ctx(t), engine.SnapshotRequest{})
	if !supported(t, err) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	m := countRef.FindStringSubmatch(snap.Text)
	if m == nil || snap.Refs == 0 || snap.Title != "Sign in" {
		t.Fatalf("snapshot lacks the Count button with a ref: %+v", snap)
	}
	click(t, s, engine.ClickRequest{Target: engine.Target{Ref: m[1]}})
	wantTitle(t, s, "clicked 1")
	// A later snapshot gives the same element the same ref.
	again, err := s.Snapshot(ctx(t), engine.SnapshotRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if m2 := countRef.FindStringSubmatch(again.Text); m2 == nil || m2[1] != m[1] {
		t.Fatalf("the Count button's ref changed from %s: %s", m[1], again.Text)
	}
	// After a navigation the ref is stale.
	h.navigate(t, s, "/form.html")
	_, err = s.Click(ctx(t), engine.ClickRequest{Target: engine.Target{Ref: m[1]}, Timeout: short})
	wantError(t, err, engine.ElementNotFound, map[string]any{"reason": "stale_ref", "ref": m[1]})
}

package enginetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
)

// testFileChooser: a click that opens a native file chooser (on the input,
// through its label, or through a button whose script calls input.click())
// reports it, and the chooser waits as a dialog does: the page's other
// calls answer FILE_CHOOSER_OPEN until Upload without a target fills it
// (the page reads the files back) or cancels it.
func (h *harness) testFileChooser(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	if err := os.WriteFile(a, []byte("alpha"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte("beta"), 0o644); err != nil {
		t.Fatal(err)
	}
	// read is what the page read from the files it was given.
	read := func(t *testing.T, s engine.Session) string {
		t.Helper()
		return evaluate(t, s, engine.EvalRequest{Function: `() => window.read`})
	}
	events := func(t *testing.T, s engine.Session) string {
		t.Helper()
		return evaluate(t, s, engine.EvalRequest{Function: `() => events.join(" ")`})
	}
	// opens clicks target and reports whether the engine offers choosers:
	// one that cannot answers UNSUPPORTED for an Upload without a target.
	opens := func(t *testing.T, s engine.Session, target string, multiple bool) bool {
		t.Helper()
		res := click(t, s, engine.ClickRequest{Target: sel(target)})
		if res.FileChooser == nil {
			_, err := s.Upload(ctx(t), engine.UploadRequest{Files: []string{a}})
			if !supported(t, err) {
				return false
			}
			t.Fatalf("click on %s = %+v, want a file chooser (Upload without a target: %v)", target, res, err)
		}
		if res.FileChooser.Multiple != multiple {
			t.Fatalf("click on %s opened %+v, want multiple=%v", target, res.FileChooser, multiple)
		}
		return true
	}

	t.Run("Fill", func(t *testing.T) {
		s := h.open(t, "/chooser.html")
		if !opens(t, s, "#one", false) {
			return
		}
		// The chooser blocks the page, as a dialog does.
		_, err := s.Click(ctx(t), engine.ClickRequest{Target: sel("#field"), Timeout: short})
		e := wantError(t, err, engine.FileChooserOpen, nil)
		if fc, ok := e.Details["fileChooser"].(*engine.FileChooser); !ok || fc.Multiple {
			t.Errorf("details.fileChooser = %#v, want the single-file chooser", e.Details["fileChooser"])
		}
		_, err = s.Snapshot(ctx(t), engine.SnapshotRequest{})
		wantError(t, err, engine.FileChooserOpen, nil)
		_, err = s.Evaluate(ctx(t), engine.EvalRequest{Function: "() => 1"})
		wantError(t, err, engine.FileChooserOpen, nil)
		_, err = s.Upload(ctx(t), engine.UploadRequest{Target: sel("#one"), Files: []string{a}, Timeout: short})
		wantError(t, err, engine.FileChooserOpen, nil)
		// A single chooser takes one file; the refusal leaves it waiting.
		_, err = s.Upload(ctx(t), engine.UploadRequest{Files: []string{a, b}})
		wantError(t, err, engine.InvalidParameters, map[string]any{"field": "files"})

		res, err := s.Upload(ctx(t), engine.UploadRequest{Files: []string{a}})
		ok(t, "Upload to the chooser", res, err)
		if got := read(t, s); got != `"a.txt=alpha"` {
			t.Errorf("the page read %s, want a.txt=alpha", got)
		}
		if got := events(t, s); got != `"one:input one:change"` {
			t.Errorf("events = %s, want input and change", got)
		}
		// Answered: the page is free, and nothing waits any more.
		click(t, s, engine.ClickRequest{Target: sel("#field")})
		_, err = s.Upload(ctx(t), engine.UploadRequest{Files: []string{a}})
		wantError(t, err, engine.InvalidParameters, map[string]any{"field": "selector"})
		// The same input opens a chooser again; Firefox keeps its own
		// picker of the input open (headless, it never closes), and opens
		// no other until the page loads again: the click reports none,
		// truly, and the input still takes files by its selector.
		if strings.HasSuffix(h.eng.Name(), "/firefox") {
			if res := click(t, s, engine.ClickRequest{Target: sel("#one")}); res.FileChooser != nil {
				t.Fatalf("Firefox reported a second chooser of #one: %+v", res)
			}
			res, err = s.Upload(ctx(t), engine.UploadRequest{Target: sel("#one"), Files: []string{b}})
		} else {
			if !opens(t, s, "#one", false) {
				return
			}
			res, err = s.Upload(ctx(t), engine.UploadRequest{Files: []string{b}})
		}
		ok(t, "Upload to the second chooser", res, err)
		if got := read(t, s); got != `"b.txt=beta"` {
			t.Errorf("the page read %s, want b.txt=beta", got)
		}
	})
	t.Run("Label", func(t *testing.T) {
		s := h.open(t, "/chooser.html")
		if !opens(t, s, "#lbl", false) {
			return
		}
		res, err := s.Upload(ctx(t), engine.UploadRequest{Files: []string{b}})
		ok(t, "Upload to the label's chooser", res, err)
		if got := read(t, s); got != `"b.txt=beta"` {
			t.Errorf("the page read %s, want b.txt=beta", got)
		}
	})
	t.Run("Multiple", func(t *testing.T) {
		s := h.open(t, "/chooser.html")
		// A button whose script clicks a hidden input.
		if !opens(t, s, "#pick", true) {
			return
		}
		res, err := s.Upload(ctx(t), engine.UploadRequest{Files: []string{a, b}})
		ok(t, "Upload two files to the chooser", res, err)
		if got := read(t, s); got != `"a.txt=alpha,b.txt=beta"` {
			t.Errorf("the page read %s, want both files", got)
		}
	})
	t.Run("Detached", func(t *testing.T) {
		s := h.open(t, "/chooser.html")
		// A script's input that is not in the document.
		if !opens(t, s, "#detached", false) {
			return
		}
		res, err := s.Upload(ctx(t), engine.UploadRequest{Files: []string{b}})
		ok(t, "Upload to the detached input's chooser", res, err)
		if got := read(t, s); got != `"b.txt=beta"` {
			t.Errorf("the page read %s, want b.txt=beta", got)
		}
	})
	t.Run("Cancel", func(t *testing.T) {
		s := h.open(t, "/chooser.html")
		if !opens(t, s, "#one", false) {
			return
		}
		res, err := s.Upload(ctx(t), engine.UploadRequest{})
		ok(t, "Upload of no files (cancel)", res, err)
		if got := events(t, s); got != `"one:cancel"` {
			t.Errorf("events = %s, want only cancel", got)
		}
		if got := evaluate(t, s, engine.EvalRequest{Function: `() => document.getElementById("one").files.length`}); got != "0" {
			t.Errorf("files after cancel = %s, want 0", got)
		}
	})
	t.Run("NavigateDrops", func(t *testing.T) {
		s := h.open(t, "/chooser.html")
		if !opens(t, s, "#one", false) {
			return
		}
		h.navigate(t, s, "/form.html")
		if _, err := s.Snapshot(ctx(t), engine.SnapshotRequest{}); err != nil {
			t.Fatalf("snapshot after navigating away from the chooser: %v", err)
		}
		_, err := s.Upload(ctx(t), engine.UploadRequest{Files: []string{a}})
		wantError(t, err, engine.InvalidParameters, map[string]any{"field": "selector"})
	})
	t.Run("Tabs", func(t *testing.T) {
		// A chooser in a tab the session opened: the session's tab calls
		// still work, the other tab is free, and closing the chooser's tab
		// drops it.
		s := h.open(t, "/chooser.html")
		tabs(t, s, engine.TabsRequest{Action: "new", URL: h.site.url("/chooser.html")})
		if !opens(t, s, "#one", false) {
			return
		}
		if res := tabs(t, s, engine.TabsRequest{Action: "list"}); len(res.Tabs) != 2 || res.Current != 1 {
			t.Fatalf("tabs while the chooser waits: %+v", res)
		}
		first := 0
		tabs(t, s, engine.TabsRequest{Action: "select", Index: &first})
		if _, err := s.Snapshot(ctx(t), engine.SnapshotRequest{}); err != nil {
			t.Fatalf("snapshot of the other tab: %v", err)
		}
		second := 1
		tabs(t, s, engine.TabsRequest{Action: "select", Index: &second})
		_, err := s.Snapshot(ctx(t), engine.SnapshotRequest{})
		wantError(t, err, engine.FileChooserOpen, nil)
		tabs(t, s, engine.TabsRequest{Action: "close"})
		if _, err := s.Snapshot(ctx(t), engine.SnapshotRequest{}); err != nil {
			t.Fatalf("snapshot after closing the chooser's tab: %v", err)
		}
		_, err = s.Upload(ctx(t), engine.UploadRequest{Files: []string{a}})
		wantError(t, err, engine.InvalidParameters, map[string]any{"field": "selector"})
	})
	t.Run("NoChooser", func(t *testing.T) {
		s := h.open(t, "/chooser.html")
		_, err := s.Upload(ctx(t), engine.UploadRequest{Files: []string{a}})
		if supported(t, err) {
			wantError(t, err, engine.InvalidParameters, map[string]any{"field": "selector"})
		}
	})
}

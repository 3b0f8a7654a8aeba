package cdp_test

import (
	"context"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/cdp"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

var site *httptest.Server

func TestMain(m *testing.M) {
	flag.Parse()
	site = testsite.Start()
	code := m.Run()
	site.Close()
	os.Exit(code)
}

// newEngine starts a browser for one test with the given dialog policy.
func newEngine(t testing.TB, dialogs engine.DialogPolicy) *cdp.Engine {
	t.Helper()
	e := cdp.New(cdp.Config{ExecPath: testenv.Chromium(t), Headless: true, Viewport: engine.Viewport{Width: 1280, Height: 720}, Dialogs: dialogs})
	e.Start()
	t.Cleanup(func() { e.Close() })
	return e
}

func open(t testing.TB, e *cdp.Engine, path string) engine.Session {
	t.Helper()
	ctx := context.Background()
	s, err := e.NewSession(ctx, engine.SessionOptions{Viewport: engine.Viewport{Width: 1280, Height: 720}})
	if err != nil {
		t.Fatal(err)
	}
	s = engine.Bound(s) // as the Manager calls it
	t.Cleanup(func() { s.Close(ctx) })
	if _, err := s.Navigate(ctx, engine.NavigateRequest{URL: site.URL + path}); err != nil {
		t.Fatal(err)
	}
	return s
}

func goldenPath(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "golden", "snapshot", name)
}

// TestSnapshotGolden pins the outline of the test pages. Rewrite the files
// with go test ./engine/cdp -run TestSnapshotGolden -update, and review
// the diff.
func TestSnapshotGolden(t *testing.T) {
	e := newEngine(t, engine.DialogsManual)
	for _, c := range []struct {
		name, path string
		req        engine.SnapshotRequest
	}{
		{"snapshot.txt", "/snapshot.html", engine.SnapshotRequest{}},
		{"snapshot.interactive.txt", "/snapshot.html", engine.SnapshotRequest{InteractiveOnly: true}},
		{"snapshot.depth2.txt", "/snapshot.html", engine.SnapshotRequest{Depth: 2}},
		{"form.txt", "/form.html", engine.SnapshotRequest{}},
		{"covered.txt", "/covered.html", engine.SnapshotRequest{}},
		{"dialogs.txt", "/dialogs.html", engine.SnapshotRequest{}},
		{"login.txt", "/peerbench/login.html", engine.SnapshotRequest{}},
		{"large-gen.txt", "/peerbench/large-gen.html", engine.SnapshotRequest{}},
		{"large.txt", "/peerbench/large.html", engine.SnapshotRequest{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := open(t, e, c.path)
			r, err := s.Snapshot(context.Background(), c.req)
			if err != nil {
				t.Fatal(err)
			}
			got := r.Text + "\n"
			p := goldenPath(c.name)
			if *update {
				if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(p)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("snapshot of %s differs from %s (run with -update and review the diff):\n%s", c.path, p, testenv.LineDiff(string(want), got))
			}
		})
	}
}

// TestDialogPolicy checks --dialogs accept and dismiss: the dialog closes at
// once, the action reports it, and the page goes on.
func TestDialogPolicy(t *testing.T) {
	for _, c := range []struct {
		policy          engine.DialogPolicy
		handled, result string
	}{
		{engine.DialogsAccept, "accepted", "confirmed"},
		{engine.DialogsDismiss, "dismissed", "cancelled"},
	} {
		t.Run(string(c.policy), func(t *testing.T) {
			e := newEngine(t, c.policy)
			s := open(t, e, "/dialogs.html")
			ctx := context.Background()
			r, err := s.Click(ctx, engine.ClickRequest{Target: engine.Target{Selector: "#confirm"}})
			if err != nil {
				t.Fatal(err)
			}
			if r.Dialog == nil || r.Dialog.Type != engine.DialogConfirm || r.Dialog.Handled != c.handled {
				t.Fatalf("dialog = %+v", r.Dialog)
			}
			testenv.Eventually(t, fmt.Sprintf("the title %q", c.result), func() (bool, error) {
				if got := s.Info(ctx).Title; got != c.result {
					return false, fmt.Errorf("the title is %q", got)
				}
				return true, nil
			})
			// Nothing is left open: other calls work.
			if _, err := s.Snapshot(ctx, engine.SnapshotRequest{}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.HandleDialog(ctx, engine.DialogRequest{Accept: true}); engine.CodeOf(err) != engine.NoDialog {
				t.Fatalf("handle_dialog with none open: %v", err)
			}
		})
	}
}

// TestHostilePage: the snapshot and its refs live in browsermcp's isolated
// world, out of the page's reach. A page that plants its own ref registry
// and patches Element.prototype.computedName changes neither the names the
// agent reads nor the element a ref clicks; evaluate on a ref still runs in
// the page's own world.
func TestHostilePage(t *testing.T) {
	e := newEngine(t, engine.DialogsManual)
	s := open(t, e, "/hostile.html")
	ctx := context.Background()
	snap, err := s.Snapshot(ctx, engine.SnapshotRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(snap.Text, `- button "Cancel"`); n != 1 {
		t.Fatalf("%d buttons named Cancel in\n%s", n, snap.Text)
	}
	cancel := testenv.RefOf(t, snap.Text, "button", "Cancel")
	testenv.RefOf(t, snap.Text, "button", "Delete account")
	v, err := s.Evaluate(ctx, engine.EvalRequest{Target: &engine.Target{Ref: cancel}, Function: "el => [el.id, window.pageMarker]"})
	if err != nil || string(v) != `["cancel","page world"]` {
		t.Fatalf("Evaluate on %s = %s, %v; want the cancel button, in the page's world", cancel, v, err)
	}
	if _, err := s.Click(ctx, engine.ClickRequest{Target: engine.Target{Ref: cancel}}); err != nil {
		t.Fatal(err)
	}
	if got := s.Info(ctx).Title; got != "cancelled" {
		t.Fatalf("clicking %s made the title %q, want cancelled", cancel, got)
	}
}

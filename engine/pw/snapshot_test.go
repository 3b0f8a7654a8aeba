package pw_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/enginetest"
	"github.com/seed4af8c199/browsermcp/engine/pw"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// snapshotCase is one page and request whose outline is compared.
type snapshotCase struct {
	golden, path string // golden is a file under testdata/golden/snapshot, or ""
	req          engine.SnapshotRequest
}

// snapshotCases are engine/cdp's snapshot golden files and the requests
// they pin, then every other page of the test site.
func snapshotCases(t *testing.T) []snapshotCase {
	cases := []snapshotCase{
		{"snapshot.txt", "/snapshot.html", engine.SnapshotRequest{}},
		{"snapshot.interactive.txt", "/snapshot.html", engine.SnapshotRequest{InteractiveOnly: true}},
		{"snapshot.depth2.txt", "/snapshot.html", engine.SnapshotRequest{Depth: 2}},
		{"form.txt", "/form.html", engine.SnapshotRequest{}},
		{"covered.txt", "/covered.html", engine.SnapshotRequest{}},
		{"dialogs.txt", "/dialogs.html", engine.SnapshotRequest{}},
		{"login.txt", "/peerbench/login.html", engine.SnapshotRequest{}},
		{"large-gen.txt", "/peerbench/large-gen.html", engine.SnapshotRequest{}},
		{"large.txt", "/peerbench/large.html", engine.SnapshotRequest{}},
	}
	pinned := map[string]bool{}
	for _, c := range cases {
		pinned[c.path] = true
	}
	ents, err := os.ReadDir(testsite.Dir())
	if err != nil {
		t.Fatal(err)
	}
	pinned["/hostile.html"] = true // refused; see TestHostilePageRefused
	pinned["/ticking.html"] = true // never the same twice: a clock that ticks every 5 ms
	for _, e := range ents {
		if p := "/" + e.Name(); strings.HasSuffix(p, ".html") && !pinned[p] {
			cases = append(cases, snapshotCase{"", p, engine.SnapshotRequest{}})
		}
	}
	return cases
}

func goldenPath(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "golden", "snapshot", name)
}

// TestSnapshotMatchesCDP checks that the playwright engine prints exactly
// engine/cdp's outline: on Chromium, where both read the browser's
// accessibility engine, the golden files engine/cdp pins; on Firefox, where
// the snapshot script computes roles and names itself, the same outline as
// Chromium on every page of the test site. Each outline comes from a new
// session, so refs are numbered alike.
func TestSnapshotMatchesCDP(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	cases := snapshotCases(t)
	// The runs overlap: each spends most of its time waiting for its own
	// browser to create sessions, and they share only the site. Firefox,
	// the slower, takes every other case on each of two browsers.
	var even, odd []snapshotCase
	for i, c := range cases {
		if i%2 == 0 {
			even = append(even, c)
		} else {
			odd = append(odd, c)
		}
	}
	runs := []struct {
		name, browser string
		cases         []snapshotCase
		out           []string
	}{
		{"chromium", pw.Chromium, cases, nil},
		{"firefox-even", pw.Firefox, even, nil},
		{"firefox-odd", pw.Firefox, odd, nil},
	}
	// t.Run returns when its parallel subtests have ended.
	t.Run("outlines", func(t *testing.T) {
		for i := range runs {
			r := &runs[i]
			t.Run(r.name, func(t *testing.T) {
				t.Parallel()
				r.out = outlinesOf(t, r.browser, site.URL, r.cases)
			})
		}
	})
	if t.Failed() {
		return
	}
	chromiums, firefoxes := runs[0].out, make([]string, len(cases))
	for i := range cases {
		firefoxes[i] = runs[1+i%2].out[i/2]
	}
	for i, c := range cases {
		chromium, firefox := chromiums[i], firefoxes[i]
		if c.golden != "" {
			want, err := os.ReadFile(goldenPath(c.golden))
			if err != nil {
				t.Fatal(err)
			}
			if chromium != string(want) {
				t.Errorf("chromium: %s %+v differs from %s:\n%s", c.path, c.req, c.golden, testenv.LineDiff(string(want), chromium))
			}
		}
		if firefox != chromium {
			t.Errorf("firefox: %s %+v differs from chromium's outline:\n%s", c.path, c.req, testenv.LineDiff(chromium, firefox))
		}
	}
}

// outlinesOf is the outline of each case on browser, each from a new
// session.
func outlinesOf(t *testing.T, browser, site string, cases []snapshotCase) []string {
	e := startEngine(t, browser)
	var out []string
	for _, c := range cases {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		s, err := e.NewSession(ctx, engine.SessionOptions{Viewport: enginetest.Viewport})
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		s = engine.Bound(s) // as the Manager calls it
		if _, err := s.Navigate(ctx, engine.NavigateRequest{URL: site + c.path}); err != nil {
			cancel()
			t.Fatal(err)
		}
		if ready := testsite.ReadyWhen[c.path]; ready != "" {
			for {
				v, err := s.Evaluate(ctx, engine.EvalRequest{Expression: ready})
				if err != nil {
					cancel()
					t.Fatalf("%s: %s on %s: %v", browser, ready, c.path, err)
				}
				if string(v) == "true" {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		r, err := s.Snapshot(ctx, c.req)
		if err != nil {
			cancel()
			t.Fatalf("%s: snapshot of %s: %v", browser, c.path, err)
		}
		out = append(out, r.Text+"\n")
		s.Close(ctx)
		cancel()
	}
	return out
}

// TestHostilePageRefused: the playwright engine keeps refs in the page's own
// world, so a page that planted a registry of its own gets a snapshot
// refused with UNSUPPORTED, not refs it could steer (engine/cdp's
// TestHostilePage snapshots the same page).
func TestHostilePageRefused(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	for _, browser := range []string{pw.Chromium, pw.Firefox} {
		t.Run(browser, func(t *testing.T) {
			s := openPage(t, browser, site.URL+"/hostile.html")
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			_, err := s.Snapshot(ctx, engine.SnapshotRequest{})
			var ee *engine.Error
			if !errors.As(err, &ee) || ee.Code != engine.Unsupported || !strings.Contains(ee.Message, "window.__bmcp") {
				t.Fatalf("Snapshot of a page with a planted registry = %v, want UNSUPPORTED naming window.__bmcp", err)
			}
		})
	}
}

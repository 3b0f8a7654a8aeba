package cdp_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/cdp"
	"github.com/seed4af8c199/browsermcp/engine/enginetest"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// The tests in this file attach to a Chromium started as a user starts it
// for --cdp-endpoint (testenv.PlainChromium): without
// --enable-blink-features=ComputedAccessibilityInfo, so its pages do not
// expose the accessibility engine and the snapshot script computes roles
// and names itself.

// TestConformanceAttached runs the snapshot and ref parts of the
// conformance suite on a plain Chromium that the engine attaches to:
// snapshots, refs and the actions on them behave as on the browser we
// launch.
func TestConformanceAttached(t *testing.T) {
	ep := testenv.PlainChromium(t)
	enginetest.RunSnapshots(t, func(t *testing.T) engine.Engine {
		return cdp.New(cdp.Config{Endpoint: ep, Viewport: enginetest.Viewport, Policy: enginetest.Policy})
	})
}

// attached starts an engine attached to a plain Chromium, and checks that
// its pages indeed lack Element.computedRole, without which the tests that
// use it would prove nothing.
func attached(t *testing.T) *cdp.Engine {
	t.Helper()
	e := cdp.New(cdp.Config{Endpoint: testenv.PlainChromium(t), Viewport: engine.Viewport{Width: 1280, Height: 720}})
	e.Start()
	t.Cleanup(func() { e.Close() })
	s := open(t, e, "/welcome.html")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got, err := s.Evaluate(ctx, engine.EvalRequest{Expression: `"computedRole" in Element.prototype`})
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "false" {
		t.Fatalf(`the plain browser's pages have Element.computedRole (%s): was it started with our switches?`, got)
	}
	return e
}

// snapshotCases are the pages and requests whose outlines are compared:
// those the golden files pin, then every other page of the test site.
func snapshotCases(t *testing.T) []snapshotCase {
	cases := []snapshotCase{
		{"/snapshot.html", engine.SnapshotRequest{}},
		{"/snapshot.html", engine.SnapshotRequest{InteractiveOnly: true}},
		{"/snapshot.html", engine.SnapshotRequest{Depth: 2}},
		{"/peerbench/login.html", engine.SnapshotRequest{}},
		{"/peerbench/large-gen.html", engine.SnapshotRequest{}},
		{"/peerbench/large.html", engine.SnapshotRequest{}},
	}
	ents, err := os.ReadDir(testsite.Dir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		// ticking.html's clock ticks every 5 ms: no two walks of it agree.
		if strings.HasSuffix(e.Name(), ".html") && e.Name() != "ticking.html" {
			cases = append(cases, snapshotCase{"/" + e.Name(), engine.SnapshotRequest{}})
		}
	}
	return cases
}

type snapshotCase struct {
	path string
	req  engine.SnapshotRequest
}

// TestSnapshotAttachedMatchesLaunched compares, page by page, the outline
// of a plain Chromium we attached to with the outline of the Chromium we
// launch (which reads roles and names from the accessibility engine, and
// whose outlines the golden files pin): they must be equal. Each outline
// comes from a new session, so refs are numbered alike.
func TestSnapshotAttachedMatchesLaunched(t *testing.T) {
	launched, plain := newEngine(t, engine.DialogsManual), attached(t)
	refs := 0
	t.Cleanup(func() {
		// Equal outlines prove something only if they hold something.
		if refs < 100 {
			t.Errorf("the launched browser's outlines hold %d refs in all; the pages have many more", refs)
		}
	})
	for _, c := range snapshotCases(t) {
		t.Run(strings.TrimPrefix(c.path, "/"), func(t *testing.T) {
			var outlines [2]string
			for i, e := range []*cdp.Engine{launched, plain} {
				s := open(t, e, c.path)
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				for ready := testsite.ReadyWhen[c.path]; ready != ""; time.Sleep(50 * time.Millisecond) {
					v, err := s.Evaluate(ctx, engine.EvalRequest{Expression: ready})
					if err != nil {
						cancel()
						t.Fatalf("%s on %s: %v", ready, c.path, err)
					}
					if string(v) == "true" {
						break
					}
				}
				r, err := s.Snapshot(ctx, c.req)
				cancel()
				if err != nil {
					t.Fatalf("snapshot of %s (%s browser): %v", c.path, []string{"launched", "attached"}[i], err)
				}
				outlines[i] = r.Text
				if i == 0 {
					refs += r.Refs
				}
			}
			if outlines[1] != outlines[0] {
				t.Errorf("%s %+v: the attached browser's outline differs from the launched one's:\n%s", c.path, c.req, testenv.LineDiff(outlines[0], outlines[1]))
			}
		})
	}
}

// BenchmarkSnapshotAttached compares snapshots on the Chromium we launch
// (roles and names from the accessibility engine) with snapshots on a
// plain Chromium we attached to (the script's own computation), on the
// generated and the Wikipedia-like page: "repeat" is a snapshot of a page
// already snapshotted, "first" the first snapshot after a navigation
// (the navigation is not timed), which on our launch pays for building the
// accessibility tree.
func BenchmarkSnapshotAttached(b *testing.B) {
	bg := context.Background()
	for _, browser := range []string{"launched", "attached"} {
		var e *cdp.Engine
		if browser == "launched" {
			e = newEngine(b, engine.DialogsManual)
		} else {
			e = cdp.New(cdp.Config{Endpoint: testenv.PlainChromium(b), Viewport: engine.Viewport{Width: 1280, Height: 720}})
			e.Start()
			b.Cleanup(func() { e.Close() })
		}
		for _, page := range []string{"peerbench/large-gen.html", "peerbench/large.html"} {
			s := open(b, e, "/"+page)
			b.Run(browser+"/repeat/"+page, func(b *testing.B) {
				for range b.N {
					if _, err := s.Snapshot(bg, engine.SnapshotRequest{}); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(browser+"/first/"+page, func(b *testing.B) {
				for range b.N {
					b.StopTimer()
					if _, err := s.Navigate(bg, engine.NavigateRequest{URL: site.URL + "/" + page}); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					if _, err := s.Snapshot(bg, engine.SnapshotRequest{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

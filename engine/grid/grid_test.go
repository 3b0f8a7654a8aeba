package grid_test

import (
	"os"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/enginetest"
	"github.com/seed4af8c199/browsermcp/engine/grid"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// TestConformance runs the engine conformance suite on sessions of a local
// Selenium Grid, whenever one can be started (java, chromedriver and the
// jar of `make gridjar`; with BROWSERMCP_REQUIRE_BROWSER=1, as on CI, a
// missing one fails the test).
//
// A Grid session is engine/cdp's session in a browser the Grid started,
// wrapped by ours, so the page calls themselves are engine/cdp's, which its
// own run of the whole suite covers. What the Grid adds is what these parts
// test: creating sessions (their options travel as capabilities), every
// call and event through the Grid's se:cdp connection (navigation, clicks
// that wait for a still target, and typing), what the wrapper must pass on
// (the tabs, downloads and console errors an action caused, select and
// check included: the Report and Forms parts), the browser's own events
// (tabs, dialogs, console), the page's changes (Changes), the cookies
// and Web Storage the wrapper passes on, in temporary tabs of the Grid's
// browser too (Storage), and closing,
// and the outline of hostile pages (SnapshotHostile), which an agent must
// be able to trust on every backend. Every part starts Grid sessions, a
// browser each (seconds, where a local session is a browser context), so
// the whole suite takes minutes (3 with -race on two loaded cores); these
// parts take about half of that. For the rest:
//
//	BROWSERMCP_GRID_CONFORMANCE=all go test -run TestConformance ./engine/grid/
func TestConformance(t *testing.T) {
	parts := []string{"Sessions", "Navigate", "Click", "Stable", "Type", "Console", "Tabs", "TabsNewThatFails",
		"Forms", "ReportTabs", "ReportDownloads", "ReportConsole", "Dialogs", "FileChooser", "SnapshotHostile", "Changes", "Storage", "SessionClose", "EngineClose"}
	if os.Getenv("BROWSERMCP_GRID_CONFORMANCE") == "all" {
		parts = nil
	}
	g := testenv.StartGrid(t, "--max-sessions", "4", "--override-max-sessions", "true")
	path := testenv.Chromium(t)
	enginetest.RunParts(t, func(t *testing.T) engine.Engine {
		e, err := grid.New(grid.Config{URL: g.URL, Headless: true, ExecPath: path, Viewport: enginetest.Viewport, Policy: enginetest.Policy})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}, parts...)
}

// TestProxyLoginRefused: a proxy login is UNSUPPORTED on the Grid, before
// the Grid is asked for a browser (this one does not exist).
func TestProxyLoginRefused(t *testing.T) {
	e, err := grid.New(grid.Config{URL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.NewSession(t.Context(), engine.SessionOptions{Proxy: "http://127.0.0.1:3128", ProxyUsername: "ada", ProxyPassword: "s3cret"})
	if e := engine.AsError(err); err == nil || e.Code != engine.Unsupported || e.Details["field"] != "proxy" {
		t.Fatalf("NewSession with a proxy login: %v", err)
	}
}

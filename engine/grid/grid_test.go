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
// Selenium Grid. Every session is a browser the Grid starts (seconds each,
// where a local session is a browser context), so the whole suite takes
// many minutes: it runs only with BROWSERMCP_GRID_CONFORMANCE=1, e.g.
//
//	BROWSERMCP_GRID_CONFORMANCE=1 go test -run 'TestConformance/(Sessions|Navigate|Click)' ./engine/grid/
func TestConformance(t *testing.T) {
	if os.Getenv("BROWSERMCP_GRID_CONFORMANCE") != "1" {
		t.Skip("set BROWSERMCP_GRID_CONFORMANCE=1 to run the conformance suite on a Selenium Grid (many minutes)")
	}
	g := testenv.StartGrid(t, "--max-sessions", "4", "--override-max-sessions", "true")
	path := testenv.Chromium(t)
	enginetest.Run(t, func(t *testing.T) engine.Engine {
		e, err := grid.New(grid.Config{URL: g.URL, Headless: true, ExecPath: path, Viewport: enginetest.Viewport, Policy: enginetest.Policy})
		if err != nil {
			t.Fatal(err)
		}
		return e
	})
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

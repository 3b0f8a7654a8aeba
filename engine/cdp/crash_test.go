package cdp_test

import (
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/cdp"
	"github.com/seed4af8c199/browsermcp/engine/enginetest"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// TestRendererCrash: a crashed renderer costs the page, not the session.
func TestRendererCrash(t *testing.T) {
	path := testenv.Chromium(t)
	enginetest.RendererCrash(t, func(t *testing.T) engine.Engine {
		return cdp.New(cdp.Config{ExecPath: path, Headless: true, Viewport: enginetest.Viewport, Policy: enginetest.Policy})
	}, func(t *testing.T, s engine.Session) {
		if err := cdp.CrashRenderer(s); err != nil {
			t.Fatal(err)
		}
	})
}

// TestTraceRendererCrash: a crash stops the trace, and leaves no file.
func TestTraceRendererCrash(t *testing.T) {
	path := testenv.Chromium(t)
	enginetest.TraceCrash(t, func(t *testing.T) engine.Engine {
		return cdp.New(cdp.Config{ExecPath: path, Headless: true, Viewport: enginetest.Viewport, Policy: enginetest.Policy})
	}, func(t *testing.T, s engine.Session) {
		if err := cdp.CrashRenderer(s); err != nil {
			t.Fatal(err)
		}
	})
}

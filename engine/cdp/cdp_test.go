package cdp_test

import (
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/cdp"
	"github.com/seed4af8c199/browsermcp/engine/enginetest"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// TestConformance runs the engine conformance suite on headless Chromium.
func TestConformance(t *testing.T) {
	path := testenv.Chromium(t)
	enginetest.Run(t, func(t *testing.T) engine.Engine {
		return cdp.New(cdp.Config{ExecPath: path, Headless: true, Viewport: enginetest.Viewport, Policy: enginetest.Policy})
	})
}

// BenchmarkEngine measures the CDP engine on headless Chromium; compare with
// engine/pw's benchmarks.
func BenchmarkEngine(b *testing.B) {
	path := testenv.Chromium(b)
	enginetest.Benchmark(b, func(testing.TB) engine.Engine {
		return cdp.New(cdp.Config{ExecPath: path, Headless: true, Viewport: enginetest.Viewport, Policy: enginetest.Policy})
	})
}

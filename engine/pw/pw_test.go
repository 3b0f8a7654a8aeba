package pw_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/enginetest"
	"github.com/seed4af8c199/browsermcp/engine/pw"
	"github.com/seed4af8c199/browsermcp/internal/testenv/pwenv"
)

func conformance(t *testing.T, browser string) {
	cfg := pwenv.Playwright(t, browser)
	cfg.Viewport, cfg.Policy = enginetest.Viewport, enginetest.Policy
	enginetest.Run(t, func(t *testing.T) engine.Engine {
		e, err := pw.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return e
	})
}

// TestConformanceChromium runs the engine conformance suite on Chromium
// driven by Playwright.
func TestConformanceChromium(t *testing.T) { conformance(t, pw.Chromium) }

// TestConformanceFirefox runs the suite on Firefox (firefox-esr) driven by
// Playwright over WebDriver BiDi.
func TestConformanceFirefox(t *testing.T) { conformance(t, pw.Firefox) }

func benchmark(b *testing.B, browser string) {
	cfg := pwenv.Playwright(b, browser)
	cfg.Viewport, cfg.Policy = enginetest.Viewport, enginetest.Policy
	enginetest.Benchmark(b, func(tb testing.TB) engine.Engine {
		e, err := pw.New(cfg)
		if err != nil {
			tb.Fatal(err)
		}
		return e
	})
}

// BenchmarkChromium measures Chromium driven by Playwright; compare with
// engine/cdp's BenchmarkEngine on the same pages.
func BenchmarkChromium(b *testing.B) { benchmark(b, pw.Chromium) }

// BenchmarkFirefox measures firefox-esr driven by Playwright over BiDi.
func BenchmarkFirefox(b *testing.B) { benchmark(b, pw.Firefox) }

// TestDomainRulesRefused: the playwright engine refuses host rules it could
// not hold, rather than run with holes.
func TestDomainRulesRefused(t *testing.T) {
	cfg := pwenv.Playwright(t, pw.Chromium)
	pol, err := engine.NewPolicy([]string{"example.com"}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Policy = pol
	_, err = pw.New(cfg)
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != engine.Unsupported || !strings.Contains(e.Message, "cdp engine") {
		t.Fatalf("New with host rules = %v", err)
	}
}

// TestRendererCrash: a crashed renderer costs the page, not the session.
// Only Chromium: Firefox offers no way for a test to crash one content
// process over WebDriver BiDi (the recovery code is the same).
func TestRendererCrash(t *testing.T) {
	cfg := pwenv.Playwright(t, pw.Chromium)
	cfg.Viewport, cfg.Policy = enginetest.Viewport, enginetest.Policy
	enginetest.RendererCrash(t, func(t *testing.T) engine.Engine {
		e, err := pw.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}, func(t *testing.T, s engine.Session) {
		if err := pw.CrashRenderer(s); err != nil {
			t.Fatal(err)
		}
	})
}

// TestTraceRendererCrash: a crash stops the trace, and leaves no file
// (Chromium: Firefox does not trace).
func TestTraceRendererCrash(t *testing.T) {
	cfg := pwenv.Playwright(t, pw.Chromium)
	cfg.Viewport, cfg.Policy = enginetest.Viewport, enginetest.Policy
	enginetest.TraceCrash(t, func(t *testing.T) engine.Engine {
		e, err := pw.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}, func(t *testing.T, s engine.Session) {
		if err := pw.CrashRenderer(s); err != nil {
			t.Fatal(err)
		}
	})
}

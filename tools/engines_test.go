package tools_test

import (
	"sync"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/pw"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/internal/testenv/pwenv"
	"github.com/seed4af8c199/browsermcp/tools"
)

// One Firefox (engine/pw) serves every tool test that runs on both
// engines, launched on first use and closed by TestMain.
var (
	firefoxOnce   sync.Once
	sharedFirefox engine.Engine
)

// firefoxEngine returns the shared Firefox engine, or skips tb (fails
// under BROWSERMCP_REQUIRE_BROWSER=1) when the driver or Firefox is
// missing.
func firefoxEngine(tb testing.TB) engine.Engine {
	tb.Helper()
	cfg := pwenv.Playwright(tb, pw.Firefox)
	firefoxOnce.Do(func() {
		cfg.Viewport = engine.Viewport{Width: 1280, Height: 720}
		e, err := pw.New(cfg)
		if err != nil {
			tb.Fatalf("pw.New: %v", err)
		}
		e.Start()
		sharedFirefox = e
	})
	if sharedFirefox == nil {
		tb.Fatal("the shared Firefox failed to start in an earlier test")
	}
	return sharedFirefox
}

// eachEngine runs f as a subtest on Chromium (engine/cdp) and on Firefox
// (engine/pw), each with its own server on the shared browser, every tool
// group on: the tool layer's conformance on both engines.
func eachEngine(t *testing.T, f func(t *testing.T, e *env)) {
	t.Helper()
	t.Run("cdp", func(t *testing.T) {
		f(t, newEnv(t, sessions.Config{}))
	})
	t.Run("pw", func(t *testing.T) {
		eng := firefoxEngine(t)
		f(t, newEnvOnWith(t, eng, sessions.Config{}, tools.Options{Version: "test", Caps: []tools.Group{tools.All}}))
	})
}

// TestEachEngineReadsThePage checks the harness itself on both engines: a
// page opened through the tools reads back its title and text.
func TestEachEngineReadsThePage(t *testing.T) {
	eachEngine(t, func(t *testing.T, e *env) {
		id := e.open("/form.html")
		if got := e.title(id); got == "" {
			t.Fatalf("title of form.html is empty")
		}
		out := e.ok("get_text", map[string]any{"sessionId": id, "selector": "body"})
		if s, _ := out["text"].(string); s == "" {
			t.Fatalf("get_text body = %v", out)
		}
	})
}

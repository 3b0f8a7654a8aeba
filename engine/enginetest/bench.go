package enginetest

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
	"github.com/seed4af8c199/browsermcp/internal/tokens"
)

// Benchmark measures an engine on the suite's pages, so that engines can be
// compared op for op:
//
//   - startup: from Start to the first session (the browser launch an agent
//     waits for on its first call), then Close outside the timer;
//   - create_session: NewSession on a running engine (Close outside the
//     timer);
//   - navigate: Navigate to a small page that is served locally;
//   - click: Click on a button whose handler changes the page;
//   - click_busy_page: the same on a page that runs a clock and an
//     animation loop of its own, which no click waits for;
//   - click_timer: Click on a button whose handler changes the page after
//     300 ms, which the click waits for;
//   - snapshot/PAGE: Snapshot of a test page (the generated and the
//     Wikipedia-like peer benchmark pages), reporting its size in bytes and
//     o200k tokens;
//   - screenshot/PAGE, screenshot_full/PAGE: Screenshot of the viewport or
//     the whole page as PNG, reporting the image's bytes.
//
// newEngine returns an engine that has not been started.
func Benchmark(b *testing.B, newEngine func(tb testing.TB) engine.Engine) {
	site := httptest.NewServer(testsite.Handler())
	defer site.Close()
	bg := context.Background()
	opts := engine.SessionOptions{Viewport: Viewport}

	b.Run("startup", func(b *testing.B) {
		for range b.N {
			eng := bound{newEngine(b)}
			eng.Start()
			s, err := eng.NewSession(bg, opts)
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			s.Close(bg)
			eng.Close()
			b.StartTimer()
		}
	})

	eng := bound{newEngine(b)}
	eng.Start()
	defer eng.Close()
	warm, err := eng.NewSession(bg, opts)
	if err != nil {
		b.Fatal(err)
	}
	defer warm.Close(bg)

	b.Run("create_session", func(b *testing.B) {
		for range b.N {
			s, err := eng.NewSession(bg, opts)
			if err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			s.Close(bg)
			b.StartTimer()
		}
	})
	b.Run("navigate", func(b *testing.B) {
		for range b.N {
			if _, err := warm.Navigate(bg, engine.NavigateRequest{URL: site.URL + "/form.html"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("click", func(b *testing.B) {
		if _, err := warm.Navigate(bg, engine.NavigateRequest{URL: site.URL + "/form.html"}); err != nil {
			b.Fatal(err)
		}
		for range b.N {
			if _, err := warm.Click(bg, engine.ClickRequest{Target: engine.Target{Selector: "#count"}}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("click_busy_page", func(b *testing.B) {
		// A page with its own clock and animation loop: the click's
		// handler changes the page and starts nothing, so the click must
		// not wait for the page's own work.
		if _, err := warm.Navigate(bg, engine.NavigateRequest{URL: site.URL + "/settle.html"}); err != nil {
			b.Fatal(err)
		}
		for range b.N {
			if _, err := warm.Click(bg, engine.ClickRequest{Target: engine.Target{Selector: "#count"}}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("click_timer", func(b *testing.B) {
		// A click whose handler reveals the next step after 300 ms: the
		// click waits for it and SettleDOMQuiet after.
		for range b.N {
			b.StopTimer()
			if _, err := warm.Navigate(bg, engine.NavigateRequest{URL: site.URL + "/settle.html"}); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if _, err := warm.Click(bg, engine.ClickRequest{Target: engine.Target{Selector: "#next"}}); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, page := range []string{"snapshot.html", "peerbench/large-gen.html", "peerbench/large.html"} {
		b.Run("snapshot/"+page, func(b *testing.B) {
			if _, err := warm.Navigate(bg, engine.NavigateRequest{URL: site.URL + "/" + page}); err != nil {
				b.Fatal(err)
			}
			var r engine.SnapshotResult
			for range b.N {
				var err error
				if r, err = warm.Snapshot(bg, engine.SnapshotRequest{}); err != nil {
					b.Fatal(err)
				}
			}
			n, err := tokens.O200k(r.Text)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(len(r.Text)), "bytes")
			b.ReportMetric(float64(n), "o200k-tokens")
		})
	}
	// The screenshot tool's capture: the viewport (or, full, the whole
	// page) as PNG, on peerbench's small page and the Wikipedia-like one,
	// with the tool's default size cap; it reports the image's bytes. The
	// Wikipedia-like page's full PNG is over the cap in engine/cdp's fast
	// encoding, so that case shows the capture again for size too.
	for _, c := range []struct {
		page string
		full bool
	}{{"peerbench/login.html", false}, {"peerbench/large.html", false}, {"peerbench/large.html", true}} {
		name := "screenshot/" + c.page
		if c.full {
			name = "screenshot_full/" + c.page
		}
		b.Run(name, func(b *testing.B) {
			if _, err := warm.Navigate(bg, engine.NavigateRequest{URL: site.URL + "/" + c.page}); err != nil {
				b.Fatal(err)
			}
			var img []byte
			for range b.N {
				var err error
				if img, err = warm.Screenshot(bg, engine.ScreenshotRequest{Format: "png", FullPage: c.full, MaxBytes: 2 << 20}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(img)), "bytes")
		})
	}
	b.Run("type", func(b *testing.B) {
		if _, err := warm.Navigate(bg, engine.NavigateRequest{URL: site.URL + "/form.html"}); err != nil {
			b.Fatal(err)
		}
		for range b.N {
			if _, err := warm.Type(bg, engine.TypeRequest{Target: engine.Target{Selector: "#user"}, Text: "ada", Clear: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
	// As peerbench's type step: "bench<i>" into an empty field.
	b.Run("type_bench", func(b *testing.B) {
		if _, err := warm.Navigate(bg, engine.NavigateRequest{URL: site.URL + "/form.html"}); err != nil {
			b.Fatal(err)
		}
		for i := range b.N {
			if _, err := warm.Type(bg, engine.TypeRequest{Target: engine.Target{Selector: "#user"}, Text: fmt.Sprintf("bench%d", i%100), Clear: true}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

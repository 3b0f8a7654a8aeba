package cdp_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// BenchmarkScreenshotEncoding is the evidence for engine/cdp's PNG
// encoding: raw Page.captureScreenshot of the viewport, PNG encoded by
// default ("png") and for speed ("fast", optimizeForSpeed), interleaved in
// one loop on one tab, with two animation frames ("2raf") as the yardstick
// of what the capture waits for: Chromium redraws the page and copies the
// frame from the compositor, a frame or two at 60 Hz, before it encodes.
// It reports each one's median and each encoding's bytes.
func BenchmarkScreenshotEncoding(b *testing.B) {
	site := httptest.NewServer(testsite.Handler())
	defer site.Close()
	c := startRawChromium(b, testenv.Chromium(b))
	for _, page := range []string{"login.html", "large.html"} {
		b.Run(page, func(b *testing.B) {
			sess := c.page(b, "")
			c.call(b, sess, "Emulation.setDeviceMetricsOverride", map[string]any{"width": 1280, "height": 720, "deviceScaleFactor": 1, "mobile": false})
			c.call(b, sess, "Page.navigate", map[string]any{"url": site.URL + "/peerbench/" + page})
			c.eval(b, sess, `new Promise(r => document.readyState === "complete" ? r("") : addEventListener("load", () => r("")))`)
			shot := func(fast bool) int {
				var out struct {
					Data string `json:"data"`
				}
				raw := c.call(b, sess, "Page.captureScreenshot", map[string]any{"format": "png", "optimizeForSpeed": fast})
				if err := json.Unmarshal(raw, &out); err != nil {
					b.Fatal(err)
				}
				img, err := base64.StdEncoding.DecodeString(out.Data)
				if err != nil || len(img) < 8 || string(img[1:4]) != "PNG" {
					b.Fatalf("captureScreenshot returned no PNG: %v", err)
				}
				return len(img)
			}
			ops := []struct {
				name string
				do   func() int
			}{
				{"png", func() int { return shot(false) }},
				{"fast", func() int { return shot(true) }},
				{"2raf", func() int {
					c.eval(b, sess, `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(""))))`)
					return 0
				}},
			}
			ds := make([][]time.Duration, len(ops))
			size := make([]int, len(ops))
			for i := 0; b.Loop(); i++ {
				op := i % len(ops)
				t0 := time.Now()
				size[op] = ops[op].do()
				ds[op] = append(ds[op], time.Since(t0))
			}
			for i, op := range ops {
				if len(ds[i]) == 0 {
					continue
				}
				slices.Sort(ds[i])
				b.ReportMetric(float64(ds[i][len(ds[i])/2].Microseconds())/1000, op.name+"-p50-ms")
				if size[i] > 0 {
					b.ReportMetric(float64(size[i]), op.name+"-bytes")
				}
			}
		})
	}
}

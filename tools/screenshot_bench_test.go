package tools_test

import (
	"encoding/base64"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// BenchmarkScreenshot times the screenshot tool called as peerbench's
// screenshot step calls it, with only sessionId, on peerbench's small page
// (login.html): warm (nothing changed since the last capture) and right
// after a click changed the page, as in peerbench's iteration. It reports
// the median and the PNG's bytes.
func BenchmarkScreenshot(b *testing.B) {
	for _, afterClick := range []bool{false, true} {
		name := "warm"
		if afterClick {
			name = "after-click"
		}
		b.Run(name, func(b *testing.B) {
			e := newBench(b)
			id := e.open("/peerbench/login.html")
			e.call("type", map[string]any{"sessionId": id, "selector": "#user", "text": "bench"})
			args := map[string]any{"sessionId": id}
			var ds []time.Duration
			var size int
			for b.Loop() {
				if afterClick {
					b.StopTimer()
					e.call("click", map[string]any{"sessionId": id, "selector": "#remember"})
					e.call("click", map[string]any{"sessionId": id, "selector": "#submit"})
					b.StartTimer()
				}
				t0 := time.Now()
				res, err := e.c.CallTool(b.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "screenshot", Arguments: args}})
				ds = append(ds, time.Since(t0))
				if err != nil || res.IsError {
					b.Fatalf("screenshot: %v %v", err, res)
				}
				img, ok := mcp.AsImageContent(res.Content[len(res.Content)-1])
				if !ok || img.MIMEType != "image/png" {
					b.Fatalf("screenshot returned no PNG: %v", res.Content)
				}
				raw, _ := base64.StdEncoding.DecodeString(img.Data)
				size = len(raw)
			}
			p50(b, ds)
			b.ReportMetric(float64(size), "png-bytes")
		})
	}
}

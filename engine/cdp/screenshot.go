package cdp

import (
	"context"
	"math"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Screenshot captures the viewport, the full page, or one element.
func (s *session) Screenshot(ctx context.Context, req engine.ScreenshotRequest) ([]byte, error) {
	var clip *page.Viewport
	scale := req.Scale
	if scale <= 0 || scale > 1 {
		scale = 1
	}
	if req.Target != nil {
		// Scroll the element into view and read its box in page coordinates.
		b, err := engine.ElementBox(ctx, s.Evaluate, req.Target)
		if err != nil {
			return nil, err
		}
		clip = &page.Viewport{X: b.X, Y: b.Y, Width: math.Ceil(b.W), Height: math.Ceil(b.H), Scale: scale}
	}
	var img []byte
	err := s.run(ctx, "take a screenshot", func(ctx context.Context, t *chromedp.Target) error {
		p := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng, CaptureBeyondViewport: new(false)}
		if req.Format == "jpeg" {
			p.Format = page.CaptureScreenshotFormatJpeg
			q := int64(req.Quality)
			if q <= 0 {
				q = 80
			}
			p.Quality = &q
		}
		if clip == nil && (req.FullPage || scale != 1) {
			m, err := cdp.Call(ctx, t, page.GetLayoutMetrics, cdp.Empty{})
			if err != nil {
				return err
			}
			w, h := m.CSSLayoutViewport.ClientWidth, m.CSSLayoutViewport.ClientHeight
			x, y := float64(m.CSSVisualViewport.PageX), float64(m.CSSVisualViewport.PageY)
			if req.FullPage {
				w, h, x, y = int64(math.Ceil(m.CSSContentSize.Width)), int64(math.Ceil(m.CSSContentSize.Height)), 0, 0
			}
			clip = &page.Viewport{X: x, Y: y, Width: float64(w), Height: float64(h), Scale: scale}
		}
		if clip != nil {
			p.Clip = clip
			p.CaptureBeyondViewport = new(req.FullPage || req.Target != nil)
		}
		// A PNG encoded for speed (optimizeForSpeed: lighter compression)
		// takes Chromium 8-20 ms less than its default encoding on a
		// 1280x720 viewport (BenchmarkScreenshotEncoding), for bigger
		// bytes of the same pixels. Only when those bytes are over what
		// the caller takes is the page captured again, encoded for size.
		// The capture itself, a redrawn frame copied from the compositor,
		// is the same either way.
		if p.Format == page.CaptureScreenshotFormatPng {
			p.OptimizeForSpeed = new(true)
		}
		res, err := cdp.Call(ctx, t, page.CaptureScreenshot, p)
		if err == nil && p.OptimizeForSpeed != nil && req.MaxBytes > 0 && len(res.Data) > req.MaxBytes {
			p.OptimizeForSpeed = nil
			res, err = cdp.Call(ctx, t, page.CaptureScreenshot, p)
		}
		img = res.Data
		return err
	})
	return img, err
}

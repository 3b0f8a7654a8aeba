package cdp

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Screenshot captures the page's viewport as PNG. It is the minimal capture
// the screenshot resource needs; the screenshot tool adds options on top.
func (s *session) Screenshot(ctx context.Context) ([]byte, error) {
	var png []byte
	err := s.run(ctx, "take a screenshot", func(ctx context.Context, t *chromedp.Target) error {
		res, err := cdp.Call(ctx, t, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng})
		if err != nil {
			return err
		}
		png = res.Data
		return nil
	})
	return png, err
}

package cdp

import (
	"context"
	"errors"
	"strings"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
)

// PDF prints the page with Chromium's print-to-PDF. Headed Chrome does not
// implement it, which answers UNSUPPORTED.
func (s *session) PDF(ctx context.Context, req engine.PDFRequest) ([]byte, error) {
	p := page.PrintToPDFParams{Landscape: new(req.Landscape), PrintBackground: new(req.PrintBackground), PageRanges: req.PageRanges}
	if req.Format != "" {
		size, ok := engine.PaperFormats[req.Format]
		if !ok {
			return nil, engine.Errorf(engine.InvalidParameters, "format %q is not a known paper size", req.Format).With("field", "format")
		}
		p.PaperWidth, p.PaperHeight = size[0], size[1]
	}
	var pdf []byte
	err := s.run(ctx, "print the page to PDF", func(ctx context.Context, t *chromedp.Target) error {
		// A stream, because a long page's PDF can exceed what one protocol
		// message should carry.
		res, err := chromedp.PrintToPDF(func(pp *page.PrintToPDFParams) { *pp = p }, chromedp.PDFStream())(ctx, t)
		if err != nil {
			var ce *cdproto.Error
			if errors.As(err, &ce) {
				msg := strings.ToLower(ce.Message)
				switch {
				case strings.Contains(msg, "not implemented") || strings.Contains(msg, "not supported"):
					return engine.Wrap(engine.Unsupported, err, "this browser cannot print to PDF: "+ce.Message).
						Suggest("Print to PDF needs headless Chromium; start browsermcp with --headless.")
				case strings.Contains(msg, "page range"):
					return engine.Wrap(engine.InvalidParameters, err, "pageRanges: "+ce.Message).With("field", "pageRanges")
				}
			}
			return err
		}
		pdf = res
		return nil
	})
	return pdf, err
}

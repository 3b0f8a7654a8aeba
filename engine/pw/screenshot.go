package pw

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"

	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Screenshot captures the viewport, the full page, or one element, as
// engine/cdp does: an element is scrolled into view and clipped from the
// full page, so that one taller than the viewport is captured whole.
// Playwright cannot scale a capture down, so a Scale below 1 resizes the
// image here (an area average), which gives the same size as engine/cdp.
func (s *session) Screenshot(ctx context.Context, req engine.ScreenshotRequest) ([]byte, error) {
	scale := req.Scale
	if scale <= 0 || scale > 1 {
		scale = 1
	}
	// Caret "initial": the image shows the caret as the page does, as
	// engine/cdp's does. Playwright's default ("hide") walks every element
	// of every frame and sets caret-color on each field's inline style
	// before the capture and back after, which the page can observe
	// (MutationObserver, style) and which costs a walk of the DOM.
	o := playwright.PageScreenshotOptions{Type: playwright.ScreenshotTypePng, Scale: playwright.ScreenshotScaleCss, FullPage: &req.FullPage,
		Caret: playwright.ScreenshotCaretInitial}
	if req.Format == "jpeg" {
		q := req.Quality
		if q <= 0 {
			q = 80
		}
		o.Type, o.Quality = playwright.ScreenshotTypeJpeg, &q
	}
	if req.Target != nil {
		b, err := engine.ElementBox(ctx, s.Evaluate, req.Target)
		if err != nil {
			return nil, err
		}
		full := true
		o.FullPage = &full
		o.Clip = &playwright.Rect{X: b.X, Y: b.Y, Width: math.Ceil(b.W), Height: math.Ceil(b.H)}
	} else if err := s.alive(); err != nil {
		return nil, err
	}
	o.Timeout = ms(remaining(ctx, engine.DefaultNavigationTimeout))
	img, err := call(ctx, func() ([]byte, error) { return s.page.Screenshot(o) }, nil)
	if err != nil {
		return nil, s.classify(err, "take a screenshot")
	}
	if scale == 1 {
		return img, nil
	}
	return rescale(img, scale, o.Quality)
}

// rescale shrinks a PNG or JPEG (quality set) image by scale, averaging the
// source pixels under each target pixel.
func rescale(data []byte, scale float64, quality *int) ([]byte, error) {
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, engine.Wrap(engine.BrowserError, err, "could not decode the screenshot: "+err.Error())
	}
	sb := src.Bounds()
	w := max(1, int(math.Round(float64(sb.Dx())*scale)))
	h := max(1, int(math.Round(float64(sb.Dy())*scale)))
	dst := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		y0 := sb.Min.Y + y*sb.Dy()/h
		y1 := max(y0+1, sb.Min.Y+(y+1)*sb.Dy()/h)
		for x := range w {
			x0 := sb.Min.X + x*sb.Dx()/w
			x1 := max(x0+1, sb.Min.X+(x+1)*sb.Dx()/w)
			var r, g, b, a, n uint64
			for sy := y0; sy < y1; sy++ {
				for sx := x0; sx < x1; sx++ {
					c := color.NRGBAModel.Convert(src.At(sx, sy)).(color.NRGBA)
					r, g, b, a, n = r+uint64(c.R), g+uint64(c.G), b+uint64(c.B), a+uint64(c.A), n+1
				}
			}
			dst.SetNRGBA(x, y, color.NRGBA{uint8(r / n), uint8(g / n), uint8(b / n), uint8(a / n)})
		}
	}
	var out bytes.Buffer
	if quality != nil {
		err = jpeg.Encode(&out, dst, &jpeg.Options{Quality: *quality})
	} else {
		err = png.Encode(&out, dst)
	}
	if err != nil {
		return nil, engine.Wrap(engine.BrowserError, err, "could not encode the screenshot: "+err.Error())
	}
	return out.Bytes(), nil
}

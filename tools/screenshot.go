package tools

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/seed4af8c199/browsermcp/engine"
)

// ScreenshotIn is the input of screenshot.
type ScreenshotIn struct {
	SessionArg
	FullPage bool   `json:"fullPage,omitempty"`
	Type     string `json:"type,omitempty" jsonschema:"Default png,enum=png,enum=jpeg"`
	Quality  int    `json:"quality,omitempty" jsonschema:"JPEG quality 1-100" range:"0,100"`
}

func (in ScreenshotIn) validate() error { return oneOf("type", in.Type, "png", "jpeg") }

// ElementShotIn is the input of screenshot_element.
type ElementShotIn struct {
	SessionArg
	TargetArg
	Type    string `json:"type,omitempty" jsonschema:"Default png,enum=png,enum=jpeg"`
	Quality int    `json:"quality,omitempty" jsonschema:"JPEG quality 1-100" range:"0,100"`
}

func (in ElementShotIn) validate() error {
	if err := in.TargetArg.validate(); err != nil {
		return err
	}
	return ScreenshotIn{Type: in.Type}.validate()
}

// ImageOut describes a returned image.
type ImageOut struct {
	MimeType string `json:"mimeType"`
	Bytes    int    `json:"bytes"`
	Note     string `json:"note,omitempty"`
	SessionMeta
}

// DefaultMaxScreenshotBytes caps an image returned to the agent.
const DefaultMaxScreenshotBytes = 2 << 20

// capture takes a screenshot within the size cap. The engine is told the
// cap, so that a PNG it encoded for speed is encoded again for size when
// over it; a PNG still over the cap is taken again as JPEG at lower
// quality, then at smaller scales, rather than failing.
func capture(ctx context.Context, s engine.Session, req engine.ScreenshotRequest, max int) ([]byte, string, string, error) {
	if max <= 0 {
		max = DefaultMaxScreenshotBytes
	}
	mime := "image/" + req.Format
	req.MaxBytes = max
	img, err := s.Screenshot(ctx, req)
	if err != nil || len(img) <= max {
		return img, mime, "", err
	}
	orig := len(img)
	req.Format, mime = "jpeg", "image/jpeg"
	for _, step := range []struct {
		q     int
		scale float64
	}{{80, 1}, {60, 1}, {60, 0.75}, {50, 0.5}, {40, 0.35}, {30, 0.25}, {30, 0.15}, {30, 0.1}} {
		req.Quality, req.Scale = step.q, step.scale
		if img, err = s.Screenshot(ctx, req); err != nil {
			return nil, "", "", err
		}
		if len(img) <= max {
			return img, mime, fmt.Sprintf("%d-byte image exceeded the %d-byte cap; re-encoded as JPEG quality %d at scale %.2f", orig, max, step.q, step.scale), nil
		}
	}
	return nil, "", "", engine.Errorf(engine.ResourceExhausted, "the screenshot stays over the server's %d-byte cap even shrunk", max).
		With("reason", "size_cap").Suggest("Capture a smaller area (an element, not fullPage), or raise security.maxScreenshotSize.")
}

// imageResult returns the image as image content, or, when omitted
// (--image-responses omit), only the result that says where it was saved.
func imageResult(img []byte, mime, note string, omitted bool, info engine.SessionInfo) *mcp.CallToolResult {
	out := ImageOut{MimeType: mime, Bytes: len(img), Note: note}
	out.setMeta(info)
	r := result(out)
	if !omitted {
		r.Content = append(r.Content, mcp.NewImageContent(base64.StdEncoding.EncodeToString(img), mime))
	}
	return r
}

// shotCount numbers the screenshots saved under --image-responses omit.
var shotCount atomic.Int64

// saveImage writes an image the client cannot take to the output
// directory's screenshots folder, and returns the note that names the
// file; the file is removed when the session ends (shotLog.end).
func saveImage(dir, sessionID, mime string, img []byte, log *shotLog) (string, error) {
	dir = filepath.Join(dir, "screenshots")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", engine.Wrap(engine.BrowserError, err, "cannot save the screenshot: "+err.Error())
	}
	ext := strings.TrimPrefix(mime, "image/")
	path := filepath.Join(dir, fmt.Sprintf("%s-%d.%s", sessionID, shotCount.Add(1), ext))
	if err := os.WriteFile(path, img, 0o600); err != nil {
		return "", engine.FileError(engine.BrowserError, err, "cannot save the screenshot")
	}
	log.saved(sessionID, path)
	return "image omitted (--image-responses omit); saved to " + path, nil
}

func screenshot(d *Deps) Tool {
	return imageTool(d, "screenshot", "Screenshot the viewport or full page.",
		func(ctx context.Context, s engine.Session, in ScreenshotIn) ([]byte, string, string, error) {
			f := in.Type
			if f == "" {
				f = "png"
			}
			img, mime, note, err := capture(ctx, s, engine.ScreenshotRequest{FullPage: in.FullPage, Format: f, Quality: in.Quality}, d.MaxScreenshotBytes)
			if err == nil {
				d.shots.add(engine.SessionIDFrom(ctx), mime, img, in.FullPage)
			}
			return img, mime, note, err
		})
}

func screenshotElement(d *Deps) Tool {
	return imageTool(d, "screenshot_element", "Screenshot one element.",
		func(ctx context.Context, s engine.Session, in ElementShotIn) ([]byte, string, string, error) {
			f := in.Type
			if f == "" {
				f = "png"
			}
			tg := in.target()
			return capture(ctx, s, engine.ScreenshotRequest{Target: &tg, Format: f, Quality: in.Quality}, d.MaxScreenshotBytes)
		})
}

// imageTool is a session tool whose result carries an image as content.
func imageTool[In sessionRefer](d *Deps, name, desc string, fn func(context.Context, engine.Session, In) ([]byte, string, string, error)) Tool {
	type shot struct {
		img        []byte
		mime, note string
	}
	def := define[In, ImageOut](name, desc, readOnly)
	return Tool{Def: def, Group: Core, in: reflect.TypeFor[In](), session: true, Handler: onSession(d, name, def,
		func(ctx context.Context, s engine.Session, in In) (shot, error) {
			img, mime, note, err := fn(ctx, s, in)
			if err == nil && d.OmitImages {
				saved, err := saveImage(d.OutputDir, engine.SessionIDFrom(ctx), mime, img, &d.shots)
				if err != nil {
					return shot{}, err
				}
				note = strings.TrimPrefix(note+"; "+saved, "; ")
			}
			return shot{img, mime, note}, err
		},
		func(r shot, info engine.SessionInfo) *mcp.CallToolResult {
			return imageResult(r.img, r.mime, r.note, d.OmitImages, info)
		})}
}

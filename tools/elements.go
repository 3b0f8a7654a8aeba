package tools

import (
	"context"
	_ "embed"
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

// describeJS describes an element for find_element(s) and the element
// resources.
//
//go:embed js/describe.js
var describeJS string

// describeAllTmplJS makes of a function describing one element one that
// describes the first limit of several matches and counts them all.
//
//go:embed js/describe_all.js
var describeAllTmplJS string

// describeAllJS is what find_elements runs.
var describeAllJS = applyJS(describeAllTmplJS, describeJS)

// ElementInfo describes one element.
type ElementInfo struct {
	Tag        string             `json:"tag"`
	Text       string             `json:"text" jsonschema:"First 200 characters"`
	Attributes map[string]string  `json:"attributes"`
	Visible    bool               `json:"visible"`
	Enabled    bool               `json:"enabled"`
	Box        map[string]float64 `json:"box" jsonschema:"x, y, width, height in page CSS pixels"`
}

// FindElementOut is the result of find_element.
type FindElementOut struct {
	ElementInfo
	SessionMeta
}

func findElement(d *Deps) Tool {
	return sessionTool(d, "find_element", "Describe the first match.", readOnly,
		func(ctx context.Context, s engine.Session, in ElementIn) (FindElementOut, error) {
			i, err := evalInto[ElementInfo](ctx, s, in.req(s, describeJS))
			return FindElementOut{ElementInfo: i}, err
		})
}

// FindElementsIn is the input of find_elements.
type FindElementsIn struct {
	SessionArg
	TargetArg
	Limit int `json:"limit,omitempty" jsonschema:"Default 20" range:"0,1000"`
}

func (in FindElementsIn) validate() error {
	return in.TargetArg.validate()
}

// FindElementsOut is the result of find_elements.
type FindElementsOut struct {
	Elements []ElementInfo `json:"elements"`
	Total    int           `json:"total" jsonschema:"Matches before the limit"`
	SessionMeta
}

func findElements(d *Deps) Tool {
	return sessionTool(d, "find_elements", "Describe every match.", readOnly,
		func(ctx context.Context, s engine.Session, in FindElementsIn) (FindElementsOut, error) {
			limit := limitOr(in.Limit, 20)
			tg := in.target()
			out, err := evalInto[FindElementsOut](ctx, s, engine.EvalRequest{Target: &tg, All: true, Args: []any{limit}, Function: describeAllJS})
			if out.Elements == nil {
				out.Elements = []ElementInfo{}
			}
			return out, err
		})
}

//go:embed js/count.js
var countJS string

// ExistsOut is the result of element_exists.
type ExistsOut struct {
	Exists bool `json:"exists"`
	Count  int  `json:"count"`
	SessionMeta
}

func elementExists(d *Deps) Tool {
	return sessionTool(d, "element_exists", "Does anything match? No wait.", readOnly,
		func(ctx context.Context, s engine.Session, in struct {
			SessionArg
			TargetArg
		}) (ExistsOut, error) {
			tg := in.target()
			n, err := evalInto[int](ctx, s, engine.EvalRequest{Target: &tg, All: true, Function: countJS})
			return ExistsOut{Exists: n > 0, Count: n}, err
		})
}

// StateOut is the result of is_visible and is_enabled.
type StateOut struct {
	Value  bool `json:"value"`
	Exists bool `json:"exists"`
	SessionMeta
}

// firstMatchJS makes of a test on one element a function that reports
// whether anything matched and, if so, what the test says of the first
// match.
//
//go:embed js/first_match.js
var firstMatchJS string

func stateTool(d *Deps, name, desc, test string) Tool {
	fn := applyJS(firstMatchJS, test)
	return sessionTool(d, name, desc, readOnly,
		func(ctx context.Context, s engine.Session, in struct {
			SessionArg
			TargetArg
		}) (StateOut, error) {
			tg := in.target()
			r, err := evalInto[[]bool](ctx, s, engine.EvalRequest{Target: &tg, All: true, Function: fn})
			if err != nil {
				return StateOut{}, err
			}
			return StateOut{Exists: r[0], Value: r[1]}, nil
		})
}

var (
	//go:embed js/is_visible.js
	isVisibleJS string
	//go:embed js/is_enabled.js
	isEnabledJS string
)

func isVisible(d *Deps) Tool {
	return stateTool(d, "is_visible", "Is the first match visible? No wait.", isVisibleJS)
}

func isEnabled(d *Deps) Tool {
	return stateTool(d, "is_enabled", "Is the first match enabled? No wait.", isEnabledJS)
}

// WaitForSelectorIn is the input of wait_for_selector.
type WaitForSelectorIn struct {
	SessionArg
	TargetArg
	State   string `json:"state,omitempty" jsonschema:"Default visible,enum=attached,enum=detached,enum=visible,enum=hidden"`
	Timeout int    `json:"timeout,omitempty" range:"0,300000"`
}

func (in WaitForSelectorIn) validate() error {
	if err := in.TargetArg.validate(); err != nil {
		return err
	}
	return oneOf("state", in.State, "attached", "detached", "visible", "hidden")
}

// reachedJS is all wait_for_selector runs once the element is in its
// state: the engine's wait is the work.
//
//go:embed js/reached.js
var reachedJS string

func waitForSelector(d *Deps) Tool {
	return sessionTool(d, "wait_for_selector", "Wait for an element's state.", readOnly,
		func(ctx context.Context, s engine.Session, in WaitForSelectorIn) (SuccessOut, error) {
			state, timeout := in.State, in.Timeout
			if state == "" {
				state = "visible"
			}
			if timeout == 0 {
				timeout = 5000
			}
			tg := in.target()
			_, err := s.Evaluate(ctx, engine.EvalRequest{Target: &tg, State: state, Timeout: ms(timeout), Function: reachedJS})
			if err != nil {
				if e := engine.AsError(err); e.Code == engine.Timeout {
					e.Message = fmt.Sprintf("%s did not become %s within %d ms", tg, state, timeout)
					e.With("state", state).With("selector", tg.Selector)
				}
				return SuccessOut{}, err
			}
			return SuccessOut{Success: true, Message: fmt.Sprintf("%s is %s", tg, state)}, nil
		})
}

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

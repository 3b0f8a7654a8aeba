// Command floor measures the physical floors that bench/peers.sh sets
// browsermcp's figures against, raw over CDP with chromedp and nothing of
// ours in between, in the same run as the servers:
//
//   - coldstart: launch the browser, create a browser context with a page in
//     it, and navigate to the peerbench login page, until its load event;
//   - click: Input.dispatchMouseEvent press and release on a known point of
//     that page (its "Sign in" button), on a warm page; and, as a user's
//     click, a move there first (a mouseMoved is dispatched with the next
//     animation frame, so this floor holds a frame);
//   - steps: the other steps of peerbench's 7-step iteration, in its order, on
//     one warm page: Page.navigate to the login page until its load event,
//     Accessibility.getFullAXTree of it (Chromium's accessibility tree,
//     which every snapshot with Chromium's roles and names reads in some
//     form: the least a snapshot costs, before any formatting or refs),
//     Input.insertText of the typed text into its focused field,
//     Page.captureScreenshot of the viewport as PNG with optimizeForSpeed (the
//     fastest of PNG, JPEG and WebP here), then navigate to the large page and
//     read its tree.
//
// It launches the browser browsermcp launches by default (the headless
// shell when installed), with chromedp's default switches, and serves
// testdata/site itself on 127.0.0.1.
//
//	go run ./bench/floor -scenario coldstart -n 8 -json floor.coldstart.json
//	go run ./bench/floor -scenario click -n 30 -json floor.click.json
//	go run ./bench/floor -scenario steps -n 12 -json floor.steps.json
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine/browserpath"
	"github.com/seed4af8c199/browsermcp/internal/testsite"
)

// stat is a summary of samples in ms, with peerbench's field names.
type stat struct {
	N       int       `json:"n"`
	Median  float64   `json:"median"`
	P95     float64   `json:"p95"`
	Min     float64   `json:"min"`
	Samples []float64 `json:"samples_ms"`
}

func summarize(ms []float64) stat {
	s := slices.Clone(ms)
	slices.Sort(s)
	if len(s) == 0 {
		return stat{}
	}
	p95 := s[min(len(s)-1, int(float64(len(s))*0.95))]
	return stat{N: len(s), Median: s[len(s)/2], P95: p95, Min: s[0], Samples: ms}
}

// result is what a run writes; bench/report reads it.
type result struct {
	Browser   string    `json:"browser"`
	Started   time.Time `json:"started"`
	Coldstart *stat     `json:"coldstart_ms,omitempty"`
	Click     *stat     `json:"click_ms,omitempty"`
	ClickMove *stat     `json:"click_move_ms,omitempty"`
	// Steps are the floors of the other steps, by peerbench's step name.
	Steps map[string]*stat `json:"steps_ms,omitempty"`
}

// callTimeout bounds every step; a floor that hangs is no floor.
const callTimeout = 60 * time.Second

func main() {
	scenario := flag.String("scenario", "coldstart", "coldstart, click or steps")
	n := flag.Int("n", 8, "runs (coldstart), clicks (click) or iterations (steps)")
	out := flag.String("json", "", "write the result here (default stdout)")
	exec := flag.String("browser", "", "browser binary (default: what browsermcp launches headless)")
	flag.Parse()
	path := *exec
	if path == "" {
		p, err := browserpath.FindChromium("", true)
		if err != nil {
			fatal(err)
		}
		path = p
	}
	site := testsite.Start()
	defer site.Close()
	url := site.URL + "/peerbench/login.html"
	res := result{Browser: path, Started: time.Now().UTC()}
	switch *scenario {
	case "coldstart":
		var ms []float64
		for range *n {
			d, err := coldstart(path, url)
			if err != nil {
				fatal(err)
			}
			ms = append(ms, d)
		}
		s := summarize(ms)
		res.Coldstart = &s
	case "click":
		ms, moved, err := clicks(path, url, *n)
		if err != nil {
			fatal(err)
		}
		s, sm := summarize(ms), summarize(moved)
		res.Click, res.ClickMove = &s, &sm
	case "steps":
		ms, err := steps(path, site.URL+"/peerbench/", *n)
		if err != nil {
			fatal(err)
		}
		res.Steps = map[string]*stat{}
		for name, v := range ms {
			s := summarize(v)
			res.Steps[name] = &s
		}
	default:
		fatal(fmt.Errorf("unknown scenario %q", *scenario))
	}
	b, _ := json.MarshalIndent(res, "", "  ")
	if *out == "" {
		fmt.Println(string(b))
		return
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		fatal(err)
	}
}

func allocator(path string) (context.Context, context.CancelFunc) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.WindowSize(1280, 720))
	return chromedp.NewExecAllocator(context.Background(), opts...)
}

// launched starts the browser at path, everything bounded by d, and returns
// its root context and the function that ends it.
func launched(path string, d time.Duration) (context.Context, func(), error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	alloc, cancelAlloc := allocator(path)
	root, cancelRoot := chromedp.NewContext(alloc)
	stop := context.AfterFunc(ctx, cancelRoot)
	end := func() { stop(); cancelRoot(); cancelAlloc(); cancel() }
	// Starts the browser without opening a tab, as browsermcp does.
	if _, err := chromedp.CallBrowser(root, browser.GetVersion, cdp.Empty{}); err != nil {
		end()
		return nil, nil, fmt.Errorf("launch %s: %w", path, err)
	}
	return root, end, nil
}

// coldstart times one launch + browser context + page + navigation, in ms.
func coldstart(path, url string) (float64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	alloc, cancelAlloc := allocator(path)
	defer cancelAlloc()
	root, cancelRoot := chromedp.NewContext(alloc)
	defer cancelRoot()
	stop := context.AfterFunc(ctx, cancelRoot)
	defer stop()
	t0 := time.Now()
	// Starts the browser without opening a tab, as browsermcp does.
	if _, err := chromedp.CallBrowser(root, browser.GetVersion, cdp.Empty{}); err != nil {
		return 0, fmt.Errorf("launch %s: %w", path, err)
	}
	tab, cancelTab := chromedp.NewContext(root, chromedp.WithNewBrowserContext())
	defer cancelTab()
	if err := chromedp.Do(tab, chromedp.Navigate(url)); err != nil {
		return 0, fmt.Errorf("navigate: %w", err)
	}
	d := time.Since(t0)
	return float64(d.Microseconds()) / 1000, nil
}

// clicks times n press+release pairs on the login page's button, and n
// move+press+release, in ms, alternating.
func clicks(path, url string, n int) (ms, moved []float64, err error) {
	root, end, err := launched(path, callTimeout+time.Duration(n)*time.Second)
	if err != nil {
		return nil, nil, err
	}
	defer end()
	tab, cancelTab := chromedp.NewContext(root, chromedp.WithNewBrowserContext())
	defer cancelTab()
	if err := chromedp.Do(tab, chromedp.Navigate(url)); err != nil {
		return nil, nil, err
	}
	box, err := chromedp.Run(tab, chromedp.Evaluate[[]float64](
		`(() => { const r = document.getElementById("submit").getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`))
	if err != nil {
		return nil, nil, err
	}
	x, y := box[0], box[1]
	for i := range 2 * n {
		var d time.Duration
		err := chromedp.Do(tab, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			t0 := time.Now()
			types := []input.DispatchMouseEventType{input.DispatchMouseEventTypeMousePressed, input.DispatchMouseEventTypeMouseReleased}
			if i%2 == 1 {
				// Away and back, so that each move moves.
				if _, err := cdp.Call(ctx, t, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: 1, Y: 1}); err != nil {
					return err
				}
				t0 = time.Now()
				types = append([]input.DispatchMouseEventType{input.DispatchMouseEventTypeMouseMoved}, types...)
			}
			for _, typ := range types {
				if _, err := cdp.Call(ctx, t, input.DispatchMouseEvent, input.DispatchMouseEventParams{
					Type: typ, X: x, Y: y, Button: input.MouseButtonLeft, ClickCount: 1,
				}); err != nil {
					return err
				}
			}
			d = time.Since(t0)
			return nil
		}))
		if err != nil {
			return nil, nil, err
		}
		if i%2 == 1 {
			moved = append(moved, float64(d.Microseconds())/1000)
		} else {
			ms = append(ms, float64(d.Microseconds())/1000)
		}
	}
	// The clicks reached the page: the form's submit handler wrote its line.
	text, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.getElementById("result").textContent`))
	if err != nil || text == "" {
		return nil, nil, fmt.Errorf("the clicks did not reach the page (result %q, %v)", text, err)
	}
	return ms, moved, nil
}

// steps times the raw floors of peerbench's steps other than click, n
// iterations after one untimed, in ms by step name.
func steps(path, base string, n int) (map[string][]float64, error) {
	root, end, err := launched(path, callTimeout+time.Duration(n)*5*time.Second)
	if err != nil {
		return nil, err
	}
	defer end()
	// The load event of each new document, by loader.
	loads := make(chan cdp.LoaderID, 16)
	tab, cancelTab := chromedp.NewContext(root, chromedp.WithNewBrowserContext(), chromedp.WithListener(func(ev any) {
		if e, ok := ev.(*page.EventLifecycleEvent); ok && e.Name == "load" {
			select {
			case loads <- e.LoaderID:
			default:
			}
		}
	}))
	defer cancelTab()
	if err := chromedp.Do(tab, chromedp.Navigate(base+"login.html")); err != nil {
		return nil, err
	}
	out := map[string][]float64{}
	for i := range n + 1 {
		err := chromedp.Do(tab, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			ms := map[string]float64{}
			timed := func(name string, f func() error) error {
				t0 := time.Now()
				if err := f(); err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
				ms[name] = float64(time.Since(t0).Microseconds()) / 1000
				return nil
			}
			navigate := func(url string) func() error {
				return func() error {
					nav, err := cdp.Call(ctx, t, page.Navigate, page.NavigateParams{URL: url})
					if err != nil {
						return err
					}
					if nav.ErrorText != "" {
						return fmt.Errorf("navigate to %s: %s", url, nav.ErrorText)
					}
					for {
						select {
						case id := <-loads:
							if id == nav.LoaderID {
								return nil
							}
						case <-ctx.Done():
							return ctx.Err()
						}
					}
				}
			}
			axTree := func() error {
				tree, err := cdp.Call(ctx, t, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
				if err == nil && len(tree.Nodes) < 10 {
					err = fmt.Errorf("only %d accessibility nodes", len(tree.Nodes))
				}
				return err
			}
			text := fmt.Sprintf("bench%d", i)
			if err := timed("navigate_small", navigate(base+"login.html")); err != nil {
				return err
			}
			if err := timed("snapshot_small", axTree); err != nil {
				return err
			}
			if _, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: `document.getElementById("user").focus()`}); err != nil {
				return err
			}
			if err := timed("type", func() error {
				_, err := cdp.Call(ctx, t, input.InsertText, input.InsertTextParams{Text: text})
				return err
			}); err != nil {
				return err
			}
			got, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: `document.getElementById("user").value`, ReturnByValue: new(true)})
			if err != nil {
				return fmt.Errorf("read the typed field: %w", err)
			}
			if got.Result == nil || string(got.Result.Value) != strconv.Quote(text) {
				return fmt.Errorf("the typed text %q did not reach the field", text)
			}
			if err := timed("screenshot", func() error {
				shot, err := cdp.Call(ctx, t, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatPng, OptimizeForSpeed: new(true)})
				if err == nil && len(shot.Data) == 0 {
					err = fmt.Errorf("empty screenshot")
				}
				return err
			}); err != nil {
				return err
			}
			if err := timed("navigate_large", navigate(base+"large.html")); err != nil {
				return err
			}
			if err := timed("snapshot_large", axTree); err != nil {
				return err
			}
			if i > 0 {
				for name, v := range ms {
					out[name] = append(out[name], v)
				}
			}
			return nil
		}))
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "floor:", err)
	os.Exit(1)
}

// Command floor measures the physical floors that bench/peers.sh sets
// browsermcp's figures against, raw over CDP with chromedp and nothing of
// ours in between, in the same run as the servers:
//
//   - coldstart: launch the browser, create a browser context with a page in
//     it, and navigate to the peerbench login page, until its load event;
//   - click: Input.dispatchMouseEvent press and release on a known point of
//     that page (its "Sign in" button), on a warm page; and, as a user's
//     click, a move there first (a mouseMoved is dispatched with the next
//     animation frame, so this floor holds a frame).
//
// It launches the browser browsermcp launches by default (the headless
// shell when installed), with chromedp's default switches, and serves
// testdata/site itself on 127.0.0.1.
//
//	go run ./bench/floor -scenario coldstart -n 8 -json floor.coldstart.json
//	go run ./bench/floor -scenario click -n 30 -json floor.click.json
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
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
}

// callTimeout bounds every step; a floor that hangs is no floor.
const callTimeout = 60 * time.Second

func main() {
	scenario := flag.String("scenario", "coldstart", "coldstart or click")
	n := flag.Int("n", 8, "runs (coldstart) or clicks (click)")
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
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout+time.Duration(n)*time.Second)
	defer cancel()
	alloc, cancelAlloc := allocator(path)
	defer cancelAlloc()
	root, cancelRoot := chromedp.NewContext(alloc)
	defer cancelRoot()
	stop := context.AfterFunc(ctx, cancelRoot)
	defer stop()
	if _, err := chromedp.CallBrowser(root, browser.GetVersion, cdp.Empty{}); err != nil {
		return nil, nil, fmt.Errorf("launch %s: %w", path, err)
	}
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

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "floor:", err)
	os.Exit(1)
}

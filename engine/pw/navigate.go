package pw

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine"
)

var waitStates = map[engine.WaitUntil]*playwright.WaitUntilState{
	engine.WaitLoad:             playwright.WaitUntilStateLoad,
	engine.WaitDOMContentLoaded: playwright.WaitUntilStateDomcontentloaded,
	engine.WaitNetworkIdle:      playwright.WaitUntilStateNetworkidle,
}

// Navigate loads a URL in the main frame and waits for the requested
// lifecycle state of the new document.
func (s *session) navigateAction(ctx context.Context, req engine.NavigateRequest) (engine.NavigateResult, error) {
	state, ok := waitStates[req.WaitUntil]
	if !ok {
		return engine.NavigateResult{}, engine.Errorf(engine.InvalidParameters, "unknown waitUntil %q", req.WaitUntil).With("field", "waitUntil")
	}
	if ok, reason := s.e.cfg.Policy.Check(req.URL); !ok {
		return engine.NavigateResult{}, engine.Refused(req.URL, reason)
	}
	// Leaving the page drops a file chooser it left waiting.
	s.st.dropChooser(nil)
	if err := s.alive(); err != nil {
		return engine.NavigateResult{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, req.Timeout)
	defer cancel()
	start := time.Now()
	resp, err := call(ctx, func() (playwright.Response, error) {
		return s.page.Goto(req.URL, playwright.PageGotoOptions{WaitUntil: state, Timeout: ms(remaining(ctx, req.Timeout))})
	}, nil)
	if err != nil {
		return engine.NavigateResult{}, s.navErr(req, start, err)
	}
	res := engine.NavigateResult{URL: s.page.URL()}
	if resp != nil {
		res.Status = resp.Status()
	}
	title, err := call(ctx, s.page.Title, nil)
	if err != nil {
		return engine.NavigateResult{}, s.classify(err, "read the title of "+req.URL)
	}
	s.titleMu.Lock()
	s.title = title
	s.titleMu.Unlock()
	res.Title = title
	return res, nil
}

// netErrorRE finds the network error code in a Playwright navigation error:
// Chromium's net::ERR_* or Firefox's NS_ERROR_* / NS_BINDING_*.
var netErrorRE = regexp.MustCompile(`net::ERR_[A-Z_]+|NS_ERROR_[A-Z_]+|NS_BINDING_[A-Z_]+`)

// navErr classifies a navigation failure as engine/cdp does: a timeout is
// NAVIGATION_FAILED with the URL, a browser's error engine.NavigationFailure
// decides, anything else keeps its class.
func (s *session) navErr(req engine.NavigateRequest, start time.Time, err error) error {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, playwright.ErrTimeout) {
		return engine.Wrap(engine.NavigationFailed, err,
			fmt.Sprintf("navigation to %s did not reach %q within %d ms", req.URL, req.WaitUntil, req.Timeout.Milliseconds())).
			With("url", req.URL).With("reason", "timeout").With("timeout", req.Timeout.Milliseconds()).
			Suggest("The page is slow or never finishes loading; raise timeout or use waitUntil: \"domcontentloaded\".")
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, playwright.ErrTargetClosed) || s.b.Lost() {
		return s.classify(err, "navigate to "+req.URL)
	}
	msg := firstLine(err)
	netErr := netErrorRE.FindString(msg)
	if netErr == "" {
		// Firefox over BiDi answers "unknown error"; the request's own
		// failure, in the log, names it (NS_ERROR_UNKNOWN_HOST).
		netErr = netErrorRE.FindString(s.net.failure(req.URL, start))
	}
	if netErr == "" {
		netErr = msg
	}
	return engine.NavigationFailure(req.URL, netErr, err)
}

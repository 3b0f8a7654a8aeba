package cdp

import (
	"context"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
)

// CrashRenderer crashes the renderer of s's current tab (Page.crash), for
// tests. It returns once the command is on its way: Page.crash is not
// answered when it works.
func CrashRenderer(s engine.Session) error {
	t, ok := engine.As[*tabbed](s)
	if !ok {
		return fmt.Errorf("%T is not this engine's session", s)
	}
	cur := t.tabs.Current()
	c, cancel := context.WithTimeout(cur.tab, 10*time.Second)
	go func() {
		defer cancel()
		_ = chromedp.Do(c, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, page.Crash, cdp.Empty{})
			return err
		}))
	}()
	return nil
}

// CrashBrowser crashes the browser of s (Browser.crash), for tests; like
// Page.crash, the command is not answered when it works.
func CrashBrowser(s engine.Session) error {
	t, ok := engine.As[*tabbed](s)
	if !ok {
		return fmt.Errorf("%T is not this engine's session", s)
	}
	c, cancel := context.WithTimeout(t.b.ctx, 10*time.Second)
	go func() {
		defer cancel()
		_, _ = chromedp.CallBrowser(c, browser.Crash, cdp.Empty{})
	}()
	return nil
}

package pw

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit"
)

// consoleLogSize bounds the console buffer of one session, as in engine/cdp.
const consoleLogSize = 1000

// maxConsoleText bounds one message's text.
const maxConsoleText = 4096

// consoleLog is a session's bounded console buffer: console API calls and
// uncaught exceptions, in arrival order. Two differences from engine/cdp
// come from what Playwright reports: the text is Playwright's rendering of
// the arguments (format specifiers such as %s are not applied on every
// browser), and the browser's own log (failed loads) arrives, where the
// browser reports it at all, as a console message of type "error" instead
// of type "browser". An unhandled rejection is reported as "Uncaught", like
// an uncaught exception.
type consoleLog struct {
	mu   sync.Mutex
	msgs kit.RecentLog[engine.ConsoleMessage] // made on first use
	// errors counts the messages at level error, for action results.
	errors kit.ErrorCounter
}

func (c *consoleLog) push(m engine.ConsoleMessage) {
	m.Text, m.URL = engine.Clip(m.Text, maxConsoleText), engine.Clip(m.URL, maxLoggedURL)
	if m.Level == "error" {
		c.errors.Add()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.msgs.Len() == 0 {
		c.msgs = kit.NewRecentLog[engine.ConsoleMessage](consoleLogSize)
	}
	c.msgs.Add(m)
}

func (c *consoleLog) watch(p playwright.Page) {
	p.OnConsole(func(cm playwright.ConsoleMessage) {
		typ := consoleType(cm.Type())
		m := engine.ConsoleMessage{Type: typ, Level: consoleLevel(typ), Text: cm.Text(), Time: time.Now().UnixMilli()}
		if loc := cm.Location(); loc != nil {
			m.URL = loc.URL
			if loc.URL != "" {
				m.Line = int64(loc.LineNumber + 1)
			}
		}
		c.push(m)
	})
	p.OnPageError(func(err error) {
		text := strings.TrimPrefix(err.Error(), "playwright: ")
		var pe *playwright.Error
		if errors.As(err, &pe) {
			text = pe.Message
			if pe.Name != "" && !strings.HasPrefix(text, pe.Name) {
				text = pe.Name + ": " + text
			}
		}
		c.pushException("Uncaught " + text)
	})
}

func (c *consoleLog) pushException(text string) {
	c.push(engine.ConsoleMessage{Type: "exception", Level: "error", Text: text, Time: time.Now().UnixMilli()})
}

// pageErrorJS reports the page's uncaught exceptions and unhandled
// rejections to pageErrorBinding. Playwright 1.52's WebDriver BiDi backend
// drops the browser's "javascript" log entries, so on Firefox this is how
// they reach the console log; the page can see the binding's global.
const pageErrorJS = `(() => {
  const report = (prefix, e) => {
    const text = e instanceof Error ? e.name + ": " + e.message : String(e);
    try { globalThis.__browsermcpPageError(prefix + text); } catch {}
  };
  addEventListener("error", (ev) => report("Uncaught ", ev.error !== undefined && ev.error !== null ? ev.error : ev.message));
  addEventListener("unhandledrejection", (ev) => report("Uncaught (in promise) ", ev.reason));
})()`

const pageErrorBinding = "__browsermcpPageError"

// watchPageErrors installs pageErrorJS on p.
func (c *consoleLog) watchPageErrors(p playwright.Page) error {
	err := p.ExposeFunction(pageErrorBinding, func(args ...any) any {
		if len(args) > 0 {
			if text, ok := args[0].(string); ok {
				c.pushException(text)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return p.AddInitScript(playwright.Script{Content: playwright.String(pageErrorJS)})
}

// consoleLevel maps a console method to its level.
func consoleLevel(t string) string {
	switch t {
	case "error", "assert":
		return "error"
	case "warning":
		return "warning"
	case "info":
		return "info"
	case "debug":
		return "debug"
	}
	return "log"
}

// consoleType names console methods as the DevTools protocol does, which
// engine/cdp reports; WebDriver BiDi uses the method names.
func consoleType(t string) string {
	if t == "warn" {
		return "warning"
	}
	return t
}

// ConsoleMessages returns the newest recorded messages at q.Level or above.
func (s *session) ConsoleMessages(ctx context.Context, q engine.ConsoleQuery) (engine.ConsoleLog, error) {
	c := s.console
	c.mu.Lock()
	defer c.mu.Unlock()
	all, total := kit.Newest(&c.msgs, q.Limit, func(m engine.ConsoleMessage) (engine.ConsoleMessage, bool) {
		return m, q.Keeps(m)
	})
	return engine.ConsoleLog{Messages: all, Total: total, Dropped: c.msgs.Dropped()}, nil
}

package pw

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/seed4af8c199/browsermcp/engine"
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
	mu      sync.Mutex
	msgs    []engine.ConsoleMessage
	dropped int
	// errors counts the messages at level error, for action results.
	errors engine.ErrorCounter
}

func (c *consoleLog) push(m engine.ConsoleMessage) {
	m.Text, m.URL = truncate(m.Text, maxConsoleText), truncate(m.URL, 2048)
	if m.Level == "error" {
		c.errors.Add()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.msgs) == consoleLogSize {
		c.msgs = slices.Delete(c.msgs, 0, 1)
		c.dropped++
	}
	c.msgs = append(c.msgs, m)
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
	all := []engine.ConsoleMessage{}
	for _, m := range c.msgs {
		if q.Keeps(m) {
			all = append(all, m)
		}
	}
	total := len(all)
	if q.Limit > 0 && total > q.Limit {
		all = all[total-q.Limit:]
	}
	return engine.ConsoleLog{Messages: all, Total: total, Dropped: c.dropped}, nil
}

// truncate bounds stored strings without splitting a UTF-8 sequence.
func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

package cdp

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit"
)

// consoleLogSize bounds the console buffer of one session.
const consoleLogSize = 1000

// maxConsoleText bounds one message's text.
const maxConsoleText = 4096

// consoleLog is a session's bounded console buffer: console API calls,
// uncaught exceptions and browser log entries, in arrival order.
type consoleLog struct {
	mu   sync.Mutex
	msgs kit.RecentLog[engine.ConsoleMessage]
	// errors counts the messages at level error, for action results.
	errors kit.ErrorCounter
}

func (c *consoleLog) init() { c.msgs = kit.NewRecentLog[engine.ConsoleMessage](consoleLogSize) }

func (c *consoleLog) onEvent(ev any) {
	var m engine.ConsoleMessage
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		m = engine.ConsoleMessage{Type: string(ev.Type), Level: apiLevel(ev.Type), Text: consoleText(ev.Args), Time: int64(ev.Timestamp)}
		if st := ev.StackTrace; st != nil && len(st.CallFrames) > 0 {
			m.URL, m.Line = st.CallFrames[0].URL, st.CallFrames[0].LineNumber+1
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		m = engine.ConsoleMessage{Type: "exception", Level: "error", Text: d.Text, URL: d.URL, Line: d.LineNumber + 1, Time: int64(ev.Timestamp)}
		if d.Exception != nil {
			// The text is "Uncaught" or "Uncaught (in promise)"; the
			// description is the error with its stack, which we cut.
			desc, _, _ := strings.Cut(consoleValue(d.Exception), "\n    at ")
			m.Text = strings.TrimSpace(d.Text + " " + desc)
		}
		if st := d.StackTrace; m.URL == "" && st != nil && len(st.CallFrames) > 0 {
			m.URL = st.CallFrames[0].URL
		}
	case *log.EventEntryAdded:
		e := ev.Entry
		m = engine.ConsoleMessage{Type: "browser", Level: string(e.Level), Text: e.Text, URL: e.URL, Time: int64(e.Timestamp)}
		if e.LineNumber > 0 {
			m.Line = e.LineNumber + 1
		}
		if e.Level == log.EntryLevelVerbose {
			m.Level = "debug"
		}
	default:
		return
	}
	m.Text, m.URL = engine.Clip(m.Text, maxConsoleText), engine.Clip(m.URL, maxLoggedURL)
	if m.Level == "error" {
		c.errors.Add()
	}
	c.mu.Lock()
	c.msgs.Add(m)
	c.mu.Unlock()
}

// apiLevel maps a console method to its level.
func apiLevel(t runtime.ConsoleAPICalledType) string {
	switch t {
	case runtime.ConsoleAPICalledTypeError, runtime.ConsoleAPICalledTypeAssert:
		return "error"
	case runtime.ConsoleAPICalledTypeWarning:
		return "warning"
	case runtime.ConsoleAPICalledTypeInfo:
		return "info"
	case runtime.ConsoleAPICalledTypeDebug:
		return "debug"
	}
	return "log"
}

// ConsoleMessages returns the newest recorded messages at q.Level or above.
func (s *session) ConsoleMessages(ctx context.Context, q engine.ConsoleQuery) (engine.ConsoleLog, error) {
	c := &s.obs.console
	c.mu.Lock()
	defer c.mu.Unlock()
	msgs, total := kit.Newest(&c.msgs, q.Limit, func(m engine.ConsoleMessage) (engine.ConsoleMessage, bool) {
		return m, q.Keeps(m)
	})
	return engine.ConsoleLog{Messages: msgs, Total: total, Dropped: c.msgs.Dropped()}, nil
}

// consoleText renders console API arguments as the DevTools console does:
// format specifiers in a first string argument take the following ones.
func consoleText(args []*runtime.RemoteObject) string {
	var parts []string
	rest := args
	if len(args) > 0 && args[0].Type == runtime.RemoteObjectTypeString {
		f, n := consoleFormat(consoleValue(args[0]), args[1:])
		parts, rest = append(parts, f), args[1+n:]
	}
	for _, a := range rest {
		parts = append(parts, consoleValue(a))
	}
	return strings.Join(parts, " ")
}

// consoleFormat applies %s %d %i %f %o %O %c %% and returns how many
// arguments it used.
func consoleFormat(format string, args []*runtime.RemoteObject) (string, int) {
	if !strings.Contains(format, "%") {
		return format, 0
	}
	var b strings.Builder
	used := 0
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) {
			b.WriteByte(c)
			continue
		}
		verb := format[i+1]
		if verb == '%' {
			b.WriteByte('%')
			i++
			continue
		}
		if !strings.ContainsRune("sdifoOc", rune(verb)) || used == len(args) {
			b.WriteByte(c)
			continue
		}
		a := args[used]
		used, i = used+1, i+1
		switch verb {
		case 'd', 'i', 'f':
			f, err := strconv.ParseFloat(string(a.Value), 64)
			switch {
			case a.Type != runtime.RemoteObjectTypeNumber || err != nil:
				b.WriteString("NaN")
			case verb == 'f':
				b.WriteString(strconv.FormatFloat(f, 'f', -1, 64))
			default:
				b.WriteString(strconv.FormatInt(int64(f), 10))
			}
		case 'c': // a CSS style: prints nothing
		default:
			b.WriteString(consoleValue(a))
		}
	}
	return b.String(), used
}

// consoleValue renders one value: strings as they are, primitives by value,
// objects by a short preview of their properties or their description.
func consoleValue(o *runtime.RemoteObject) string {
	if o == nil {
		return "null"
	}
	switch o.Type {
	case runtime.RemoteObjectTypeString:
		var s string
		if json.Unmarshal(o.Value, &s) == nil {
			return s
		}
	case runtime.RemoteObjectTypeUndefined:
		return "undefined"
	case runtime.RemoteObjectTypeObject:
		if o.Subtype == runtime.RemoteObjectSubtypeNull {
			return "null"
		}
		if o.Preview != nil && o.Subtype != runtime.RemoteObjectSubtypeError {
			return previewText(o.Preview)
		}
	}
	switch {
	case o.UnserializableValue != "":
		return string(o.UnserializableValue)
	case o.Description != "":
		return o.Description
	case len(o.Value) > 0:
		return string(o.Value)
	}
	return string(o.Type)
}

// previewText renders an object preview, e.g. {a: 1, b: "x"} or [1, 2].
func previewText(p *runtime.ObjectPreview) string {
	var items []string
	array := p.Subtype == runtime.ObjectPreviewSubtypeArray
	for _, prop := range p.Properties {
		v := prop.Value
		switch {
		case prop.ValuePreview != nil:
			v = previewText(prop.ValuePreview)
		case prop.Type == runtime.PropertyPreviewTypeString:
			v = strconv.Quote(v)
		}
		if !array {
			v = prop.Name + ": " + v
		}
		items = append(items, v)
	}
	if p.Overflow {
		items = append(items, "…")
	}
	body := strings.Join(items, ", ")
	switch {
	case array:
		return "[" + body + "]"
	case p.Description == "Object":
		return "{" + body + "}"
	}
	return p.Description + " {" + body + "}"
}

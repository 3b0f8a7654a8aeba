package cdp

import (
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
)

// observer records a tab's requests and console messages and queues the
// requests its routes paused. It is a tab listener installed before the
// tab's first command, so it sees every event in order; like pageState it
// only records and wakes, and never calls CDP from the listener.
type observer struct {
	net     netLog
	console consoleLog
	routes  router
	cond    conditions
	popups  popups // see report.go
}

func newObserver() *observer {
	o := &observer{}
	o.net.init()
	o.net.cond = &o.cond
	o.console.init()
	o.popups.init()
	o.routes.init(&o.net)
	return o
}

// onEvent is the tab listener. It must return fast and never call CDP.
func (o *observer) onEvent(ev any) {
	o.popups.onEvent(ev)
	switch ev := ev.(type) {
	case *fetch.EventRequestPaused:
		o.routes.paused(ev)
	case *network.EventRequestWillBeSent, *network.EventRequestWillBeSentExtraInfo, *network.EventResponseReceived,
		*network.EventLoadingFinished, *network.EventLoadingFailed:
		o.net.onEvent(ev)
	case *runtime.EventConsoleAPICalled, *runtime.EventExceptionThrown, *log.EventEntryAdded:
		o.console.onEvent(ev)
	}
}

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

// ring is a bounded FIFO: adding to a full ring forgets the oldest item.
type ring[T any] struct {
	buf     []T
	start   int // index of the oldest item
	n       int
	dropped int // items forgotten so far
}

func newRing[T any](size int) ring[T] { return ring[T]{buf: make([]T, size)} }

// push adds v and returns the item it evicted, if any.
func (r *ring[T]) push(v T) (old T, evicted bool) {
	if r.n < len(r.buf) {
		r.buf[(r.start+r.n)%len(r.buf)] = v
		r.n++
		return old, false
	}
	old = r.buf[r.start]
	r.buf[r.start] = v
	r.start = (r.start + 1) % len(r.buf)
	r.dropped++
	return old, true
}

// each calls f on every item, oldest first.
func (r *ring[T]) each(f func(T)) {
	for i := range r.n {
		f(r.buf[(r.start+i)%len(r.buf)])
	}
}

// newest returns the last limit items that keep(item) accepts, oldest first,
// and how many were accepted in all. limit 0 means all.
func newest[T, U any](r *ring[T], limit int, keep func(T) (U, bool)) ([]U, int) {
	var all []U
	r.each(func(v T) {
		if u, ok := keep(v); ok {
			all = append(all, u)
		}
	})
	total := len(all)
	if limit > 0 && total > limit {
		all = all[total-limit:]
	}
	if all == nil {
		all = []U{}
	}
	return all, total
}

// truncate bounds stored strings; data: URLs and long messages can be
// megabytes.
func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}

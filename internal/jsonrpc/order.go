package jsonrpc

import (
	"context"
	"math"
	"sync"
	"time"
)

// Order puts back in their order the requests a client sends at once over
// HTTP. Over Streamable HTTP and legacy SSE each message is a POST of its
// own, and a client that does not wait for answers (the TypeScript SDK
// sends each request with its own fetch, on several connections) has its
// POSTs reach the server in any order: a click posted after a navigate
// can arrive first. Clients number their requests 0, 1, 2, ... (the
// TypeScript, Python and Go SDKs do), so a request whose id is ahead of
// the next one expected from its client waits, at most Wait, for the ones
// before it to arrive; then it goes on. Requests with other ids (strings,
// far ahead, behind) never wait, and a client whose gaps were not filled
// in time three times is not waited for again. A wait that runs out skips
// only the ids that have not arrived: a request that has is never passed
// by a later one. Order keeps at most orderLines clients, the least
// recently heard from leaving first.
type Order struct {
	// Wait is the longest a request waits for the ones before it; 0 is
	// DefaultOrderWait.
	Wait time.Duration

	mu    sync.Mutex
	lines map[string]*idLine
}

// DefaultOrderWait is Order's wait when Wait is 0: long enough for the
// POSTs a client sent together to arrive on a busy machine, short enough
// not to stall a client that skips an id.
const DefaultOrderWait = 500 * time.Millisecond

// orderGap is the furthest ahead of the next expected id that a request
// waits for; orderMisses is how many waits may run out on one client
// before it is not waited for again.
// orderLines is the most clients it keeps, and orderKeyMax the longest
// key it orders by (a client names its own MCP session, and mcp-go's are
// 48 bytes): neither the number nor the size of the keys clients send
// grows the server's memory without bound.
const (
	orderGap    = 64
	orderMisses = 3
	orderLines  = 1024
	orderKeyMax = 256
)

// idLine is one client's requests: every id below next has gone on (or
// was given up on); passed holds those at or above next that have, and
// arrived those at or above next that have come and not yet gone on.
type idLine struct {
	next    int64
	passed  map[int64]bool
	arrived map[int64]bool
	wake    chan struct{} // closed when next moves
	misses  int
	skips   int // waits that ran out and gave up on ids, in all
	used    time.Time
}

// Base says that the first request of the client key will have id next:
// the id after its initialize, which reaches the server before key exists.
func (o *Order) Base(key string, next int64) {
	if key == "" || len(key) > orderKeyMax {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.lines[key]; !ok {
		o.add(key, next)
	}
}

// Enter waits until the requests of the client key with ids below id have
// gone on, at most Wait (or until ctx ends), and returns the func to call
// once this request has taken its place (its turn, or its line on the
// stream): the request after it waits for that.
func (o *Order) Enter(ctx context.Context, key string, id any) (done func()) {
	n, ok := o.ordered(key, id)
	if !ok {
		return func() {}
	}
	done = func() { o.pass(key, n) }
	o.mu.Lock()
	defer o.mu.Unlock()
	l := o.join(key, n)
	if n < l.next || l.misses >= orderMisses {
		return done
	}
	l.arrived[n] = true
	if n == l.next {
		return done
	}
	wait := o.Wait
	if wait <= 0 {
		wait = DefaultOrderWait
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	expired, skips := false, l.skips
	for n > l.next {
		if expired {
			// The wait ran out: the ids before it that have not come are
			// given up on (they go on when they come), up to the first
			// that has, which goes on before it.
			low := n
			for id := range l.arrived {
				if id >= l.next && id < low {
					low = id
				}
			}
			if low > l.next {
				l.misses++
				l.skips++
				l.skipTo(low)
				continue
			}
		}
		wake := l.wake
		o.mu.Unlock()
		select {
		case <-wake:
			o.mu.Lock()
		case <-ctx.Done():
			o.mu.Lock()
			return done
		case <-timer.C:
			o.mu.Lock()
			expired = true
		}
	}
	if !expired && l.skips == skips {
		// The ids before it came: the client numbers as expected.
		l.misses = 0
	}
	return done
}

// Note notes a request that goes on without waiting: one of a batch, whose
// order is the batch's, or one refused before it could run. The requests
// after it need not wait for it.
func (o *Order) Note(key string, id any) {
	n, ok := o.ordered(key, id)
	if !ok {
		return
	}
	o.mu.Lock()
	o.join(key, n)
	o.mu.Unlock()
	o.pass(key, n)
}

// ordered is id as a whole number, when the requests of key are put in
// order by it.
func (o *Order) ordered(key string, id any) (int64, bool) {
	n, ok := intID(id)
	return n, ok && o != nil && key != "" && len(key) <= orderKeyMax
}

// join is the line of key that request n joins, with o.mu held: a new
// client's starts at n, and so does the line of a client that numbers
// otherwise (n far ahead of the next id expected).
func (o *Order) join(key string, n int64) *idLine {
	l, ok := o.lines[key]
	if !ok {
		l = o.add(key, n)
	}
	l.used = time.Now()
	if n-l.next > orderGap {
		l.skipTo(n)
	}
	return l
}

// add starts the line of key at next; it drops the lines of clients not
// heard from in an hour.
func (o *Order) add(key string, next int64) *idLine {
	if o.lines == nil {
		o.lines = map[string]*idLine{}
	}
	if len(o.lines) >= 256 {
		for k, l := range o.lines {
			if time.Since(l.used) > time.Hour {
				delete(o.lines, k)
			}
		}
	}
	if len(o.lines) >= orderLines {
		// The least recently heard from leaves: its waits run out.
		var oldest string
		for k, l := range o.lines {
			if oldest == "" || l.used.Before(o.lines[oldest].used) {
				oldest = k
			}
		}
		delete(o.lines, oldest)
	}
	l := &idLine{next: next, passed: map[int64]bool{}, arrived: map[int64]bool{}, wake: make(chan struct{}), used: time.Now()}
	o.lines[key] = l
	return l
}

// pass notes that request n of key has gone on.
func (o *Order) pass(key string, n int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	l, ok := o.lines[key]
	if !ok {
		return
	}
	delete(l.arrived, n)
	if n < l.next {
		return
	}
	l.passed[n] = true
	l.skipTo(l.next)
}

// skipTo moves next to at least n, past every id that has gone on, and
// wakes the requests waiting.
func (l *idLine) skipTo(n int64) {
	moved := false
	if n > l.next {
		for id := range l.passed {
			if id < n {
				delete(l.passed, id)
			}
		}
		for id := range l.arrived {
			if id < n {
				delete(l.arrived, id)
			}
		}
		l.next, moved = n, true
	}
	for l.passed[l.next] {
		delete(l.passed, l.next)
		l.next++
		moved = true
	}
	if moved {
		close(l.wake)
		l.wake = make(chan struct{})
	}
}

// intID is a request id that is a whole number.
func intID(id any) (int64, bool) {
	switch v := id.(type) {
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return int64(v), true
		}
	case int64:
		return v, true
	case int:
		return int64(v), true
	}
	return 0, false
}

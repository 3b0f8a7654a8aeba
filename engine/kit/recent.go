package kit

import (
	"iter"
	"sync"

	"github.com/seed4af8c199/browsermcp/engine"
)

// RecentLog keeps the most recent items added to it, at most its size:
// adding to a full one forgets the oldest item and counts it as dropped.
// The backends keep their console and request logs in one, and
// BlockedRecorder the requests the policy refused. It is not safe for
// concurrent use: its owner locks. Make one with NewRecentLog.
type RecentLog[T any] struct {
	buf     []T // grows to size, then wraps
	size    int
	start   int // index of the oldest item, once buf is full
	dropped int // items forgotten so far
}

// NewRecentLog returns a log of at most size items (size > 0).
func NewRecentLog[T any](size int) RecentLog[T] { return RecentLog[T]{size: max(size, 1)} }

// Add adds v and returns the item it forgot to make room, if any.
func (l *RecentLog[T]) Add(v T) (old T, evicted bool) {
	if len(l.buf) < l.size {
		l.buf = append(l.buf, v)
		return old, false
	}
	old = l.buf[l.start]
	l.buf[l.start] = v
	l.start = (l.start + 1) % len(l.buf)
	l.dropped++
	return old, true
}

// Len is how many items the log holds.
func (l *RecentLog[T]) Len() int { return len(l.buf) }

// Dropped is how many items the log has forgotten.
func (l *RecentLog[T]) Dropped() int { return l.dropped }

// All yields the items, oldest first.
func (l *RecentLog[T]) All() iter.Seq[T] {
	return func(yield func(T) bool) {
		for i := range len(l.buf) {
			if !yield(l.buf[(l.start+i)%len(l.buf)]) {
				return
			}
		}
	}
}

// Backward yields the items, newest first.
func (l *RecentLog[T]) Backward() iter.Seq[T] {
	return func(yield func(T) bool) {
		for i := len(l.buf) - 1; i >= 0; i-- {
			if !yield(l.buf[(l.start+i)%len(l.buf)]) {
				return
			}
		}
	}
}

// Newest returns the last limit items of l that keep accepts, as keep
// makes them, oldest first, and how many it accepted in all. Limit 0
// means all. The list is empty, not nil, when there are none.
func Newest[T, U any](l *RecentLog[T], limit int, keep func(T) (U, bool)) ([]U, int) {
	all := []U{}
	for v := range l.All() {
		if u, ok := keep(v); ok {
			all = append(all, u)
		}
	}
	total := len(all)
	if limit > 0 && total > limit {
		all = all[total-limit:]
	}
	return all, total
}

// BlockedRecorder keeps the last requests a session's policy refused. It is
// safe for concurrent use.
type BlockedRecorder struct {
	mu    sync.Mutex
	items RecentLog[engine.BlockedRequest] // made on first use
}

// maxBlockedRecords bounds the memory one session's record uses.
const maxBlockedRecords = 200

// Add records a refused request.
func (b *BlockedRecorder) Add(r engine.BlockedRequest) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.items.size == 0 {
		b.items = NewRecentLog[engine.BlockedRequest](maxBlockedRecords)
	}
	b.items.Add(r)
}

// List returns a copy of the record, oldest first.
func (b *BlockedRecorder) List() []engine.BlockedRequest {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]engine.BlockedRequest, 0, b.items.Len())
	for r := range b.items.All() {
		out = append(out, r)
	}
	return out
}

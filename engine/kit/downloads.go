package kit

import (
	"context"
	"sync"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// DownloadLog records a session's downloads for the action results that
// name them: each one its pages began, in order, as its state changes,
// and how many downloads the pages announced (the browser reports one a
// moment after the page started it). Both engines record into one, and
// Report waits on it. It is safe for concurrent use; make one with
// NewDownloadLog.
type DownloadLog struct {
	mu       sync.Mutex
	changed  chan struct{} // closed at each change, then replaced
	list     []engine.Download
	reported int // how many of list results have named
	// announced counts the downloads the pages announced, begun or not.
	announced int
}

// NewDownloadLog returns an empty log.
func NewDownloadLog() *DownloadLog { return &DownloadLog{changed: make(chan struct{})} }

func (l *DownloadLog) update(f func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f()
	close(l.changed)
	l.changed = make(chan struct{})
}

// Begin records a download that began, and returns its index for Set.
func (l *DownloadLog) Begin(d engine.Download) (i int) {
	l.update(func() {
		i = len(l.list)
		l.list = append(l.list, d)
	})
	return i
}

// Set records the new state of download i.
func (l *DownloadLog) Set(i int, d engine.Download) { l.update(func() { l.list[i] = d }) }

// Announce records that a page is about to begin a download.
func (l *DownloadLog) Announce() { l.update(func() { l.announced++ }) }

// TakeAnnounced forgets the announced downloads, and says whether there
// were any: an engine that cannot save downloads refuses the action that
// announced one.
func (l *DownloadLog) TakeAnnounced() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	had := l.announced > 0
	l.announced = 0
	return had
}

// Report returns the downloads no result has named yet, once they
// finished. It waits, event-driven, for at least expected of them to
// begin, and for those the pages announced (at most PopupWait: the page
// was seen to start them, the browser reports them a moment later), then
// for them to finish, until ctx ends.
func (l *DownloadLog) Report(ctx context.Context, expected int) []engine.Download {
	begin := time.NewTimer(PopupWait)
	defer begin.Stop()
	for {
		l.mu.Lock()
		news := l.list[l.reported:]
		busy := len(news) < expected || len(l.list) < l.announced
		for _, d := range news {
			busy = busy || d.State == engine.DownloadInProgress
		}
		ch := l.changed
		if !busy || ctx.Err() != nil {
			var out []engine.Download
			out = append(out, news...)
			l.reported = len(l.list)
			l.announced = max(l.announced, len(l.list))
			l.mu.Unlock()
			return out
		}
		l.mu.Unlock()
		select {
		case <-ch:
		case <-begin.C:
			// The rest did not come.
			expected = 0
			l.mu.Lock()
			l.announced = len(l.list)
			l.mu.Unlock()
		case <-ctx.Done():
		}
	}
}

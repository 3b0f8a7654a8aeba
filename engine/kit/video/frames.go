package video

import (
	"context"
	"sync"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Frames takes a screencast's frames for a recording that starts once the
// first one is there, as the engines record a tab: until Start, it keeps
// the first frame and the ids of every frame to acknowledge; after, it
// hands each frame to the recording.
type Frames struct {
	mu    sync.Mutex
	rec   *Recording
	first []byte
	early []int64
	got   chan struct{}
}

// NewFrames is an empty Frames.
func NewFrames() *Frames { return &Frames{got: make(chan struct{})} }

// Add takes a frame the browser sent (img, a JPEG) with its id, which the
// recording acknowledges.
func (f *Frames) Add(img []byte, id int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rec != nil {
		f.rec.Frame(img, id)
		return
	}
	if f.first == nil {
		f.first = img
		close(f.got)
	}
	f.early = append(f.early, id)
}

// First is closed once the first frame is there.
func (f *Frames) First() <-chan struct{} { return f.got }

// Start starts the recording with the first frame (after First), then
// acknowledges, with opts.Ack, the frames that came before it.
func (f *Frames) Start(opts Options) (*Recording, error) {
	f.mu.Lock()
	r, err := Start(f.first, opts)
	f.rec = r
	acks := f.early
	f.early = nil
	f.mu.Unlock()
	if err != nil {
		return nil, err
	}
	for _, id := range acks {
		opts.Ack(id)
	}
	return r, nil
}

// Watch ends r when its tab's renderer crashes or its browser goes away
// (crash or gone closes: StoppedByCrash) or when its tab closes (closed:
// StoppedByTabClosed), unless it ended first. The file is finished with
// the frames it has.
func Watch(r *Recording, crash, gone, closed <-chan struct{}) {
	why := engine.StoppedByCrash
	select {
	case <-r.Done():
		return
	case <-crash:
	case <-gone:
	case <-closed:
		why = engine.StoppedByTabClosed
	}
	ctx, cancel := context.WithTimeout(context.Background(), engine.StopVideoTimeout)
	defer cancel()
	r.End(ctx, why)
}

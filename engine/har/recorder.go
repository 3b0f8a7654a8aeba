package har

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// envelope is what the log around the pages and entries costs, at most.
const envelope = 512

// settleWait bounds how long a stop waits for the bodies still being read.
const settleWait = 5 * time.Second

// Recorder gathers one HAR recording. The engine adds a page per document
// a tab loads and an entry per request that ended, holding a ticket
// (Hold, Release) while it reads a request's bodies, so that a stop waits
// for them. Everything is kept in memory, already encoded, so that the
// size bound is exact; the file is written once, whole, when it stops.
type Recorder struct {
	req   engine.HARRequest
	start time.Time
	timer *time.Timer

	mu       sync.Mutex
	pages    []json.RawMessage
	entries  []keyed
	size     int64
	closing  bool // no new tickets: a stop waits for the ones out
	done     bool // a Stop or Abort owns the end
	written  bool // the file is written: late entries are dropped
	tickets  sync.WaitGroup
	finished chan struct{}
	result   engine.HARResult
	err      error
}

type keyed struct {
	at  string // startedDateTime, for the order
	raw json.RawMessage
}

// Start begins a recording; it stops by itself after req.Limits.MaxDuration.
func Start(req engine.HARRequest) *Recorder {
	req.Limits = req.Limits.WithDefaults()
	if req.MaxBodyBytes <= 0 {
		req.MaxBodyBytes = engine.DefaultHARBodyBytes
	}
	r := &Recorder{req: req, start: time.Now(), finished: make(chan struct{})}
	r.mu.Lock() // the timer may fire before it is stored
	r.timer = time.AfterFunc(req.Limits.MaxDuration, func() { r.Stop(context.Background(), engine.StoppedByMaxDuration) })
	r.mu.Unlock()
	return r
}

// Done is closed once the recording stopped.
func (r *Recorder) Done() <-chan struct{} { return r.finished }

// Content reports whether bodies are kept, and their cap.
func (r *Recorder) Content() (bool, int64) { return !r.req.OmitContent, r.req.MaxBodyBytes }

// AddPage records a document a tab began to load and returns its page id,
// or "" once the recording stopped.
func (r *Recorder) AddPage(url string, at time.Time) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closing {
		return ""
	}
	id := "page_" + strconv.Itoa(len(r.pages)+1)
	raw, _ := json.Marshal(Page{StartedDateTime: Time(at), ID: id, Title: url, PageTimings: PageTimings{OnContentLoad: -1, OnLoad: -1}})
	if !r.fits(raw) {
		r.bound()
		return ""
	}
	r.pages = append(r.pages, raw)
	r.size += int64(len(raw)) + 1
	return id
}

// Hold takes a ticket for an entry about to be added; false once the
// recording stops, when the entry is not wanted.
func (r *Recorder) Hold() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closing {
		return false
	}
	r.tickets.Add(1)
	return true
}

// Release returns a ticket.
func (r *Recorder) Release() { r.tickets.Done() }

// Add records an entry (under a ticket). The entry that would pass
// MaxBytes is left out and stops the recording.
func (r *Recorder) Add(e Entry) {
	raw, err := json.Marshal(e)
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.written {
		return
	}
	if !r.fits(raw) {
		r.bound()
		return
	}
	r.entries = append(r.entries, keyed{at: e.StartedDateTime, raw: raw})
	r.size += int64(len(raw)) + 1
}

// fits reports whether raw still fits under MaxBytes. Caller holds r.mu.
func (r *Recorder) fits(raw []byte) bool {
	return r.size+int64(len(raw))+1+envelope <= r.req.Limits.MaxBytes
}

// bound stops the recording at its size bound, from a goroutine of its
// own, as the caller holds r.mu and perhaps a ticket. Caller holds r.mu.
func (r *Recorder) bound() {
	if !r.closing {
		r.closing = true
		go r.Stop(context.Background(), engine.StoppedByMaxBytes)
	}
}

// Stop finishes the file: it waits (within ctx, and settleWait at most)
// for the bodies being read, then writes the HAR. stoppedBy is "" for the
// stop_har call, which gets the result; any other reason goes to the
// request's Stopped. A second Stop answers what the first did, with
// NO_RECORDING for stop_har.
func (r *Recorder) Stop(ctx context.Context, stoppedBy string) (engine.HARResult, error) {
	r.mu.Lock()
	if r.done {
		r.mu.Unlock()
		<-r.finished
		return engine.HARResult{}, engine.Errorf(engine.NoRecording, "no HAR is recording on this session; call start_har first")
	}
	r.done = true // the first Stop owns the finish; entries added until the wait ends still count
	r.closing = true
	timer := r.timer
	r.mu.Unlock()
	timer.Stop()

	wait, cancel := context.WithTimeout(ctx, settleWait)
	defer cancel()
	out := make(chan struct{})
	go func() { r.tickets.Wait(); close(out) }()
	select {
	case <-out:
	case <-wait.Done():
	}

	r.mu.Lock()
	r.written = true
	res, err := r.write(stoppedBy)
	r.result, r.err = res, err
	r.mu.Unlock()
	close(r.finished)
	if stoppedBy != "" && r.req.Stopped != nil {
		r.req.Stopped(res.Recorded)
	}
	return res, err
}

// Abort ends a recording whose browser went away: nothing is written, and
// Stopped hears of it with no file.
func (r *Recorder) Abort(stoppedBy string) {
	r.mu.Lock()
	if r.done {
		r.mu.Unlock()
		return
	}
	r.done, r.closing, r.written = true, true, true
	timer := r.timer
	r.mu.Unlock()
	timer.Stop()
	os.Remove(r.req.Path + ".part")
	close(r.finished)
	if r.req.Stopped != nil {
		r.req.Stopped(engine.Recorded{Kind: engine.RecordHAR, Duration: time.Since(r.start), StoppedBy: stoppedBy})
	}
}

// write encodes the log into req.Path (through a part file renamed into
// place). Caller holds r.mu.
func (r *Recorder) write(stoppedBy string) (engine.HARResult, error) {
	entries := slices.Clone(r.entries)
	slices.SortStableFunc(entries, func(a, b keyed) int {
		switch {
		case a.at < b.at:
			return -1
		case a.at > b.at:
			return 1
		}
		return 0
	})
	version := r.req.Version
	if version == "" {
		version = "dev"
	}
	var b bytes.Buffer
	creator, _ := json.Marshal(Creator{Name: "browsermcp", Version: version})
	b.WriteString(`{"log":{"version":"1.2","creator":`)
	b.Write(creator)
	if stoppedBy != "" {
		c, _ := json.Marshal("stopped by itself: " + stoppedBy)
		b.WriteString(`,"comment":`)
		b.Write(c)
	}
	b.WriteString(`,"pages":[`)
	for i, p := range r.pages {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(p)
	}
	b.WriteString(`],"entries":[`)
	for i, e := range entries {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(e.raw)
	}
	b.WriteString("]}}\n")
	res := engine.HARResult{Recorded: engine.Recorded{Kind: engine.RecordHAR, Duration: time.Since(r.start), StoppedBy: stoppedBy},
		Entries: len(entries), Pages: len(r.pages)}
	part := r.req.Path + ".part"
	if err := os.WriteFile(part, b.Bytes(), 0o600); err != nil {
		os.Remove(part)
		return res, engine.FileError(engine.BrowserError, err, "cannot write the HAR file")
	}
	if err := os.Rename(part, r.req.Path); err != nil {
		os.Remove(part)
		return res, engine.FileError(engine.BrowserError, err, "cannot write the HAR file")
	}
	res.Path, res.Bytes = r.req.Path, int64(b.Len())
	return res, nil
}

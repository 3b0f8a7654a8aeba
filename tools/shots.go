package tools

import (
	"bytes"
	"image"
	_ "image/jpeg" // DecodeConfig of JPEG screenshots
	_ "image/png"  // and of PNG ones
	"os"
	"slices"
	"sync"
	"time"
)

// The screenshots the screenshot tool takes are kept, the last few of each
// session, for the screenshot resources: a list per page, and each by its
// timestamp (seed 002 §3.4). They live in memory, bounded in number per
// session and in all, and are dropped when their session ends.

const (
	// shotsPerSession is how many screenshots of one session are kept.
	shotsPerSession = 10
	// shotsKept is how many are kept in all; the oldest go first.
	shotsKept = 100
)

// shotStamp is the layout of a screenshot's timestamp in its URI: UTC,
// to the millisecond (the seed's 2025-11-27T10:30:00Z, with ms, so two
// shots in one second differ).
const shotStamp = "2006-01-02T15:04:05.000Z"

// shot is one kept screenshot.
type shot struct {
	session, stamp string
	at             time.Time
	mime           string
	img            []byte
	width, height  int
	fullPage       bool
}

// shotLog holds the kept screenshots, oldest first, and the files saved
// for a session (images under --image-responses omit, outlines of
// snapshot {file:true}); both go with their session (end).
type shotLog struct {
	mu    sync.Mutex
	shots []*shot
	files map[string][]string // session -> the paths saved for it
}

// saved records a file saved for session.
func (l *shotLog) saved(session, path string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.files == nil {
		l.files = map[string][]string{}
	}
	l.files[session] = append(l.files[session], path)
}

// end forgets the screenshots of a session that ended and removes the
// files saved for it.
func (l *shotLog) end(session string) {
	l.mu.Lock()
	l.shots = slices.DeleteFunc(l.shots, func(s *shot) bool { return s.session == session })
	files := l.files[session]
	delete(l.files, session)
	l.mu.Unlock()
	for _, f := range files {
		os.Remove(f)
	}
}

// add keeps a screenshot of session.
func (l *shotLog) add(session, mime string, img []byte, fullPage bool) {
	cfg, _, _ := image.DecodeConfig(bytes.NewReader(img))
	now := time.Now().UTC()
	s := &shot{session: session, at: now, stamp: now.Format(shotStamp), mime: mime, img: img, width: cfg.Width, height: cfg.Height, fullPage: fullPage}
	l.mu.Lock()
	defer l.mu.Unlock()
	// Stamps are unique within a session: a second shot in the same
	// millisecond replaces the first.
	l.shots = slices.DeleteFunc(l.shots, func(o *shot) bool { return o.session == session && o.stamp == s.stamp })
	l.shots = append(l.shots, s)
	n := 0
	for i := len(l.shots) - 1; i >= 0; i-- {
		if l.shots[i].session == session {
			if n++; n > shotsPerSession {
				l.shots = slices.Delete(l.shots, i, i+1)
			}
		}
	}
	if len(l.shots) > shotsKept {
		l.shots = slices.Delete(l.shots, 0, len(l.shots)-shotsKept)
	}
}

// list returns the session's screenshots, oldest first.
func (l *shotLog) list(session string) []*shot {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []*shot
	for _, s := range l.shots {
		if s.session == session {
			out = append(out, s)
		}
	}
	return out
}

// find returns the session's screenshot of stamp, or nil.
func (l *shotLog) find(session, stamp string) *shot {
	for _, s := range l.list(session) {
		if s.stamp == stamp {
			return s
		}
	}
	return nil
}

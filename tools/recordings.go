package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// recordings tracks the recordings (a trace, a video, a HAR) each session
// runs, at most one of each kind, and the ones that stopped by themselves
// (a bound reached, the browser gone), so that the session's next result
// says so (SessionMeta.Notices). The devtools tools use it around the
// engine's start and stop calls:
//
//	req, err := d.recs.begin(session, engine.RecordTrace, "json", in.Keep)
//	if err := s.StartTracing(ctx, req); err != nil { d.recs.abandon(session, engine.RecordTrace) }
//	...
//	if _, err := d.recs.end(session, engine.RecordTrace); err != nil { return err } // NO_RECORDING
//	rec, err := s.StopTracing(ctx)
type recordings struct {
	mu      sync.Mutex
	out     string // the server's output directory
	limits  engine.RecordingLimits
	running map[string]map[engine.RecordingKind]*recording
	// finished holds the recording of each kind that stopped by itself
	// (a bound, its tab closed, the browser gone) until its stop_* call,
	// a new start or the session's end: the stop answers its file.
	finished map[string]map[engine.RecordingKind]*recording
	notices  map[string][]string
}

// recording is one running recording, or one that stopped by itself
// (done set).
type recording struct {
	path    string
	keep    bool
	started time.Time
	done    *engine.Recorded
}

// doneErr is the error of a stop_* call after the recording stopped by
// itself and its file was removed, as it could not be finished.
func (c recording) doneErr(kind engine.RecordingKind) error {
	return engine.Errorf(engine.NoRecording, "the %s recording had stopped by itself (%s) and its file was removed, as it could not be finished; call %s to record again",
		recordingNames[kind][0], c.done.StoppedBy, recordingNames[kind][1])
}

// selfStopped says, for a stop_* result, why the recording had stopped
// before the call.
func selfStopped(kind engine.RecordingKind, done *engine.Recorded, limits engine.RecordingLimits) string {
	name := recordingNames[kind][0]
	switch done.StoppedBy {
	case engine.StoppedByMaxBytes:
		return fmt.Sprintf("The %s had stopped by itself at its size bound (%d bytes, --recording-max-size); this is its file.", name, limits.MaxBytes)
	case engine.StoppedByMaxDuration:
		return fmt.Sprintf("The %s had stopped by itself at its time bound (%s, --recording-max-duration); this is its file.", name, limits.MaxDuration)
	}
	return fmt.Sprintf("The %s had stopped by itself (%s); this is its file.", name, done.StoppedBy)
}

// recordingNames are the kinds as results and errors name them, with the
// tools that start and stop them.
var recordingNames = map[engine.RecordingKind][3]string{
	engine.RecordTrace: {"trace", "start_tracing", "stop_tracing"},
	engine.RecordVideo: {"video", "start_video", "stop_video"},
	engine.RecordHAR:   {"HAR", "start_har", "stop_har"},
}

// recordingDir is where session's files of kind go: under the session's
// own output directory, which goes with the session, or with keep under
// OutputDir/kept/<session>, which outlives it.
func (r *recordings) recordingDir(session string, kind engine.RecordingKind, keep bool) string {
	if keep {
		return filepath.Join(r.out, "kept", session, string(kind))
	}
	return filepath.Join(r.out, session, string(kind))
}

// begin reserves kind on session and returns the engine's request: a new
// file's path (its directory made) and the Stopped callback. It answers
// RECORDING_ACTIVE when that recording runs already.
func (r *recordings) begin(session string, kind engine.RecordingKind, ext string, keep bool) (engine.RecordingRequest, error) {
	names := recordingNames[kind]
	r.mu.Lock()
	defer r.mu.Unlock()
	if cur := r.running[session][kind]; cur != nil {
		return engine.RecordingRequest{}, engine.Errorf(engine.RecordingActive, "a %s is already recording on this session since %s, into %s; call %s first",
			names[0], cur.started.UTC().Format(time.RFC3339), cur.path, names[2]).With("path", cur.path)
	}
	dir := r.recordingDir(session, kind, keep)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return engine.RecordingRequest{}, engine.FileError(engine.BrowserError, err, "cannot make the directory for the "+names[0])
	}
	now := time.Now()
	path := filepath.Join(dir, fmt.Sprintf("%s-%s.%s", kind, now.UTC().Format("20060102T150405.000"), ext))
	if r.running == nil {
		r.running = map[string]map[engine.RecordingKind]*recording{}
	}
	if r.running[session] == nil {
		r.running[session] = map[engine.RecordingKind]*recording{}
	}
	rec := &recording{path: path, keep: keep, started: now}
	r.running[session][kind] = rec
	delete(r.finished[session], kind)
	return engine.RecordingRequest{Path: path, Limits: r.limits.WithDefaults(), Stopped: func(done engine.Recorded) {
		r.stopped(session, kind, rec, done)
	}}, nil
}

// abandon releases kind on session after its start failed.
func (r *recordings) abandon(session string, kind engine.RecordingKind) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.running[session], kind)
}

// end takes kind off session for its stop call and returns what was
// running, or what stopped by itself since its start (done set: the
// engine has nothing left to stop); NO_RECORDING when neither.
func (r *recordings) end(session string, kind engine.RecordingKind) (recording, error) {
	names := recordingNames[kind]
	r.mu.Lock()
	defer r.mu.Unlock()
	cur := r.running[session][kind]
	if cur == nil {
		if fin := r.finished[session][kind]; fin != nil {
			delete(r.finished[session], kind)
			return *fin, nil
		}
		return recording{}, engine.Errorf(engine.NoRecording, "no %s is recording on this session; call %s first", names[0], names[1])
	}
	delete(r.running[session], kind)
	return *cur, nil
}

// stopped records a recording that stopped by itself, for the session's
// next result; a recording stopped by its stop call already is ignored.
func (r *recordings) stopped(session string, kind engine.RecordingKind, rec *recording, done engine.Recorded) {
	names := recordingNames[kind]
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.running[session] == nil {
		return // the session has ended
	}
	done.Kind = kind
	fin := *rec
	fin.done = &done
	if r.finished == nil {
		r.finished = map[string]map[engine.RecordingKind]*recording{}
	}
	if r.finished[session] == nil {
		r.finished[session] = map[engine.RecordingKind]*recording{}
	}
	if r.running[session][kind] != rec {
		// Its stop_* call took it while it was stopping by itself: the
		// engine answers that call NO_RECORDING, and the call answers
		// this (raced), not a notice.
		r.finished[session][kind] = &fin
		return
	}
	delete(r.running[session], kind)
	r.finished[session][kind] = &fin
	var msg string
	switch {
	case done.Path == "":
		msg = fmt.Sprintf("the %s recording stopped (%s) and its file was removed, as it could not be finished", names[0], done.StoppedBy)
	case done.StoppedBy == engine.StoppedByMaxBytes:
		msg = fmt.Sprintf("the %s recording stopped at its size bound (%d bytes, --recording-max-size): %s, %d bytes", names[0], r.limits.WithDefaults().MaxBytes, done.Path, done.Bytes)
	case done.StoppedBy == engine.StoppedByMaxDuration:
		msg = fmt.Sprintf("the %s recording stopped at its time bound (%s, --recording-max-duration): %s, %d bytes", names[0], r.limits.WithDefaults().MaxDuration, done.Path, done.Bytes)
	default:
		msg = fmt.Sprintf("the %s recording stopped (%s): %s, %d bytes", names[0], done.StoppedBy, done.Path, done.Bytes)
	}
	if r.notices == nil {
		r.notices = map[string][]string{}
	}
	r.notices[session] = append(r.notices[session], msg)
}

// raced is called after the engine's stop of cur, which a stop_* call
// took: it forgets cur if it stopped by itself meanwhile (its tab closed,
// a bound reached; the engine tells Stopped before its stop answers), and
// returns it when the engine answered err NO_RECORDING for that reason.
func (r *recordings) raced(session string, kind engine.RecordingKind, cur recording, err error) (recording, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fin := r.finished[session][kind]
	if fin == nil || fin.path != cur.path {
		return recording{}, false
	}
	delete(r.finished[session], kind)
	return *fin, engine.CodeOf(err) == engine.NoRecording
}

// drain returns and forgets session's notices.
func (r *recordings) drain(session string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.notices[session]
	delete(r.notices, session)
	return n
}

// forget drops what is kept for a session that has ended; the engine's
// Close finished its recordings.
func (r *recordings) forget(session string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.running, session)
	delete(r.finished, session)
	delete(r.notices, session)
}

// noticer is a result that carries the session's notices (SessionMeta).
type noticer interface{ setNotices([]string) }

func (m *SessionMeta) setNotices(n []string) { m.Notices = n }

// noRecording is a stop call's answer when no recording of its kind runs
// on the session (err, NO_RECORDING from end): the engine's own stop says
// UNSUPPORTED, naming the browser, when it cannot record that kind at all
// (Firefox's traces and videos), which tells the agent more than "call
// start first".
func noRecording(err error, engineStop func() error) error {
	if engine.CodeOf(err) != engine.NoRecording {
		return err
	}
	if e := engineStop(); engine.CodeOf(e) == engine.Unsupported {
		return e
	}
	return err
}

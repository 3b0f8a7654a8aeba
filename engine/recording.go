package engine

import "time"

// RecordingKind names one of a session's recordings (the devtools tools):
// a session runs at most one of each kind at a time.
type RecordingKind string

// The recording kinds.
const (
	RecordTrace RecordingKind = "trace"
	RecordVideo RecordingKind = "video"
	RecordHAR   RecordingKind = "har"
)

// The defaults of RecordingLimits (--recording-max-size,
// --recording-max-duration).
const (
	DefaultRecordingMaxBytes    = 200 << 20
	DefaultRecordingMaxDuration = 10 * time.Minute
)

// RecordingLimits bound one recording: it stops by itself when its file
// would pass MaxBytes or when it has run MaxDuration, and says so
// (Recorded.StoppedBy).
type RecordingLimits struct {
	MaxBytes    int64
	MaxDuration time.Duration
}

// WithDefaults fills the zero limits with the defaults.
func (l RecordingLimits) WithDefaults() RecordingLimits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultRecordingMaxBytes
	}
	if l.MaxDuration <= 0 {
		l.MaxDuration = DefaultRecordingMaxDuration
	}
	return l
}

// Why a recording stopped, other than by its stop_* call.
const (
	StoppedByMaxBytes    = "max_bytes"    // its file reached RecordingLimits.MaxBytes
	StoppedByMaxDuration = "max_duration" // it ran RecordingLimits.MaxDuration
	StoppedBySessionEnd  = "session_end"  // its session closed or expired: the file was finished
	StoppedByCrash       = "crash"        // its browser or tab went away: the file was removed (a video keeps what it has, finished)
	StoppedByTabClosed   = "tab_closed"   // the tab it recorded closed: the file was finished
)

// RecordingRequest starts a recording into the file Path, which the tool
// layer chose under the session's output directory. The engine writes
// nothing outside Path (and Path's directory for a part file it renames
// into place at the end).
type RecordingRequest struct {
	Path   string
	Limits RecordingLimits
	// Stopped is called, at most once and from any goroutine, when the
	// recording stops by itself: a bound reached, the session closed
	// (Close finishes the file), or the browser gone (the file removed).
	// It is not called when the stop_* call stops it.
	Stopped func(Recorded)
}

// Recorded is a recording once it has stopped: its file, whole and
// closed, or none (Path "") when it could not be finished.
type Recorded struct {
	Kind     RecordingKind
	Path     string
	Bytes    int64
	Duration time.Duration
	// StoppedBy is "" when the stop_* call stopped it, else one of the
	// StoppedBy* reasons.
	StoppedBy string
}

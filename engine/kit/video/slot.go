package video

import (
	"context"
	"sync"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Slot is a session's one video recording, as the engines keep it: Begin
// holds it while a start runs, and Stop, Chapter and End act on what it
// holds. The zero Slot is empty.
type Slot struct {
	mu  sync.Mutex
	rec *Recording
}

// Begin takes the slot for a start, which must end with Set or Release:
// RECORDING_ACTIVE while a recording runs.
func (s *Slot) Begin() error {
	s.mu.Lock()
	if s.rec != nil {
		select {
		case <-s.rec.Done():
		default:
			s.mu.Unlock()
			return engine.Errorf(engine.RecordingActive, "a video is already recording on this session; call stop_video first")
		}
	}
	return nil
}

// Set ends a start that made r: the slot holds it.
func (s *Slot) Set(r *Recording) {
	s.rec = r
	s.mu.Unlock()
}

// Release ends a start that failed.
func (s *Slot) Release() { s.mu.Unlock() }

// take empties the slot and returns what it held.
func (s *Slot) take() *Recording {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.rec
	s.rec = nil
	return r
}

// Stop finishes the file: NO_RECORDING when none was started.
func (s *Slot) Stop(ctx context.Context) (engine.VideoResult, error) {
	r := s.take()
	if r == nil {
		return engine.VideoResult{}, engine.Errorf(engine.NoRecording, "no video is recording on this session; call start_video first")
	}
	return r.Stop(ctx)
}

// Chapter marks an action in the running video.
func (s *Slot) Chapter(title string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rec != nil {
		s.rec.Chapter(title)
	}
}

// End finishes the running video as the session closes.
func (s *Slot) End(ctx context.Context) {
	if r := s.take(); r != nil {
		r.End(ctx, engine.StoppedBySessionEnd)
	}
}

package video

import (
	"context"
	"sync"

	"github.com/seed4af8c199/browsermcp/engine"
)

// Slot is a session's one video recording, as the engines keep it: Start
// holds it while a start runs, and Stop, Chapter and End act on what it
// holds. The zero Slot is empty.
type Slot struct {
	mu  sync.Mutex
	rec *Recording
}

// Start runs start, which starts a recording, while it holds the slot:
// RECORDING_ACTIVE while a recording runs, UNSUPPORTED when ffmpeg is
// missing; the slot then holds what start made.
func (s *Slot) Start(start func() (*Recording, error)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rec != nil {
		select {
		case <-s.rec.Done():
		default:
			return engine.Errorf(engine.RecordingActive, "a video is already recording on this session; call stop_video first")
		}
	}
	if _, err := FFmpeg(); err != nil {
		return err
	}
	r, err := start()
	if err != nil {
		return err
	}
	s.rec = r
	return nil
}

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

// Package video records a browser tab into a WebM file. A backend hands a
// Recording the JPEG frames its browser paints (CDP's screencast), each
// when it arrives; ffmpeg encodes them with that time, read from an IVF
// stream that carries a timestamp per frame. Nothing is encoded while the
// page paints nothing: there is no fixed frame rate of duplicates, and the
// last frame is written again at the stop, so a static page still gives a
// video as long as the recording. libvpx runs in its realtime mode on one
// thread, to keep the CPU low.
//
// A Recording ends once, in one of three ways: its Stop (stop_video), by
// itself (a bound of engine.RecordingLimits reached, its session closed,
// its tab or browser gone: it finishes the file and calls the request's
// Stopped), or because ffmpeg died (the part file is removed and the next
// Stop says why). The file is written as Path+".part" and renamed into
// place only when finished, with the chapters (the actions marked during
// the recording) written in by a second, copying ffmpeg run.
package video

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // DecodeConfig reads the first frame's size
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
)

// InstallHint is how to get the encoder on Debian and Ubuntu.
const InstallHint = "apt-get install ffmpeg"

// FFmpeg finds ffmpeg on PATH; UNSUPPORTED, with the install hint, when it
// is not there.
func FFmpeg() (string, error) {
	p, err := exec.LookPath("ffmpeg")
	if err != nil {
		return "", engine.Wrap(engine.Unsupported, err, "recording video needs ffmpeg, which is not on this server's PATH").
			Suggest("Install it on the server (" + InstallHint + ") and start browsermcp again.")
	}
	return p, nil
}

// Bounds of the encoder's process.
const (
	// finishTimeout bounds ffmpeg's finishing of the file once its input
	// closed, and the chapters' copy; it is killed after it.
	finishTimeout = 30 * time.Second
	// sizeEvery is how often the part file's size is read against
	// MaxBytes.
	sizeEvery = 250 * time.Millisecond
	// maxHeadroom is what the size bound leaves at most for what finishing
	// writes (the frames ffmpeg still holds, the last frame, the cues, the
	// chapters). It is an estimate: the file may pass the bound by a
	// little, as the encoder's output is known only once written.
	maxHeadroom = 1 << 20
)

// Options configure a Recording.
type Options struct {
	// Req is the file, its bounds and the Stopped callback.
	Req engine.RecordingRequest
	// Chapters keeps the titles Chapter marks and writes them into the
	// file.
	Chapters bool
	// Ack acknowledges a frame to the browser, which sends the next one
	// only then. It is called from the Recording's own goroutine, never
	// from Frame, so that a backend may call Frame from its event loop.
	Ack func(id int64)
	// OnEnd stops the browser's frames. It is called once, in a goroutine
	// of its own, when the recording ends whichever way; it must be
	// bounded.
	OnEnd func()
}

// Recording is one running video recording.
type Recording struct {
	opts   Options
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	part   string
	start  time.Time
	exited chan struct{} // closed once ffmpeg exited; exitErr is then set
	// exitErr is how ffmpeg exited, set before exited closes.
	exitErr error
	stderr  *tail

	mu       sync.Mutex
	pending  []byte  // the newest frame not yet written
	acks     []int64 // frames to acknowledge
	chapters []engine.Chapter
	wake     chan struct{}

	// Owned by run's goroutine until done closes.
	last   []byte
	lastMs int64
	frames int

	stop chan string // a stop's reason: "" for Stop
	done chan struct{}
	res  engine.VideoResult
	err  error
}

// Start starts ffmpeg and writes first, the tab's first frame, at the
// video's time 0. The video's size is first's, rounded down to even; a
// later frame of another size is scaled into it.
func Start(first []byte, opts Options) (*Recording, error) {
	ff, err := FFmpeg()
	if err != nil {
		return nil, err
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(first))
	if err != nil {
		return nil, engine.Wrap(engine.BrowserError, err, "the browser's first frame is not a JPEG image: "+err.Error())
	}
	w, h := max(2, cfg.Width&^1), max(2, cfg.Height&^1)
	part := opts.Req.Path + ".part"
	fit := fmt.Sprintf("scale=%d:%d:force_original_aspect_ratio=decrease:force_divisible_by=2,pad=%d:%d:(ow-iw)/2:(oh-ih)/2,format=yuv420p", w, h, w, h)
	cmd := exec.Command(ff, "-hide_banner", "-loglevel", "error", "-nostdin", "-filter_threads", "1",
		"-probesize", "32", "-analyzeduration", "0", "-threads", "1", "-f", "ivf", "-i", "pipe:0",
		"-an", "-vf", fit, "-c:v", "libvpx", "-deadline", "realtime", "-cpu-used", "8", "-threads", "1", "-lag-in-frames", "0", "-auto-alt-ref", "0",
		"-b:v", "1M", "-fps_mode", "passthrough",
		// Clusters of at most a second, and a sixteenth of the size
		// bound, reach the file as the recording goes, for the bound to
		// see in steps smaller than its headroom.
		"-cluster_time_limit", "1000", "-cluster_size_limit", strconv.FormatInt(clusterBytes(opts.Req.Limits), 10), "-f", "webm", "-y", part)
	r := &Recording{opts: opts, cmd: cmd, part: part, exited: make(chan struct{}), stderr: &tail{},
		wake: make(chan struct{}, 1), stop: make(chan string), done: make(chan struct{})}
	cmd.Stderr = r.stderr
	if r.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, engine.Wrap(engine.BrowserError, err, "cannot start ffmpeg: "+err.Error())
	}
	if err := cmd.Start(); err != nil {
		return nil, engine.Wrap(engine.BrowserError, err, "cannot start ffmpeg: "+err.Error())
	}
	go func() {
		r.exitErr = cmd.Wait()
		close(r.exited)
	}()
	r.start = time.Now()
	err = r.header(w, h)
	if err == nil {
		err = r.write(first, 0)
	}
	if err != nil {
		r.kill()
		return nil, r.encoderErr("could not start the video encoder (ffmpeg)")
	}
	go r.run()
	return r, nil
}

// clusterBytes is the most one cluster of the file holds: between 16 and
// 256 KiB, a sixteenth of the size bound.
func clusterBytes(l engine.RecordingLimits) int64 {
	return min(max(l.WithDefaults().MaxBytes/16, 16<<10), 256<<10)
}

// header writes the IVF stream's header: MJPEG frames, timestamps in ms.
func (r *Recording) header(w, h int) error {
	b := make([]byte, 32)
	copy(b, "DKIF")
	binary.LittleEndian.PutUint16(b[6:], 32)
	copy(b[8:], "MJPG")
	binary.LittleEndian.PutUint16(b[12:], uint16(min(w, 0xffff)))
	binary.LittleEndian.PutUint16(b[14:], uint16(min(h, 0xffff)))
	binary.LittleEndian.PutUint32(b[16:], 1000) // time base 1/1000
	binary.LittleEndian.PutUint32(b[20:], 1)
	_, err := r.stdin.Write(b)
	return err
}

// write writes one frame at ms from the start, after the last one.
func (r *Recording) write(img []byte, ms int64) error {
	if r.frames > 0 && ms <= r.lastMs {
		ms = r.lastMs + 1
	}
	h := make([]byte, 12)
	binary.LittleEndian.PutUint32(h, uint32(len(img)))
	binary.LittleEndian.PutUint64(h[4:], uint64(ms))
	if _, err := r.stdin.Write(h); err != nil {
		return err
	}
	if _, err := r.stdin.Write(img); err != nil {
		return err
	}
	r.last, r.lastMs = img, ms
	r.frames++
	return nil
}

// Frame hands the recording a frame the browser painted now, with id, the
// number the browser wants acknowledged. It never blocks: a frame that
// arrives before the last one was written replaces it.
func (r *Recording) Frame(img []byte, id int64) {
	r.mu.Lock()
	r.pending = img
	r.acks = append(r.acks, id)
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// Chapter marks title at this moment, when the recording keeps chapters.
func (r *Recording) Chapter(title string) {
	if !r.opts.Chapters {
		return
	}
	at := time.Since(r.start)
	r.mu.Lock()
	defer r.mu.Unlock()
	select {
	case <-r.done:
		return
	default:
	}
	r.chapters = append(r.chapters, engine.Chapter{Title: title, Start: at})
}

// Done is closed once the recording has ended, whichever way.
func (r *Recording) Done() <-chan struct{} { return r.done }

// run writes the frames as they come and watches the bounds and ffmpeg,
// until the recording ends.
func (r *Recording) run() {
	defer close(r.done)
	limits := r.opts.Req.Limits.WithDefaults()
	timer := time.NewTimer(limits.MaxDuration)
	defer timer.Stop()
	tick := time.NewTicker(sizeEvery)
	defer tick.Stop()
	sizeBound := limits.MaxBytes - min(limits.MaxBytes/8, maxHeadroom)
	for {
		select {
		case <-r.wake:
			r.mu.Lock()
			img, acks := r.pending, r.acks
			r.pending, r.acks = nil, nil
			r.mu.Unlock()
			for _, id := range acks {
				if r.opts.Ack != nil {
					r.opts.Ack(id)
				}
			}
			if img != nil {
				if err := r.write(img, time.Since(r.start).Milliseconds()); err != nil {
					r.fail()
					return
				}
			}
		case <-tick.C:
			if fi, err := os.Stat(r.part); err == nil && fi.Size() >= sizeBound {
				r.finish(engine.StoppedByMaxBytes)
				return
			}
		case <-timer.C:
			r.finish(engine.StoppedByMaxDuration)
			return
		case <-r.exited:
			r.fail()
			return
		case why := <-r.stop:
			r.finish(why)
			return
		}
	}
}

// Stop finishes the file and describes it (stop_video). A recording that
// ended by itself answers NO_RECORDING; one whose encoder died, that
// error.
func (r *Recording) Stop(ctx context.Context) (engine.VideoResult, error) {
	stopped := false
	select {
	case r.stop <- "":
		stopped = true
	case <-r.done:
	case <-ctx.Done():
		return engine.VideoResult{}, ctx.Err()
	}
	select {
	case <-r.done:
	case <-ctx.Done():
		return engine.VideoResult{}, ctx.Err()
	}
	if r.err != nil {
		return engine.VideoResult{}, r.err
	}
	if !stopped {
		return engine.VideoResult{}, engine.Errorf(engine.NoRecording, "the video recording had stopped already (%s): %s", r.res.StoppedBy, r.res.Path)
	}
	return r.res, nil
}

// End stops the recording by itself, for why (one of engine.StoppedBy*):
// it finishes the file, calls the request's Stopped, and returns once done
// or when ctx ends. A recording that ended already is left as it is.
func (r *Recording) End(ctx context.Context, why string) {
	select {
	case r.stop <- why:
	case <-r.done:
		return
	case <-ctx.Done():
		return
	}
	select {
	case <-r.done:
	case <-ctx.Done():
	}
}

// finish writes the last frame again at this moment, so that the video
// lasts until now, lets ffmpeg finish the file, writes the chapters in and
// renames it into place. A recording that stopped by itself tells Stopped.
func (r *Recording) finish(why string) {
	r.ended()
	now := time.Since(r.start).Milliseconds()
	r.mu.Lock()
	chapters := r.chapters
	r.mu.Unlock()
	err := r.write(r.last, max(now, r.lastMs+1))
	if err == nil {
		err = r.stdin.Close()
	}
	if err == nil {
		t := time.NewTimer(finishTimeout)
		select {
		case <-r.exited:
			err = r.exitErr
		case <-t.C:
			err = errors.New("ffmpeg did not finish the file within " + finishTimeout.String())
		}
		t.Stop()
	}
	if err != nil {
		r.kill()
		os.Remove(r.part)
		r.err = r.encoderErr("the video encoder (ffmpeg) could not finish the file")
		r.res = engine.VideoResult{Recorded: engine.Recorded{Kind: engine.RecordVideo, StoppedBy: why}}
		r.told(why)
		return
	}
	path := r.opts.Req.Path
	if len(chapters) > 0 {
		if cerr := r.addChapters(chapters, r.lastMs); cerr != nil {
			chapters = nil // the video stands without them
		}
	}
	if len(chapters) == 0 {
		if err := os.Rename(r.part, path); err != nil {
			os.Remove(r.part)
			r.err = engine.FileError(engine.BrowserError, err, "cannot put the video in place")
			r.res = engine.VideoResult{Recorded: engine.Recorded{Kind: engine.RecordVideo, StoppedBy: why}}
			r.told(why)
			return
		}
	}
	var size int64
	if fi, err := os.Stat(path); err == nil {
		size = fi.Size()
	}
	r.res = engine.VideoResult{
		Recorded: engine.Recorded{Kind: engine.RecordVideo, Path: path, Bytes: size, Duration: time.Duration(r.lastMs) * time.Millisecond, StoppedBy: why},
		Frames:   r.frames, Chapters: chapters,
	}
	r.told(why)
}

// told calls Stopped for a recording that stopped by itself.
func (r *Recording) told(why string) {
	if why != "" && r.opts.Req.Stopped != nil {
		r.opts.Req.Stopped(r.res.Recorded)
	}
}

// fail ends a recording whose ffmpeg died or stopped reading: what it
// wrote is removed, and the next Stop answers why.
func (r *Recording) fail() {
	r.ended()
	r.kill()
	os.Remove(r.part)
	r.err = r.encoderErr("the video encoder (ffmpeg) exited during the recording; its partial file was removed")
}

// ended stops the browser's frames.
func (r *Recording) ended() {
	if r.opts.OnEnd != nil {
		go r.opts.OnEnd()
	}
}

// kill ends ffmpeg and waits for it.
func (r *Recording) kill() {
	r.stdin.Close()
	r.cmd.Process.Kill()
	<-r.exited
}

// encoderErr is a BROWSER_ERROR about ffmpeg, with how it exited and the
// end of what it printed.
func (r *Recording) encoderErr(msg string) *engine.Error {
	select {
	case <-r.exited:
		if r.exitErr != nil {
			msg += " (" + r.exitErr.Error() + ")"
		}
	default:
	}
	if s := strings.TrimSpace(r.stderr.String()); s != "" {
		msg += ": " + s
	}
	return engine.Errorf(engine.BrowserError, "%s", msg).Suggest("Start the recording again with start_video.")
}

// addChapters copies the finished part file into place with chapters, one
// per title from its start to the next one's (the last to the end).
func (r *Recording) addChapters(chapters []engine.Chapter, endMs int64) error {
	var meta strings.Builder
	meta.WriteString(";FFMETADATA1\n")
	for i, c := range chapters {
		end := endMs
		if i+1 < len(chapters) {
			end = chapters[i+1].Start.Milliseconds()
		}
		start := min(c.Start.Milliseconds(), end)
		fmt.Fprintf(&meta, "[CHAPTER]\nTIMEBASE=1/1000\nSTART=%d\nEND=%d\ntitle=%s\n", start, end, escapeMeta(c.Title))
	}
	metaPath := r.opts.Req.Path + ".chapters"
	if err := os.WriteFile(metaPath, []byte(meta.String()), 0o600); err != nil {
		return err
	}
	defer os.Remove(metaPath)
	ctx, cancel := context.WithTimeout(context.Background(), finishTimeout)
	defer cancel()
	tmp := r.opts.Req.Path + ".chaptered"
	out, err := exec.CommandContext(ctx, r.cmd.Path, "-hide_banner", "-loglevel", "error", "-nostdin",
		"-i", r.part, "-f", "ffmetadata", "-i", metaPath, "-map", "0", "-map_chapters", "1", "-c", "copy", "-f", "webm", "-y", tmp).CombinedOutput()
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%w: %s", err, out)
	}
	if err := os.Rename(tmp, r.opts.Req.Path); err != nil {
		os.Remove(tmp)
		return err
	}
	os.Remove(r.part)
	return nil
}

// escapeMeta escapes what FFMETADATA gives a meaning to in a value.
func escapeMeta(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch c {
		case '=', ';', '#', '\\', '\n':
			b.WriteByte('\\')
		case '\r':
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// tail keeps the last bytes ffmpeg printed.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 1024

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailBytes {
		t.buf = t.buf[len(t.buf)-tailBytes:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

package video

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// frame is a JPEG of w×h pixels in one colour.
func frame(t *testing.T, w, h int, c color.Color) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func start(t *testing.T, opts Options) *Recording {
	t.Helper()
	testenv.FFprobe(t)
	if opts.Req.Path == "" {
		opts.Req.Path = filepath.Join(t.TempDir(), "v.webm")
	}
	r, err := Start(frame(t, 161, 121, color.White), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		r.End(ctx, engine.StoppedBySessionEnd)
	})
	return r
}

func stop(t *testing.T, r *Recording) (engine.VideoResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return r.Stop(ctx)
}

// TestVideoTimesFrames records a page that paints twice (one frame at the
// start, odd-sized, and one of another size later) and then nothing: the
// video lasts until the stop, holds the frames written and no
// duplicates, and carries the chapters in order.
func TestVideoTimesFrames(t *testing.T) {
	var mu sync.Mutex
	var acked []int64
	r := start(t, Options{Chapters: true, Ack: func(id int64) { mu.Lock(); acked = append(acked, id); mu.Unlock() }})
	began := time.Now()
	r.Chapter("click ref e5")
	time.Sleep(300 * time.Millisecond)
	r.Frame(frame(t, 320, 100, color.Black), 7)
	time.Sleep(300 * time.Millisecond)
	r.Chapter("fill ref e7 = a")
	time.Sleep(time.Second)
	res, err := stop(t, r)
	elapsed := time.Since(began)
	if err != nil {
		t.Fatal(err)
	}
	v := testenv.Probe(t, res.Path)
	if v.Format != "matroska,webm" || v.Codec != "vp8" {
		t.Errorf("ffprobe reads %+v, want a vp8 WebM", v)
	}
	if d := time.Duration(v.Duration * float64(time.Second)); d < elapsed-1500*time.Millisecond || d > elapsed+1500*time.Millisecond {
		t.Errorf("the video lasts %s, the recording %s", d, elapsed)
	}
	if res.Frames != 3 { // the first, the second, and the last again at the stop
		t.Errorf("Frames = %d, want 3", res.Frames)
	}
	if want := []string{"click ref e5", "fill ref e7 = a"}; !slices.Equal(v.Chapters, want) {
		t.Errorf("the file's chapters are %q, want %q", v.Chapters, want)
	}
	if len(res.Chapters) != 2 || res.Chapters[0].Start > res.Chapters[1].Start {
		t.Errorf("result chapters %+v", res.Chapters)
	}
	if fi, err := os.Stat(res.Path); err != nil || fi.Size() != res.Bytes {
		t.Errorf("the file: %v, %d bytes said", err, res.Bytes)
	}
	if _, err := os.Stat(res.Path + ".part"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the part file is left: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(acked, []int64{7}) {
		t.Errorf("acknowledged %v, want [7]", acked)
	}
	if _, err := stop(t, r); engine.CodeOf(err) != engine.NoRecording {
		t.Errorf("a second stop: %v, want NO_RECORDING", err)
	}
}

// TestVideoMaxDuration stops a recording at its time bound: the file is
// finished, Stopped says so, and Stop answers NO_RECORDING.
func TestVideoMaxDuration(t *testing.T) {
	got := make(chan engine.Recorded, 1)
	r := start(t, Options{Req: engine.RecordingRequest{Limits: engine.RecordingLimits{MaxDuration: time.Second},
		Stopped: func(rec engine.Recorded) { got <- rec }}})
	var rec engine.Recorded
	select {
	case rec = <-got:
	case <-time.After(time.Minute):
		t.Fatal("the recording did not stop at its bound")
	}
	if rec.StoppedBy != engine.StoppedByMaxDuration || rec.Path == "" {
		t.Fatalf("Stopped got %+v", rec)
	}
	if v := testenv.Probe(t, rec.Path); v.Format != "matroska,webm" || v.Duration < 0.5 {
		t.Errorf("ffprobe reads %+v", v)
	}
	if _, err := stop(t, r); engine.CodeOf(err) != engine.NoRecording {
		t.Errorf("stop after the bound: %v, want NO_RECORDING", err)
	}
}

// TestVideoMaxBytes stops a recording whose file reaches its size bound:
// the file is finished, and Stopped says so. What ffmpeg still held when
// it stopped may pass the bound by a little (the headroom is an
// estimate), never by a quarter.
func TestVideoMaxBytes(t *testing.T) {
	const maxBytes = 1 << 20
	got := make(chan engine.Recorded, 1)
	r := start(t, Options{Req: engine.RecordingRequest{Limits: engine.RecordingLimits{MaxBytes: maxBytes},
		Stopped: func(rec engine.Recorded) { got <- rec }}})
	rnd := rand.New(rand.NewPCG(1, 2))
	deadline := time.After(2 * time.Minute)
	var rec engine.Recorded
feed:
	for i := int64(0); ; i++ {
		select {
		case rec = <-got:
			break feed
		case <-deadline:
			t.Fatal("the recording did not stop at its size bound")
		case <-time.After(20 * time.Millisecond):
			r.Frame(noise(t, rnd, 160, 120), i) // noise does not compress
		}
	}
	if rec.StoppedBy != engine.StoppedByMaxBytes || rec.Path == "" {
		t.Fatalf("Stopped got %+v", rec)
	}
	fi, err := os.Stat(rec.Path)
	if err != nil || fi.Size() != rec.Bytes || fi.Size() > maxBytes*5/4 {
		t.Errorf("the file: %v, %d bytes (said %d), bound %d", err, fi.Size(), rec.Bytes, maxBytes)
	}
	if v := testenv.Probe(t, rec.Path); v.Format != "matroska,webm" {
		t.Errorf("ffprobe reads %+v", v)
	}
}

// noise is a JPEG of random pixels.
func noise(t *testing.T, rnd *rand.Rand, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(rnd.UintN(256))
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestVideoEncoderDies kills ffmpeg mid-way: the next Stop answers
// BROWSER_ERROR, and no file is left.
func TestVideoEncoderDies(t *testing.T) {
	dir := t.TempDir()
	r := start(t, Options{Req: engine.RecordingRequest{Path: filepath.Join(dir, "v.webm"), Stopped: func(engine.Recorded) { t.Error("Stopped called for a dead encoder") }}})
	r.cmd.Process.Kill()
	<-r.Done()
	_, err := stop(t, r)
	if engine.CodeOf(err) != engine.BrowserError {
		t.Fatalf("stop after ffmpeg died: %v, want BROWSER_ERROR", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("files left: %v", left)
	}
}

// TestVideoNoFFmpeg: without ffmpeg on PATH, Start answers UNSUPPORTED
// with the install hint.
func TestVideoNoFFmpeg(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Start(frame(t, 8, 8, color.White), Options{Req: engine.RecordingRequest{Path: filepath.Join(t.TempDir(), "v.webm")}})
	var e *engine.Error
	if !errors.As(err, &e) || e.Code != engine.Unsupported || !bytes.Contains([]byte(e.Suggestion), []byte(InstallHint)) {
		t.Fatalf("Start without ffmpeg: %#v", err)
	}
}

func TestEscapeMeta(t *testing.T) {
	if got := escapeMeta("a=b;c#d\\e\nf\r"); got != `a\=b\;c\#d\\e\`+"\n"+"f" {
		t.Errorf("escapeMeta = %q", got)
	}
}

package tools_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/sessions"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
	"github.com/seed4af8c199/browsermcp/tools"
)

// videoEnv is a server whose session files and tool files share one
// output directory, as the binary's do, with limits on recordings.
func videoEnv(t *testing.T, limits engine.RecordingLimits) *env {
	t.Helper()
	testenv.FFprobe(t)
	out := t.TempDir()
	return newEnvWith(t, sessions.Config{OutputDir: out},
		tools.Options{Version: "test", Caps: []tools.Group{tools.All}, OutputDir: out, RecordingLimits: limits})
}

// under fails unless path is inside dir.
func under(t *testing.T, dir, path string) {
	t.Helper()
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		t.Fatalf("%s is not under the output directory %s", path, dir)
	}
}

// TestVideoRecordsPages records 3 seconds of a page that animates and of
// one that paints nothing: each is a VP8 WebM that ffprobe reads, as long
// as the recording as the test saw it, and the static page costs fewer
// frames.
func TestVideoRecordsPages(t *testing.T) {
	e := videoEnv(t, engine.RecordingLimits{})
	frames := map[string]float64{}
	for _, page := range []string{"/animation.html", "/welcome.html"} {
		t.Run(strings.TrimPrefix(page, "/"), func(t *testing.T) {
			id := e.open(page)
			began := time.Now()
			started := e.ok("start_video", map[string]any{"sessionId": id})
			if started["chapters"] != true {
				t.Errorf("chapters default off: %v", started)
			}
			time.Sleep(3 * time.Second)
			res := e.ok("stop_video", map[string]any{"sessionId": id})
			elapsed := time.Since(began)
			path, _ := res["path"].(string)
			if path != started["path"] {
				t.Errorf("stop_video's path %q, start_video's %v", path, started["path"])
			}
			under(t, e.out, path)
			fi, err := os.Stat(path)
			if err != nil || float64(fi.Size()) != res["bytes"] {
				t.Fatalf("the file: %v; result %v", err, res)
			}
			v := testenv.Probe(t, path)
			if v.Format != "matroska,webm" || (v.Codec != "vp8" && v.Codec != "vp9") {
				t.Errorf("ffprobe reads %+v, want a VP8/VP9 WebM", v)
			}
			d := time.Duration(v.Duration * float64(time.Second))
			if d < elapsed-1500*time.Millisecond || d > elapsed+1500*time.Millisecond {
				t.Errorf("the video lasts %s; the test saw %s between start and stop", d, elapsed)
			}
			if ms := res["durationMs"].(float64); ms < float64((d-500*time.Millisecond).Milliseconds()) || ms > float64((d+500*time.Millisecond).Milliseconds()) {
				t.Errorf("durationMs %v, ffprobe %s", ms, d)
			}
			frames[page] = res["frames"].(float64)
			if frames[page] < 2 {
				t.Errorf("frames = %v, want the first and the last at least", frames[page])
			}
			if _, ok := res["chapters"]; ok {
				t.Errorf("chapters without an action: %v", res["chapters"])
			}
		})
	}
	if frames["/welcome.html"] >= frames["/animation.html"] {
		t.Errorf("a static page took %v frames, an animation %v: frames must come only when the page paints", frames["/welcome.html"], frames["/animation.html"])
	}
}

// TestVideoChapters: a click and a fill during the recording are the
// file's chapters, in order, and the result lists them; the typed value
// is in neither.
func TestVideoChapters(t *testing.T) {
	e := videoEnv(t, engine.RecordingLimits{})
	id := e.open("/form.html")
	e.ok("start_video", map[string]any{"sessionId": id})
	e.ok("click", map[string]any{"sessionId": id, "selector": "#count"})
	e.ok("get_text", map[string]any{"sessionId": id, "selector": "h1"}) // read-only: no chapter
	e.ok("fill", map[string]any{"sessionId": id, "selector": "#user", "value": "ada-secret"})
	if got := e.title(id); !strings.Contains(got, "user=ada-secret") {
		t.Errorf("the page's title after the fill: %q", got)
	}
	res := e.ok("stop_video", map[string]any{"sessionId": id})
	want := []string{"click selector #count", "fill selector #user"}
	var titles []string
	last := -1.0
	for _, c := range res["chapters"].([]any) {
		m := c.(map[string]any)
		titles = append(titles, m["title"].(string))
		if m["startMs"].(float64) < last {
			t.Errorf("chapters out of order: %v", res["chapters"])
		}
		last = m["startMs"].(float64)
	}
	if !slices.Equal(titles, want) {
		t.Errorf("result chapters %q, want %q", titles, want)
	}
	if v := testenv.Probe(t, res["path"].(string)); !slices.Equal(v.Chapters, want) {
		t.Errorf("ffprobe -show_chapters lists %q, want %q", v.Chapters, want)
	}

	// chapters: false keeps none.
	e.ok("start_video", map[string]any{"sessionId": id, "chapters": false})
	e.ok("click", map[string]any{"sessionId": id, "selector": "#count"})
	res = e.ok("stop_video", map[string]any{"sessionId": id})
	if _, ok := res["chapters"]; ok {
		t.Errorf("chapters: false, yet %v", res["chapters"])
	}
	if v := testenv.Probe(t, res["path"].(string)); len(v.Chapters) != 0 {
		t.Errorf("chapters: false, yet the file has %q", v.Chapters)
	}
}

// TestVideoErrors: a stop without a start, and a second start.
func TestVideoErrors(t *testing.T) {
	e := videoEnv(t, engine.RecordingLimits{})
	id := e.open("/welcome.html")
	e.fail(engine.NoRecording, "stop_video", map[string]any{"sessionId": id})
	e.ok("start_video", map[string]any{"sessionId": id})
	out := e.fail(engine.RecordingActive, "start_video", map[string]any{"sessionId": id})
	if !strings.Contains(out["message"].(string), "video") {
		t.Errorf("RECORDING_ACTIVE does not name the video: %v", out)
	}
	e.fail(engine.InvalidParameters, "start_video", map[string]any{"sessionId": id, "maxWidth": -1})
	e.ok("stop_video", map[string]any{"sessionId": id})
	e.fail(engine.NoRecording, "stop_video", map[string]any{"sessionId": id})
	e.fail(engine.SessionNotFound, "start_video", map[string]any{"sessionId": "nope"})
}

// TestVideoMaxDuration: a recording stops at --recording-max-duration,
// its file finished, and the session's next result says so.
func TestVideoMaxDuration(t *testing.T) {
	e := videoEnv(t, engine.RecordingLimits{MaxDuration: time.Second})
	id := e.open("/animation.html")
	e.ok("start_video", map[string]any{"sessionId": id})
	var notice string
	testenv.Eventually(t, "a notice that the video stopped", func() (bool, error) {
		out := e.ok("get_text", map[string]any{"sessionId": id, "selector": "h1"})
		ns, _ := out["notices"].([]any)
		for _, n := range ns {
			notice = n.(string)
		}
		return notice != "", nil
	})
	if !strings.Contains(notice, "time bound") {
		t.Errorf("notice %q", notice)
	}
	files, _ := filepath.Glob(filepath.Join(e.out, id, "video", "*.webm"))
	if len(files) != 1 || !strings.Contains(notice, files[0]) {
		t.Fatalf("video files %v; notice %q", files, notice)
	}
	if v := testenv.Probe(t, files[0]); v.Format != "matroska,webm" || v.Duration < 0.5 || v.Duration > 3 {
		t.Errorf("ffprobe reads %+v of a 1 s recording", v)
	}
	// The stop after it answers the finished file and why it stopped,
	// then there is nothing left to stop.
	stop := e.ok("stop_video", map[string]any{"sessionId": id})
	if stop["path"] != files[0] || stop["stoppedBy"] != engine.StoppedByMaxDuration || !strings.Contains(stop["message"].(string), "time bound") {
		t.Errorf("stop_video after the bound: %v, want %s stopped by %s", stop, files[0], engine.StoppedByMaxDuration)
	}
	if fi, err := os.Stat(files[0]); err != nil || fi.Size() != int64(stop["bytes"].(float64)) {
		t.Errorf("stop_video says %v bytes; the file: %v", stop["bytes"], err)
	}
	e.fail(engine.NoRecording, "stop_video", map[string]any{"sessionId": id})
	// A new one may start.
	e.ok("start_video", map[string]any{"sessionId": id})
}

// TestVideoTabClosedThenStop: stop_video right after the recorded tab
// closed answers the finished file and that the tab's close stopped it,
// whether the video had finished by then or was finishing.
func TestVideoTabClosedThenStop(t *testing.T) {
	e := videoEnv(t, engine.RecordingLimits{})
	id := e.open("/animation.html")
	e.ok("tabs", map[string]any{"sessionId": id, "action": "new", "url": site.URL + "/animation.html"})
	path := e.ok("start_video", map[string]any{"sessionId": id})["path"].(string)
	time.Sleep(500 * time.Millisecond)
	e.ok("tabs", map[string]any{"sessionId": id, "action": "close"})
	stop := e.ok("stop_video", map[string]any{"sessionId": id})
	if stop["path"] != path || stop["stoppedBy"] != engine.StoppedByTabClosed {
		t.Fatalf("stop_video after the tab closed: %v, want %s stopped by %s", stop, path, engine.StoppedByTabClosed)
	}
	if v := testenv.Probe(t, path); v.Format != "matroska,webm" {
		t.Errorf("ffprobe reads %+v", v)
	}
	e.fail(engine.NoRecording, "stop_video", map[string]any{"sessionId": id})
}

// TestVideoCloseSession: closing the session during a recording finishes
// the file; with keep it stays under kept/, without it goes with the
// session.
func TestVideoCloseSession(t *testing.T) {
	e := videoEnv(t, engine.RecordingLimits{})
	for _, keep := range []bool{true, false} {
		id := e.open("/animation.html")
		path := e.ok("start_video", map[string]any{"sessionId": id, "keep": keep})["path"].(string)
		time.Sleep(time.Second)
		e.ok("close_session", map[string]any{"sessionId": id})
		if keep {
			under(t, filepath.Join(e.out, "kept", id), path)
			if v := testenv.Probe(t, path); v.Format != "matroska,webm" || v.Duration < 0.5 {
				t.Errorf("the kept video reads %+v", v)
			}
			if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*")); len(left) != 1 {
				t.Errorf("files beside the kept video: %v", left)
			}
			continue
		}
		if _, err := os.Stat(filepath.Join(e.out, id)); !os.IsNotExist(err) {
			t.Errorf("the session's files are left: %v", err)
		}
	}
}

// TestVideoWithoutFFmpeg: with no ffmpeg on PATH, start_video answers
// UNSUPPORTED with the install hint, and no recording is held.
func TestVideoWithoutFFmpeg(t *testing.T) {
	e := videoEnv(t, engine.RecordingLimits{})
	id := e.open("/welcome.html")
	t.Setenv("PATH", t.TempDir())
	out := e.fail(engine.Unsupported, "start_video", map[string]any{"sessionId": id})
	if !strings.Contains(out["suggestion"].(string), "apt-get install ffmpeg") {
		t.Errorf("no install hint: %v", out)
	}
	e.fail(engine.NoRecording, "stop_video", map[string]any{"sessionId": id})
}

// TestVideoFirefox: Playwright's Firefox cannot record mid-session.
func TestVideoFirefox(t *testing.T) {
	e := newEnvOnWith(t, firefoxEngine(t), sessions.Config{}, tools.Options{Version: "test", Caps: []tools.Group{tools.All}})
	id := e.open("/welcome.html")
	out := e.fail(engine.Unsupported, "start_video", map[string]any{"sessionId": id})
	if !strings.Contains(out["message"].(string), "firefox") {
		t.Errorf("UNSUPPORTED does not name the browser: %v", out)
	}
	if body := e.fail(engine.Unsupported, "stop_video", map[string]any{"sessionId": id}); !strings.Contains(body["message"].(string), "firefox") {
		t.Errorf("stop_video's UNSUPPORTED does not name the browser: %v", body)
	}
}

// TestVideoEncoderDies: an ffmpeg killed during the recording leaves no
// file, and the next stop_video says what happened; a new recording can
// start after it.
func TestVideoEncoderDies(t *testing.T) {
	e := videoEnv(t, engine.RecordingLimits{})
	ffmpeg, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Fatal(err)
	}
	// An ffmpeg on PATH that the kernel kills after a second.
	bin := t.TempDir()
	script := "#!/bin/sh\nexec timeout -s KILL 1 " + ffmpeg + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "ffmpeg"), []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	id := e.open("/animation.html")
	e.ok("start_video", map[string]any{"sessionId": id})
	time.Sleep(2 * time.Second)
	out := e.fail(engine.BrowserError, "stop_video", map[string]any{"sessionId": id})
	if msg := out["message"].(string); !strings.Contains(msg, "ffmpeg") || !strings.Contains(msg, "removed") {
		t.Errorf("stop_video after ffmpeg died: %q", msg)
	}
	if files, _ := filepath.Glob(filepath.Join(e.out, id, "video", "*")); len(files) != 0 {
		t.Errorf("files left: %v", files)
	}
	os.Setenv("PATH", strings.TrimPrefix(os.Getenv("PATH"), bin+string(os.PathListSeparator)))
	e.ok("start_video", map[string]any{"sessionId": id})
	if res := e.ok("stop_video", map[string]any{"sessionId": id}); res["bytes"].(float64) <= 0 {
		t.Errorf("the next recording: %v", res)
	}
}

package testenv

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// FFprobe returns the ffprobe binary that comes with ffmpeg (the video
// encoder), or skips (fails with BROWSERMCP_REQUIRE_BROWSER=1) when
// ffmpeg or ffprobe is missing.
func FFprobe(tb testing.TB) string {
	tb.Helper()
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		NoBrowser(tb, fmt.Errorf("no ffmpeg to record video (apt-get install ffmpeg): %w", err))
	}
	p, err := exec.LookPath("ffprobe")
	if err != nil {
		NoBrowser(tb, fmt.Errorf("no ffprobe to read videos (apt-get install ffmpeg): %w", err))
	}
	return p
}

// Video is what ffprobe reads of a video file.
type Video struct {
	Format   string  // e.g. "matroska,webm"
	Codec    string  // the first video stream's, e.g. "vp8"
	Duration float64 // seconds
	Chapters []string
}

// Probe reads the video at path with ffprobe, within a minute; it fails
// the test when ffprobe cannot read it.
func Probe(tb testing.TB, path string) Video {
	tb.Helper()
	ffprobe := FFprobe(tb)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, ffprobe, "-v", "error", "-show_format", "-show_streams", "-show_chapters", "-of", "json", path).Output()
	if err != nil {
		tb.Fatalf("ffprobe %s: %v", path, err)
	}
	var p struct {
		Format struct {
			Name     string `json:"format_name"`
			Duration string `json:"duration"`
		} `json:"format"`
		Streams []struct {
			Type  string `json:"codec_type"`
			Codec string `json:"codec_name"`
		} `json:"streams"`
		Chapters []struct {
			Tags struct {
				Title string `json:"title"`
			} `json:"tags"`
		} `json:"chapters"`
	}
	if err := json.Unmarshal(out, &p); err != nil {
		tb.Fatalf("ffprobe %s: %v in %s", path, err, out)
	}
	v := Video{Format: p.Format.Name}
	v.Duration, _ = strconv.ParseFloat(p.Format.Duration, 64)
	for _, s := range p.Streams {
		if s.Type == "video" && v.Codec == "" {
			v.Codec = s.Codec
		}
	}
	for _, c := range p.Chapters {
		v.Chapters = append(v.Chapters, c.Tags.Title)
	}
	return v
}

package tools

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestShotLogEnd: a session's end forgets its kept screenshots and
// removes the files saved for it, and leaves another session's.
func TestShotLogEnd(t *testing.T) {
	var l shotLog
	dir := t.TempDir()
	var files []string
	for _, sess := range []string{"a", "b"} {
		l.add(sess, "image/png", []byte("not decoded"), false)
		note, err := saveImage(dir, sess, "image/png", []byte("png"), &l)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, note[len("image omitted (--image-responses omit); saved to "):])
	}
	l.end("a")
	if got := l.list("a"); len(got) != 0 {
		t.Errorf("the ended session's screenshots are kept: %v", got)
	}
	if _, err := os.Stat(files[0]); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the ended session's file: %v", err)
	}
	if got := l.list("b"); len(got) != 1 {
		t.Errorf("the other session's screenshots: %v", got)
	}
	if _, err := os.Stat(files[1]); err != nil || filepath.Dir(files[1]) != filepath.Join(dir, "screenshots") {
		t.Errorf("the other session's file %s: %v", files[1], err)
	}
}

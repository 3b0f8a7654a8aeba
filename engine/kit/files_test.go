package kit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSafeFileName(t *testing.T) {
	for in, want := range map[string]string{
		"report.csv":        "report.csv",
		"../../etc/passwd":  "passwd",
		`..\..\win.ini`:     "win.ini",
		".bashrc":           "bashrc",
		"a\x00b\nc.txt":     "a_b_c.txt",
		"":                  "download",
		"..":                "download",
		"/":                 "download",
		"what?<is>this.txt": "what__is_this.txt",
	} {
		if got := SafeFileName(in); got != want {
			t.Errorf("SafeFileName(%q) = %q, want %q", in, got, want)
		}
	}
	long := SafeFileName(strings.Repeat("é", 300) + ".pdf")
	if len(long) > maxFileName || !strings.HasSuffix(long, ".pdf") || !strings.HasPrefix(long, "é") {
		t.Errorf("a long name became %q (%d bytes)", long, len(long))
	}
}

func TestSaveDownloadUnique(t *testing.T) {
	dir := t.TempDir()
	var got []string
	for range 3 {
		src := filepath.Join(dir, "guid")
		if err := os.WriteFile(src, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		p, err := SaveDownload(src, filepath.Join(dir, "dl"), "../r.csv")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, filepath.Base(p))
		if filepath.Dir(p) != filepath.Join(dir, "dl") {
			t.Fatalf("saved outside the directory: %s", p)
		}
	}
	if strings.Join(got, "|") != "r.csv|r (1).csv|r (2).csv" {
		t.Fatalf("names %v", got)
	}
}

package kit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode"
)

// PopupWait bounds the wait for a popup the browser said an action opens
// (window.open, a target=_blank link) to become a tab.
const PopupWait = 5 * time.Second

// ErrorCounter counts a page's console errors (console.error, failed
// asserts, uncaught exceptions) and hands out the number since it was last
// asked. Engines keep one per tab, beside their console log.
type ErrorCounter struct {
	mu            sync.Mutex
	total, handed int
}

// Add counts one error.
func (c *ErrorCounter) Add() {
	c.mu.Lock()
	c.total++
	c.mu.Unlock()
}

// Take returns the errors counted since the last Take.
func (c *ErrorCounter) Take() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.total - c.handed
	c.handed = c.total
	return n
}

// maxFileName bounds a saved download's name in bytes (most file systems
// allow 255).
const maxFileName = 200

// SafeFileName turns a name a site suggested into a file name that stays
// in its directory: no path separators or parent references, no control
// characters, no leading dots (hidden files), and a bounded length. An
// empty result becomes "download".
func SafeFileName(name string) string {
	name = filepath.Base(strings.ReplaceAll(name, `\`, "/"))
	if name == "/" || name == "." || name == ".." {
		name = ""
	}
	name = strings.Map(func(r rune) rune {
		switch {
		case r == '/' || r == '\\' || r == 0 || unicode.IsControl(r):
			return '_'
		case strings.ContainsRune(`<>:"|?*`, r):
			return '_'
		}
		return r
	}, name)
	name = strings.TrimLeft(strings.TrimSpace(name), ".")
	if len(name) > maxFileName {
		ext := filepath.Ext(name)
		if len(ext) > 20 {
			ext = ""
		}
		cut := maxFileName - len(ext)
		for cut > 0 && name[cut]&0xC0 == 0x80 {
			cut--
		}
		name = name[:cut] + ext
	}
	if name == "" || name == "." {
		return "download"
	}
	return name
}

// SaveDownload moves a finished download from src into dir under the
// site's suggested name, made safe and unique ("report (1).pdf" when
// "report.pdf" is taken), and returns the new path. The name is claimed
// with O_EXCL, so two downloads never share a file.
func SaveDownload(src, dir, suggested string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	name := SafeFileName(suggested)
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 0; i < 1000; i++ {
		n := name
		if i > 0 {
			n = fmt.Sprintf("%s (%d)%s", stem, i, ext)
		}
		dst := filepath.Join(dir, n)
		f, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if os.IsExist(err) {
			continue
		}
		if err != nil {
			return "", err
		}
		f.Close()
		if err := os.Rename(src, dst); err != nil {
			os.Remove(dst)
			return "", err
		}
		return dst, nil
	}
	return "", fmt.Errorf("no free name for %q in %s", name, dir)
}

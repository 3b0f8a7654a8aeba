package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode"
)

// An action's result tells what the action caused beyond its page, so that
// the agent need not go looking: the tabs it opened, the files it
// downloaded, and the console errors the page logged. Every Session reports
// them as a Reporter (an engine that has nothing to report embeds
// NothingToReport); Bound asks it around every action, under the action's
// deadline.

// NewTab is a tab an action opened: a window.open popup or a target=_blank
// link.
type NewTab struct {
	// Index is the tab's index for the tabs tool.
	Index int    `json:"index"`
	URL   string `json:"url"`
}

// The states of a Download.
const (
	DownloadCompleted  = "completed"
	DownloadCanceled   = "canceled"
	DownloadInProgress = "in_progress"
)

// Download is a file an action downloaded into the session's download
// directory.
type Download struct {
	// SuggestedName is the name the site gave the file (Content-Disposition
	// or the download attribute).
	SuggestedName string `json:"suggestedName"`
	// Path is where the file was saved; empty unless State is completed.
	Path  string `json:"path,omitempty"`
	Bytes int64  `json:"bytes"`
	// State is completed, canceled (Error says why) or in_progress when the
	// action's deadline came first.
	State string `json:"state"`
	Error string `json:"error,omitempty"`
}

// Reporter is the part of a Session that tells what an action caused. Watch is called before each action; the function it returns is
// called once the action succeeded, under the action's deadline, and adds
// the action's new tabs, downloads and console errors to res. It may wait,
// event-driven and bounded by ctx, for a popup or download the action
// started to arrive or to finish. Its error (UNSUPPORTED: a download the
// browser cannot save) fails the action, which did run.
type Reporter interface {
	Watch(ctx context.Context) func(ctx context.Context, res *ActionResult) error
}

// NothingToReport is the part of the Session contract for an engine, or a
// test's fake, that has nothing to offer there: its actions report no tabs,
// downloads or console errors (Reporter), it records no refused requests
// (BlockedLog), and it never says that its browser went away or that the
// session was ended elsewhere (Ender). Embed it and define the methods the
// engine does have; those win.
type NothingToReport struct{}

// Watch reports nothing.
func (NothingToReport) Watch(context.Context) func(context.Context, *ActionResult) error {
	return func(context.Context, *ActionResult) error { return nil }
}

// BlockedRequests records nothing.
func (NothingToReport) BlockedRequests() []BlockedRequest { return nil }

// Gone never closes: the session does not say when its browser went away.
func (NothingToReport) Gone() <-chan struct{} { return nil }

// EndedElsewhere cannot tell, so it answers false.
func (NothingToReport) EndedElsewhere(context.Context) bool { return false }

// PopupWait bounds the wait for a popup the browser said an action opens
// (window.open, a target=_blank link) to become a tab.
const PopupWait = 5 * time.Second

// report runs f, an action, between the session's Watch and its report.
func (b *bounded) report(f func(context.Context) (ActionResult, error)) func(context.Context) (ActionResult, error) {
	return func(ctx context.Context) (ActionResult, error) {
		done := b.s.Watch(ctx)
		res, err := f(ctx)
		if err == nil {
			err = done(ctx, &res)
		}
		return res, err
	}
}

// Watch, BlockedRequests, Gone and EndedElsewhere pass on the engine's:
// they are what the session offers, not calls to bound.

func (b *bounded) Watch(ctx context.Context) func(context.Context, *ActionResult) error {
	return b.s.Watch(ctx)
}

func (b *bounded) BlockedRequests() []BlockedRequest { return b.s.BlockedRequests() }

func (b *bounded) Gone() <-chan struct{} { return b.s.Gone() }

func (b *bounded) EndedElsewhere(ctx context.Context) bool { return b.s.EndedElsewhere(ctx) }

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

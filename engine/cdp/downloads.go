package cdp

import (
	"context"
	"os"
	"path/filepath"
	"sync"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit"
)

// Downloads. Each session's browser context saves downloads into the
// session's download directory under their guid (allowAndName), and the
// browser reports them on the browser's own connection
// (Browser.downloadWillBegin and downloadProgress). One hub per browser
// hands each event to the session whose page began the download; once
// complete, the file is moved to the name the site suggested, made safe.

// dlHub routes a browser's download events to sessions.
type dlHub struct {
	mu    sync.Mutex
	pages map[cdp.FrameID]*downloads // a page's main frame id is its target id
	byID  map[string]*download       // by guid
	// dirs find the session of a download begun in a subframe, which the
	// hub does not know, by the directory it completed in.
	dirs map[string]*downloads
}

// downloadHub returns the browser's hub, listening on first use.
func (b *browserProc) downloadHub() (*dlHub, error) {
	b.dlMu.Lock()
	defer b.dlMu.Unlock()
	if b.dl != nil {
		return b.dl, nil
	}
	h := &dlHub{pages: map[cdp.FrameID]*downloads{}, byID: map[string]*download{}, dirs: map[string]*downloads{}}
	if err := chromedp.ListenBrowser(b.ctx, h.onEvent); err != nil {
		return nil, engine.Wrap(engine.BrowserError, err, "could not watch the browser's downloads: "+err.Error())
	}
	b.dl = h
	return h, nil
}

// downloads are one session's downloads, shared by its tabs.
type downloads struct {
	dir string // "" when downloads are refused
	log *kit.DownloadLog
}

// download is one download the browser reported.
type download struct {
	guid, name string // name: the one the site suggested
	// d is the session's downloads, i the download's index in d.log;
	// d is nil for a subframe's download until it completes.
	d *downloads
	i int
}

// enableDownloads sets the browser context's download behaviour: saved
// into dir, or refused when dir is empty, and follows the downloads of
// the session's tabs.
func enableDownloads(ctx context.Context, b *browserProc, bc cdp.BrowserContextID, dir string) (*downloads, error) {
	d := &downloads{dir: dir, log: kit.NewDownloadLog()}
	p := browser.SetDownloadBehaviorParams{Behavior: browser.SetDownloadBehaviorBehaviorDeny, BrowserContextID: bc}
	if dir != "" {
		h, err := b.downloadHub()
		if err != nil {
			return nil, err
		}
		h.mu.Lock()
		h.dirs[filepath.Clean(dir)] = d
		h.mu.Unlock()
		p = browser.SetDownloadBehaviorParams{Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName,
			BrowserContextID: bc, DownloadPath: dir, EventsEnabled: new(true)}
	}
	c, cancel := context.WithTimeout(b.ctx, answerTimeout)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel)
	defer stop()
	if _, err := chromedp.CallBrowser(c, browser.SetDownloadBehavior, p); err != nil {
		return nil, engine.Wrap(engine.BrowserError, err, "could not set the session's download directory: "+err.Error())
	}
	return d, nil
}

// follow routes the downloads page id begins to d until tab ends.
func (d *downloads) follow(b *browserProc, id target.ID, tab context.Context) {
	if d.dir == "" {
		return
	}
	h, err := b.downloadHub()
	if err != nil {
		return
	}
	h.mu.Lock()
	h.pages[cdp.FrameID(id)] = d
	h.mu.Unlock()
	context.AfterFunc(tab, func() {
		h.mu.Lock()
		if h.pages[cdp.FrameID(id)] == d {
			delete(h.pages, cdp.FrameID(id))
		}
		h.mu.Unlock()
	})
}

// close forgets the session's downloads and removes its directory, once
// its browser context is gone.
func (d *downloads) close(b *browserProc) {
	if d.dir == "" {
		return
	}
	b.dlMu.Lock()
	h := b.dl
	b.dlMu.Unlock()
	if h != nil {
		h.mu.Lock()
		delete(h.dirs, filepath.Clean(d.dir))
		for id, dl := range h.byID {
			if dl.d == d {
				delete(h.byID, id)
			}
		}
		h.mu.Unlock()
	}
	os.RemoveAll(d.dir)
}

// onEvent is the browser listener: it only records, and leaves the file
// work to a goroutine.
func (h *dlHub) onEvent(ev any) {
	switch ev := ev.(type) {
	case *browser.EventDownloadWillBegin:
		h.mu.Lock()
		d := h.pages[ev.FrameID]
		h.mu.Unlock()
		if d == nil {
			// A subframe's download: its session is known once it
			// completes, by its directory.
			h.mu.Lock()
			h.byID[ev.GUID] = &download{guid: ev.GUID, name: ev.SuggestedFilename}
			h.mu.Unlock()
			return
		}
		dl := d.begin(ev.GUID, ev.SuggestedFilename)
		h.mu.Lock()
		h.byID[ev.GUID] = dl
		h.mu.Unlock()
	case *browser.EventDownloadProgress:
		if ev.State == browser.DownloadProgressStateInProgress {
			return
		}
		h.mu.Lock()
		dl := h.byID[ev.GUID]
		delete(h.byID, ev.GUID)
		if dl != nil && dl.d == nil && ev.FilePath != "" {
			if d := h.dirs[filepath.Dir(ev.FilePath)]; d != nil {
				dl = d.begin(dl.guid, dl.name)
			}
		}
		h.mu.Unlock()
		if dl == nil || dl.d == nil {
			return
		}
		go dl.finish(ev)
	}
}

// begin records a download the browser started.
func (d *downloads) begin(guid, name string) *download {
	i := d.log.Begin(engine.Download{SuggestedName: name, State: engine.DownloadInProgress})
	return &download{guid: guid, name: name, d: d, i: i}
}

// finish saves a completed download under its suggested name, or records
// why it failed.
func (dl *download) finish(ev *browser.EventDownloadProgress) {
	d := dl.d
	src := ev.FilePath
	if src == "" {
		src = filepath.Join(d.dir, dl.guid)
	}
	info := engine.Download{SuggestedName: dl.name, State: engine.DownloadInProgress}
	if ev.State == browser.DownloadProgressStateCompleted {
		path, err := kit.SaveDownload(src, d.dir, info.SuggestedName)
		if err == nil {
			info.State, info.Path = engine.DownloadCompleted, path
			if st, err := os.Stat(path); err == nil {
				info.Bytes = st.Size()
			}
		} else {
			info.State, info.Error = engine.DownloadCanceled, "could not save the file: "+err.Error()
		}
	} else {
		os.Remove(src)
		info.State, info.Error = engine.DownloadCanceled, "the download was canceled or failed"
		info.Bytes = int64(ev.ReceivedBytes)
	}
	d.log.Set(dl.i, info)
}

// report returns the downloads no result has named yet, once they
// finished, waiting for at least expected of them to begin
// (kit.DownloadLog.Report).
func (d *downloads) report(ctx context.Context, expected int) []engine.Download {
	if d.dir == "" {
		return nil // refused: the browser reports none
	}
	return d.log.Report(ctx, expected)
}

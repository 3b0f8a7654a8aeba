package enginetest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/internal/testenv"
)

// testReportTabs: an action's result names the tabs it opened, as the
// tabs tool lists them.
func (h *harness) testReportTabs(t *testing.T) {
	s := h.open(t, "/report.html")
	res := click(t, s, engine.ClickRequest{Target: sel("#blank")})
	if len(res.NewTabs) != 1 || res.NewTabs[0].Index != 1 {
		t.Fatalf("target=_blank: newTabs = %+v", res.NewTabs)
	}
	res = click(t, s, engine.ClickRequest{Target: sel("#popup")})
	if len(res.NewTabs) != 1 || res.NewTabs[0].Index != 2 {
		t.Fatalf("window.open: newTabs = %+v", res.NewTabs)
	}
	list := tabs(t, s, engine.TabsRequest{})
	if len(list.Tabs) != 3 || list.Current != 0 {
		t.Fatalf("the reported tabs are not the session's: %+v", list)
	}
	// The URLs reported are the popups' own (or, before a popup's first
	// load commits, about:blank): the tab list agrees once they load.
	testenv.Eventually(t, "the popups' pages", func() (bool, error) {
		list = tabs(t, s, engine.TabsRequest{})
		ok := strings.HasSuffix(list.Tabs[1].URL, "/welcome.html?user=blank") && strings.HasSuffix(list.Tabs[2].URL, "/form.html")
		return ok, fmt.Errorf("tabs %+v", list.Tabs)
	})
	// An action that opens nothing reports nothing.
	if res := click(t, s, engine.ClickRequest{Target: sel("#quiet")}); len(res.NewTabs) != 0 || len(res.Downloads) != 0 {
		t.Fatalf("a quiet click reports %+v", res)
	}
}

// testReportDownloads: a download an action starts is saved into the
// session's download directory under the site's name, made safe and
// unique, and reported with its size once complete; the directory goes
// with the session.
func (h *harness) testReportDownloads(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "session", "downloads")
	s, err := h.eng.NewSession(ctx(t), engine.SessionOptions{Viewport: Viewport, DownloadDir: dir})
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	t.Cleanup(func() { s.Close(ctx(t)) })
	h.navigate(t, s, "/report.html")

	download := func(selector string) engine.Download {
		t.Helper()
		res, err := s.Click(ctx(t), engine.ClickRequest{Target: sel(selector)})
		if err != nil {
			t.Fatalf("Click(%s): %v", selector, err)
		}
		if len(res.Downloads) != 1 {
			t.Fatalf("click on %s: downloads = %+v", selector, res.Downloads)
		}
		d := res.Downloads[0]
		if d.State != engine.DownloadCompleted || d.Error != "" {
			t.Fatalf("click on %s: download %+v did not complete", selector, d)
		}
		if filepath.Dir(d.Path) != dir {
			t.Fatalf("download saved at %q, not in the session's directory %q", d.Path, dir)
		}
		b, err := os.ReadFile(d.Path)
		if err != nil {
			t.Fatal(err)
		}
		// The test site serves its downloads as 0123456789abcdef repeated.
		want := bytes.Repeat([]byte("0123456789abcdef"), len(b)/16+1)[:len(b)]
		if int64(len(b)) != d.Bytes || !bytes.Equal(b, want) {
			t.Fatalf("file %s has %d bytes (%.20q), result says %d", d.Path, len(b), b, d.Bytes)
		}
		return d
	}
	// Every engine saves downloads, Firefox too (engine/pw wires its BiDi
	// download events into Playwright; only a Firefox older than 142
	// answers UNSUPPORTED, and fails here).
	res, err := s.Click(ctx(t), engine.ClickRequest{Target: sel("#named")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Downloads) != 1 || res.Downloads[0].SuggestedName != "notes.txt" || res.Downloads[0].Bytes != 300 {
		t.Fatalf("<a download>: downloads = %+v", res.Downloads)
	}
	d := download("#attachment")
	if d.SuggestedName != "report.csv" || filepath.Base(d.Path) != "report.csv" || d.Bytes != 2048 {
		t.Fatalf("attachment: %+v", d)
	}
	// The same name again does not overwrite the first file.
	if d := download("#attachment"); filepath.Base(d.Path) != "report (1).csv" || d.Bytes != 2048 {
		t.Fatalf("second attachment: %+v", d)
	}
	if d := download("#named"); d.SuggestedName != "notes.txt" || filepath.Base(d.Path) != "notes (1).txt" || d.Bytes != 300 {
		t.Fatalf("<a download>: %+v", d)
	}
	// A hostile name stays in the directory (checked by download).
	if d := download("#evil"); !strings.HasSuffix(d.Path, "evil.txt") || d.Bytes != 10 {
		t.Fatalf("hostile name: %+v", d)
	}
	// The page stays where it was: a download is not a navigation.
	if got := s.Info(ctx(t)).URL; !strings.HasSuffix(got, "/report.html") {
		t.Fatalf("after the downloads the page is at %s", got)
	}
	if err := s.Close(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the download directory outlived its session: %v", err)
	}
}

// testReportConsole: each action's result counts the console errors
// (console.error, uncaught exceptions) logged since the last result.
func (h *harness) testReportConsole(t *testing.T) {
	s := h.open(t, "/report.html")
	if res := click(t, s, engine.ClickRequest{Target: sel("#quiet")}); res.ConsoleErrors != 0 {
		t.Fatalf("a page without errors: consoleErrors = %d", res.ConsoleErrors)
	}
	// #errors logs two errors and throws one uncaught exception a moment
	// later; the three are counted once each, by this action or the next.
	total := click(t, s, engine.ClickRequest{Target: sel("#errors")}).ConsoleErrors
	if total < 2 {
		t.Fatalf("console.error twice: consoleErrors = %d", total)
	}
	testenv.Eventually(t, "three console errors", func() (bool, error) {
		total += click(t, s, engine.ClickRequest{Target: sel("#quiet")}).ConsoleErrors
		return total >= 3, fmt.Errorf("%d errors counted", total)
	})
	if total != 3 {
		t.Fatalf("consoleErrors added up to %d, want 3", total)
	}
	if res := click(t, s, engine.ClickRequest{Target: sel("#quiet")}); res.ConsoleErrors != 0 {
		t.Fatalf("errors counted twice: consoleErrors = %d", res.ConsoleErrors)
	}
}

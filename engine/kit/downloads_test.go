package kit_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/seed4af8c199/browsermcp/engine"
	"github.com/seed4af8c199/browsermcp/engine/kit"
)

// Report waits for the downloads an action was seen to start, or its
// pages announced, to begin (at most PopupWait) and to finish, and names
// each download once.
func TestDownloadLogReport(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := kit.NewDownloadLog()
		if got := l.Report(t.Context(), 0); got != nil {
			t.Fatalf("nothing began, got %v", got)
		}

		// Announced, then begun and finished a moment later.
		l.Announce()
		go func() {
			time.Sleep(time.Second)
			i := l.Begin(engine.Download{SuggestedName: "a.txt", State: engine.DownloadInProgress})
			time.Sleep(time.Second)
			l.Set(i, engine.Download{SuggestedName: "a.txt", State: engine.DownloadCompleted, Path: "/d/a.txt"})
		}()
		start := time.Now()
		got := l.Report(t.Context(), 0)
		if len(got) != 1 || got[0].State != engine.DownloadCompleted || time.Since(start) != 2*time.Second {
			t.Fatalf("announced download: %v after %v", got, time.Since(start))
		}
		if got := l.Report(t.Context(), 0); got != nil {
			t.Fatalf("a download was named twice: %v", got)
		}

		// Expected ones that never begin are given up after PopupWait.
		start = time.Now()
		if got := l.Report(t.Context(), 2); got != nil || time.Since(start) != kit.PopupWait {
			t.Fatalf("expected downloads that never began: %v after %v", got, time.Since(start))
		}

		// One still running when ctx ends is named as in progress.
		l.Begin(engine.Download{SuggestedName: "b.txt", State: engine.DownloadInProgress})
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
		defer cancel()
		if got := l.Report(ctx, 0); len(got) != 1 || got[0].State != engine.DownloadInProgress {
			t.Fatalf("running download at the deadline: %v", got)
		}

		// An engine that cannot save downloads learns of the announced.
		l.Announce()
		if !l.TakeAnnounced() || l.TakeAnnounced() {
			t.Fatal("TakeAnnounced did not report the announced download once")
		}
	})
}
